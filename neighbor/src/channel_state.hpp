#pragma once
// What a communicator keeps for its neighborhood collectives, cached on it
// under a runtime keyval and not copied by MPI_Comm_dup (a duplicate gets its
// own): the channel all their traffic runs on (a tag range on a channel
// shared with the communicators over the same ranks, see
// core/shared_channel.hpp), the tag counter, the in/out neighbor sequence of
// its topology record, and the requests the blocking forms reuse.
#include <mpi.h>

#include "completion.hpp"
#include "distopo/core/shared_channel.hpp"
#include "distopo/core/topology.hpp"
#include "neighbor_sequence.hpp"

namespace distopo::detail {

struct NeighborState {
  ChannelLease channel;  // .get(): the channel; its tags are this communicator's alone
  int rank = 0;
  unsigned long long next_collective = 0;
  const TopologyRecord* record = nullptr;  // the record `sequence` was computed from
  NeighborSequence sequence;
  PostedRequests blocking;  // reused by every blocking call
};

// Collective the first time on `comm` (an allreduce over it, and once per
// family of communicators the creation of their channel); local afterwards.
// Errors raised here (MPI_ERR_COMM, MPI_ERR_TOPOLOGY) are the same on every
// rank.
NeighborState& state_of(MPI_Comm comm, const char* caller);

// The tag of the next collective started on `state`'s communicator: every
// collective gets its own, so outstanding ones never mix.
int next_tag(NeighborState& state);

}  // namespace distopo::detail
