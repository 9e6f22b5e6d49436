#include "install_topology.hpp"

#include "distopo/core/error.hpp"
#include "distopo/core/shared_channel.hpp"

namespace distopo::detail {
namespace {
#if DISTOPO_NATIVE_TOPOLOGY
const int* native_weights(const std::vector<int>& weights, bool weighted) {
  if (!weighted) return MPI_UNWEIGHTED;
  return weights.empty() ? MPI_WEIGHTS_EMPTY : weights.data();
}
#endif
}  // namespace

Comm install_dist_graph(MPI_Comm comm_old, DistGraphTopology record) {
#if DISTOPO_NATIVE_TOPOLOGY
  MPI_Comm native = MPI_COMM_NULL;
  // PMPI: once the interposition library is loaded, MPI_ names are ours.
  check_mpi(PMPI_Dist_graph_create_adjacent(
                comm_old, static_cast<int>(record.sources.size()), record.sources.data(),
                native_weights(record.source_weights, record.weighted), static_cast<int>(record.destinations.size()),
                record.destinations.data(), native_weights(record.destination_weights, record.weighted),
                MPI_INFO_NULL, 0, &native),
            "MPI_Dist_graph_create_adjacent");
  Comm result = Comm::adopt(native);
#else
  Comm result = copy_without_attributes(comm_old);
#endif
  attach_topology(result, std::move(record));
  share_channels(comm_old, result);
  return result;
}

}  // namespace distopo::detail
