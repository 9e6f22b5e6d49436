#include "install_topology.hpp"

#include <optional>
#include <string>

#include "distopo/core/error.hpp"
#include "distopo/core/info.hpp"
#include "distopo/core/node_layout.hpp"
#include "distopo/core/private_channel.hpp"
#include "distopo/core/shared_channel.hpp"
#include "distopo/mapping/placement.hpp"

namespace distopo::detail {
namespace {
#if DISTOPO_NATIVE_TOPOLOGY
const int* native_weights(std::span<const int> weights, bool copied) {
  if (!copied) return MPI_UNWEIGHTED;
  return weights.empty() ? MPI_WEIGHTS_EMPTY : weights.data();
}

// MPICH's copy of `record` over `base` (reorder off: our neighbors, our
// order); `code` gets MPICH's error code, MPI_COMM_NULL is returned then.
MPI_Comm native_copy_of(MPI_Comm base, const DistGraphTopology& record, bool weights, int& code) {
  MPI_Comm native = MPI_COMM_NULL;
  // PMPI: once the interposition library is loaded, MPI_ names are ours.
  code = PMPI_Dist_graph_create_adjacent(
      base, static_cast<int>(record.sources.size()), record.sources.data(),
      native_weights(record.source_weights, weights), static_cast<int>(record.destinations.size()),
      record.destinations.data(), native_weights(record.destination_weights, weights), MPI_INFO_NULL, 0, &native);
  return code == MPI_SUCCESS ? native : MPI_COMM_NULL;
}
#endif

// The result over `base`'s group in `base`'s rank order; `base_is_ours`: a
// communicator made for this result, taken over (or freed) instead of copied.
// `mirror` is released for MPICH's copy. Without `agreement_comm` MPICH's copy
// is trusted to succeed (its memory was held since the agreement); with it,
// every rank learns of a failure on any rank through one allreduce there.
Comm with_topology(MPI_Comm base, bool base_is_ours, DistGraphTopology record, [[maybe_unused]] NativeCopy native_copy,
                   NativeReservation mirror, [[maybe_unused]] MPI_Comm agreement_comm, const LeaseOffer& lease) {
#if DISTOPO_NATIVE_TOPOLOGY
  const bool weights = record.weighted && native_copy == NativeCopy::kNeighborsAndWeights;
  mirror.release();
  int code = MPI_SUCCESS;
  MPI_Comm native = native_copy_of(base, record, weights, code);
  if (base_is_ours) PMPI_Comm_free(&base);
  if (agreement_comm != MPI_COMM_NULL) {
    std::optional<LocalError> failure;
    try {
      check_mpi(code, "MPICH's copy of the topology (PMPI_Dist_graph_create_adjacent)");
    } catch (const Error& error) {
      failure =
          LocalError{error.error_class(), "rank " + std::to_string(comm_rank(agreement_comm)) + ": " + error.what()};
    }
    try {
      agree_on_error(agreement_comm, failure);
    } catch (...) {
      if (native != MPI_COMM_NULL) PMPI_Comm_free(&native);
      throw;
    }
  }
  check_mpi(code, "MPICH's copy of the topology (PMPI_Dist_graph_create_adjacent)");
  Comm result = Comm::adopt(native);
#else
  mirror.release();
  Comm result = base_is_ours ? Comm::adopt(base) : copy_without_attributes(base);
#endif
  attach_topology(result, std::move(record));
  // Same ranks in the same order: the result joins its parent's channel family.
  if (!base_is_ours) {
    share_channels(base, result);
    lease.take(result);
  }
  return result;
}

}  // namespace

NativeCopy requested_native_copy(MPI_Info info) {
  return info_flag(info, kNativeWeightsKey) ? NativeCopy::kNeighborsAndWeights : NativeCopy::kNeighbors;
}

Comm install_dist_graph(MPI_Comm comm_old, DistGraphTopology record, const DistGraphOptions& options,
                        NativeCopy native_copy, NativeReservation mirror, const LeaseOffer& lease) {
  if (!options.reorder) {
    return with_topology(comm_old, false, std::move(record), native_copy, std::move(mirror), MPI_COMM_NULL, lease);
  }
  const ReorderSettings settings = agreed_reorder_settings(comm_old, options.info);
  const NodeLayout layout = discover_nodes(comm_old, settings.ranks_per_node);
  const Placement placement = place(comm_old, record, layout, settings);
  if (placement.same_order) {
    return with_topology(comm_old, false, std::move(record), native_copy, std::move(mirror), MPI_COMM_NULL, lease);
  }

  const PrivateChannel channel = private_channel(comm_old);
  // The lists that arrive are another graph node's: the reservation made for
  // this rank's does not cover them.
  mirror.release();
  record = move_lists(channel.comm, std::move(record), placement);
  MPI_Comm reordered = MPI_COMM_NULL;
  check_mpi(PMPI_Comm_split(comm_old, 0, placement.rank, &reordered), "MPI_Comm_split");
  return with_topology(reordered, true, std::move(record), native_copy, NativeReservation{}, comm_old, LeaseOffer{});
}

}  // namespace distopo::detail
