#pragma once
// distopo::PersistentRequest: a persistent neighborhood collective (MPI-4
// "init once, start many times"), returned by the *_init forms.
#include <mpi.h>

#include <memory>

#include "distopo/neighbor/algorithm.hpp"

namespace distopo {

// Inactive after init; start() posts the prepared sends and receives,
// wait()/test() complete them. The buffers and the arguments given at init
// are used by every start. Starts must happen in the same order on all ranks
// (as MPI-4 requires). Movable; destroying an active one waits for it.
//
// A failure met while the collective ran (a message longer than its block,
// for instance) is thrown as distopo::Error by the wait() or test() that
// completes it; the request is inactive then and can be started again.
//
// Not an MPI_Request: MPICH's generalized requests cannot be persistent, and
// its own MPI_Neighbor_*_init cannot carry distopo's pairing rule. The C API
// maps the MPI_Request it hands out to one of these.
class PersistentRequest {
 public:
  // The library's side of a request (opaque here).
  struct State;

  PersistentRequest() noexcept;
  explicit PersistentRequest(std::unique_ptr<State> state) noexcept;
  PersistentRequest(PersistentRequest&&) noexcept;
  PersistentRequest& operator=(PersistentRequest&&) noexcept;
  ~PersistentRequest();

  // MPI_ERR_REQUEST if it is active.
  void start();
  // Waits for completion; inactive afterwards (at once if it was inactive).
  void wait();
  // True, and inactive, once complete (at once if inactive).
  [[nodiscard]] bool test();
  // Progresses it; true once complete (or inactive). A complete request stays
  // active: its result is taken by the next wait() or test().
  [[nodiscard]] bool done();
  // done(), throwing the failure of a complete run without taking it
  // (MPI_Request_get_status).
  [[nodiscard]] bool get_status();
  [[nodiscard]] bool active() const noexcept;
  // The communicator it was initialized on (MPI_COMM_NULL when empty).
  [[nodiscard]] MPI_Comm comm() const noexcept;
  // The algorithm it runs, chosen at init (under auto the persistent form
  // chooses for itself: algorithm.hpp). MPI_ERR_REQUEST when empty.
  [[nodiscard]] NeighborAlgorithmChoice algorithm() const;
  [[nodiscard]] explicit operator bool() const noexcept { return state_ != nullptr; }

 private:
  void take_result();  // inactive; throws the failure of the run that ended

  std::unique_ptr<State> state_;
};

}  // namespace distopo
