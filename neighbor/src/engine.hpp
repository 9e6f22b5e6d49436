#pragma once
// The engine behind every front: a call described once by the standard's
// arguments (NeighborCall), run in one of the three forms MPI defines on the
// state its communicator keeps (NeighborState: channel, tag counter, plan,
// the blocking form's reused requests).
#include <mpi.h>

#include <memory>
#include <optional>

#include "arguments.hpp"
#include "distopo/core/shared_channel.hpp"
#include "distopo/core/topology.hpp"
#include "distopo/neighbor/nonblocking_request.hpp"
#include "distopo/neighbor/persistent_request.hpp"
#include "exchange.hpp"
#include "plan.hpp"

namespace distopo {

struct PersistentRequest::State {
  detail::Exchange exchange;
  detail::Selection selection;  // the algorithm it runs
};
struct NonblockingRequest::State {
  detail::Exchange exchange;
};

namespace detail {

// What a communicator keeps for its neighborhood collectives, cached on it
// under a runtime keyval and not copied by MPI_Comm_dup (a duplicate gets its
// own): the channel all their traffic runs on (a tag range on a channel
// shared with the communicators over the same ranks, see
// core/shared_channel.hpp), the tag counter, the plan, and the requests the
// blocking forms reuse.
struct NeighborState {
  ChannelLease channel;  // .get(): the channel; its tags are this communicator's alone
  int rank = 0;
  unsigned long long next_collective = 0;
  const TopologyRecord* record = nullptr;  // the record `plan` was made from
  PlanSettings settings;                   // as agreed when `plan` was made
  std::shared_ptr<const Plan> plan;
  // Under auto, the persistent form's plan (make_persistent_auto_plan): made
  // at the first persistent init after `plan`, dropped with it.
  std::shared_ptr<const Plan> persistent_auto;
  Exchange blocking;  // reused by every blocking call
};

// Collective the first time on `comm` (one allreduce: the channel's lease
// and the plan's settings; more for aggregation, see make_plan), and again
// after set_neighbor_info; local afterwards.
// Errors raised here (MPI_ERR_COMM, MPI_ERR_TOPOLOGY, a setting that differs
// between ranks) are the same on every rank.
NeighborState& state_of(MPI_Comm comm, const char* caller);

// The tags of the next collective started on `state`'s communicator: every
// collective gets its own, so outstanding ones never mix.
Tags next_tags(NeighborState& state);

class NeighborCall {
 public:
  NeighborCall(MPI_Comm comm, NeighborArgs args, std::optional<TypedBounds> typed = std::nullopt)
      : comm_(comm), args_(args), typed_(std::move(typed)) {}

  // Blocking: returns when this rank's part is complete.
  void run() const;
  // Non-blocking: *request completes with MPI_Wait, MPI_Test and friends. A
  // null `request` is MPI_ERR_REQUEST (after the no-hang exchange).
  void start(MPI_Request* request) const;
  [[nodiscard]] MPI_Request start() const {
    MPI_Request request = MPI_REQUEST_NULL;
    start(&request);
    return request;
  }
  // Persistent: inactive until start(). Local with the direct algorithm;
  // under auto and with aggregation the ranks agree on the algorithm and the
  // relays learn their message sizes here, and a rank whose arguments are
  // bad takes part before it throws, so that the others' inits return.
  [[nodiscard]] PersistentRequest init() const;

 private:
  MPI_Comm comm_;
  NeighborArgs args_;
  std::optional<TypedBounds> typed_;
};

// The non-blocking form's request: an MPICH generalized request whose poll
// and wait functions complete `state` (requests.cpp). Without generalized
// requests (SMPI) the collective completes here and MPI_REQUEST_NULL is
// returned; a failure is thrown.
MPI_Request nonblocking_request(std::unique_ptr<NonblockingRequest::State> state);
// A state for a non-blocking collective: one a finished request gave back
// to this thread (its arrays keep their room), or a new one.
std::unique_ptr<NonblockingRequest::State> nonblocking_state();

}  // namespace detail
}  // namespace distopo
