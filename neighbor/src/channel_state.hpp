#pragma once
// What a communicator keeps for its neighborhood collectives, cached on it
// under a runtime keyval and not copied by MPI_Comm_dup (a duplicate gets its
// own): the private duplicate all their traffic runs on, the tag counter, the
// in/out neighbor sequence of its topology record, and the requests the
// blocking forms reuse.
#include <mpi.h>

#include "completion.hpp"
#include "distopo/core/comm.hpp"
#include "distopo/core/topology.hpp"
#include "neighbor_sequence.hpp"

namespace distopo::detail {

struct NeighborState {
  Comm channel;  // private duplicate of the user communicator
  int rank = 0;
  int tag_count = 1;
  unsigned long long next_collective = 0;
  const TopologyRecord* record = nullptr;  // the record `sequence` was computed from
  NeighborSequence sequence;
  PostedRequests blocking;  // reused by every blocking call
};

// Collective the first time on `comm` (duplicates it); local afterwards.
// Errors raised here (MPI_ERR_COMM, MPI_ERR_TOPOLOGY) are the same on every
// rank.
NeighborState& state_of(MPI_Comm comm, const char* caller);

// The tag of the next collective started on `state`'s communicator: every
// collective gets its own, so outstanding ones never mix.
int next_tag(NeighborState& state);

}  // namespace distopo::detail
