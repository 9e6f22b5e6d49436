#pragma once
// Turns a computed distributed-graph record into the communicator handed back,
// a new communicator over the group of `comm_old`: with
// DISTOPO_NATIVE_TOPOLOGY it comes from MPICH's own adjacent constructor
// (reorder off, our neighbors), so plain MPI neighbor calls work on it too;
// otherwise from copy_without_attributes. Either way the user's attributes are
// not copied (only MPI_Comm_dup copies them). Unless reordered, the result
// shares neighborhood channels with `comm_old` (same group, same rank order);
// a reordered result comes from MPI_Comm_split and starts a family of its own.
#include "distopo/core/comm.hpp"
#include "distopo/core/native_reservation.hpp"
#include "distopo/core/shared_channel.hpp"
#include "distopo/core/topology.hpp"
#include "distopo/distgraph.hpp"

namespace distopo::detail {

// What MPICH's own copy of a distributed graph (the native mirror) holds. Its
// purpose is MPICH's neighborhood collectives, which read neighbors only;
// weights there cost 4 bytes per neighbor for as long as the communicator
// lives (and raise a hub's peak above MPICH's own constructor's), so they are
// copied only on request: info key distopo_native_weights = true.
enum class NativeCopy { kNeighbors, kNeighborsAndWeights };
inline constexpr const char* kNativeWeightsKey = "distopo_native_weights";

// This rank's distopo_native_weights (local; the constructors agree on it).
NativeCopy requested_native_copy(MPI_Info info);

// A rank's lists and the memory held for MPICH's copy of them.
struct ReservedLists {
  DistGraphTopology record;
  NativeReservation mirror;
  LeaseOffer lease;  // the result's, as agreed
};

// Collective over `comm_old`. `record` holds graph node `rank`'s lists and
// `mirror` the memory MPICH's copy of them needs (taken before the
// agreement, released for MPICH's constructor). With options.reorder (agreed)
// the graph nodes may move to other processes (distopo/mapping/placement.hpp),
// graph node v becoming rank v of the result; lists that moved have no
// reservation, so there a failure of MPICH's copy is agreed in one more
// allreduce, the same error on every rank. `lease`: the result's lease as the
// agreement left it (taken where the result shares `comm_old`'s channels).
Comm install_dist_graph(MPI_Comm comm_old, DistGraphTopology record, const DistGraphOptions& options,
                        NativeCopy native_copy, NativeReservation mirror, const LeaseOffer& lease);

// The same in two steps, for a constructor whose agreement is in flight
// while MPICH makes its copy (dist_graph_create_adjacent: one round's time
// instead of two). Collective over `comm_old`: the communicator in
// `comm_old`'s rank order with MPICH's copy of `record` (on a rank with an
// input error, an empty record); every rank makes it, whatever the
// agreement will say.
Comm copy_before_agreement(MPI_Comm comm_old, const DistGraphTopology& record, NativeCopy native_copy,
                           NativeReservation mirror);
// After the agreement: `made` becomes the result, or is freed where the
// agreed reordering moves graph nodes (collective over `comm_old` then).
Comm install_made(MPI_Comm comm_old, Comm made, DistGraphTopology record, const DistGraphOptions& options,
                  NativeCopy native_copy, const LeaseOffer& lease);

}  // namespace distopo::detail
