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

// MPICH's copy of `record` (or, without it, a copy of `base` with none of its
// attributes) over `base`'s group in its rank order; `base_is_ours`: a
// communicator made for this result, taken over (or freed) instead of copied.
// `mirror` is released for MPICH's copy. Without `agreement_comm` MPICH's
// copy is trusted to succeed (its memory was held since the agreement); with
// it, every rank learns of a failure on any rank through one allreduce there.
Comm copy_in_order(MPI_Comm base, bool base_is_ours, [[maybe_unused]] const DistGraphTopology& record,
                   [[maybe_unused]] NativeCopy native_copy, NativeReservation mirror,
                   [[maybe_unused]] MPI_Comm agreement_comm) {
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
  return Comm::adopt(native);
#else
  mirror.release();
  return base_is_ours ? Comm::adopt(base) : copy_without_attributes(base);
#endif
}

// `result` (a copy in order of `parent`, or of a reordered communicator when
// `parent` is null) with `record` attached; a copy in order joins the
// parent's channel family and takes the lease the agreement left.
Comm with_record(Comm result, DistGraphTopology record, MPI_Comm parent, const LeaseOffer& lease) {
  attach_topology(result, std::move(record));
  if (parent != MPI_COMM_NULL) {
    share_channels(parent, result);
    lease.take(result);
  }
  return result;
}

// With options.reorder (agreed): the graph nodes placed node-aware; `made`,
// a copy in order of `comm_old` made already (or null), is the result where
// no node moves.
Comm install_reordered(MPI_Comm comm_old, DistGraphTopology record, const DistGraphOptions& options,
                       NativeCopy native_copy, NativeReservation mirror, const LeaseOffer& lease, Comm made) {
  const ReorderSettings settings = agreed_reorder_settings(comm_old, options.info);
  const NodeLayout layout = discover_nodes(comm_old, settings.ranks_per_node);
  const Placement placement = place(comm_old, record, layout, settings);
  if (placement.same_order) {
    if (made.is_null()) made = copy_in_order(comm_old, false, record, native_copy, std::move(mirror), MPI_COMM_NULL);
    return with_record(std::move(made), std::move(record), comm_old, lease);
  }
  made = Comm();
  const PrivateChannel channel = private_channel(comm_old);
  // The lists that arrive are another graph node's: the reservation made for
  // this rank's does not cover them.
  mirror.release();
  record = move_lists(channel.comm, std::move(record), placement);
  MPI_Comm reordered = MPI_COMM_NULL;
  check_mpi(PMPI_Comm_split(comm_old, 0, placement.rank, &reordered), "MPI_Comm_split");
  Comm result = copy_in_order(reordered, true, record, native_copy, NativeReservation{}, comm_old);
  return with_record(std::move(result), std::move(record), MPI_COMM_NULL, LeaseOffer{});
}

}  // namespace

NativeCopy requested_native_copy(MPI_Info info) {
  return info_flag(info, kNativeWeightsKey) ? NativeCopy::kNeighborsAndWeights : NativeCopy::kNeighbors;
}

Comm install_dist_graph(MPI_Comm comm_old, DistGraphTopology record, const DistGraphOptions& options,
                        NativeCopy native_copy, NativeReservation mirror, const LeaseOffer& lease) {
  if (options.reorder) {
    return install_reordered(comm_old, std::move(record), options, native_copy, std::move(mirror), lease, Comm());
  }
  Comm result = copy_in_order(comm_old, false, record, native_copy, std::move(mirror), MPI_COMM_NULL);
  return with_record(std::move(result), std::move(record), comm_old, lease);
}

Comm copy_before_agreement(MPI_Comm comm_old, const DistGraphTopology& record, NativeCopy native_copy,
                           NativeReservation mirror) {
  return copy_in_order(comm_old, false, record, native_copy, std::move(mirror), MPI_COMM_NULL);
}

Comm install_made(MPI_Comm comm_old, Comm made, DistGraphTopology record, const DistGraphOptions& options,
                  NativeCopy native_copy, const LeaseOffer& lease) {
  if (options.reorder) {
    return install_reordered(comm_old, std::move(record), options, native_copy, NativeReservation{}, lease,
                             std::move(made));
  }
  return with_record(std::move(made), std::move(record), comm_old, lease);
}

}  // namespace distopo::detail
