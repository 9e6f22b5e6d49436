#include "install_topology.hpp"

#include "distopo/core/error.hpp"
#include "distopo/core/info.hpp"
#include "distopo/core/node_layout.hpp"
#include "distopo/core/private_channel.hpp"
#include "distopo/core/shared_channel.hpp"
#include "distopo/mapping/placement.hpp"

namespace distopo::detail {
namespace {
#if DISTOPO_NATIVE_TOPOLOGY
const int* native_weights(const std::vector<int>& weights, bool copied) {
  if (!copied) return MPI_UNWEIGHTED;
  return weights.empty() ? MPI_WEIGHTS_EMPTY : weights.data();
}
#endif

// The result over `base`'s group in `base`'s rank order; `base_is_ours`: a
// communicator made for this result, taken over (or freed) instead of copied.
Comm with_topology(MPI_Comm base, bool base_is_ours, DistGraphTopology record,
                   [[maybe_unused]] NativeCopy native_copy) {
#if DISTOPO_NATIVE_TOPOLOGY
  const bool weights = record.weighted && native_copy == NativeCopy::kNeighborsAndWeights;
  MPI_Comm native = MPI_COMM_NULL;
  // PMPI: once the interposition library is loaded, MPI_ names are ours.
  const int rc = PMPI_Dist_graph_create_adjacent(
      base, static_cast<int>(record.sources.size()), record.sources.data(),
      native_weights(record.source_weights, weights), static_cast<int>(record.destinations.size()),
      record.destinations.data(), native_weights(record.destination_weights, weights), MPI_INFO_NULL, 0, &native);
  if (base_is_ours) PMPI_Comm_free(&base);
  check_mpi(rc, "MPI_Dist_graph_create_adjacent");
  Comm result = Comm::adopt(native);
#else
  Comm result = base_is_ours ? Comm::adopt(base) : copy_without_attributes(base);
#endif
  attach_topology(result, std::move(record));
  // Same ranks in the same order: the result joins its parent's channel family.
  if (!base_is_ours) share_channels(base, result);
  return result;
}

}  // namespace

NativeCopy requested_native_copy(MPI_Info info) {
  return info_flag(info, kNativeWeightsKey) ? NativeCopy::kNeighborsAndWeights : NativeCopy::kNeighbors;
}

Comm install_dist_graph(MPI_Comm comm_old, DistGraphTopology record, const DistGraphOptions& options,
                        NativeCopy native_copy) {
  if (!options.reorder) return with_topology(comm_old, false, std::move(record), native_copy);
  const ReorderSettings settings = agreed_reorder_settings(comm_old, options.info);
  const NodeLayout layout = discover_nodes(comm_old, settings.ranks_per_node);
  const Placement placement = place(comm_old, record, layout, settings);
  if (placement.same_order) return with_topology(comm_old, false, std::move(record), native_copy);

  const PrivateChannel channel = private_channel(comm_old);
  record = move_lists(channel.comm, std::move(record), placement);
  MPI_Comm reordered = MPI_COMM_NULL;
  check_mpi(PMPI_Comm_split(comm_old, 0, placement.rank, &reordered), "MPI_Comm_split");
  return with_topology(reordered, true, std::move(record), native_copy);
}

}  // namespace distopo::detail
