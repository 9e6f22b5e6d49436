#pragma once
// The request a non-blocking neighborhood collective returns is an MPICH
// generalized request (MPIX_Grequest_class) whose callbacks test and wait for
// the collective's point-to-point requests, so MPICH's MPI_Wait, MPI_Test and
// friends complete it. Two things stay MPICH's there: MPI_Request_get_status
// never completes it (MPICH does not call a generalized request's poll
// function there), and a failure (with the collective's error class) is
// raised on MPI_COMM_WORLD's error handler (a generalized request has no
// communicator).
//
// A caller that intercepts completion calls completes the request through
// this class instead, and gets the standard's behaviour: the C API library
// (libdistopo_mpi) does, for every completion call. Errors are then the
// collective's own (class and message), for the caller to report on comm().
#include <mpi.h>

#include <memory>

namespace distopo {

class NonblockingRequest {
 public:
  // The collective behind `request`, or nullptr for any other request (one of
  // ours is found until it is freed). Cheap while none is outstanding.
  [[nodiscard]] static NonblockingRequest* find(MPI_Request request) noexcept;

  // The communicator the collective was started on.
  [[nodiscard]] MPI_Comm comm() const noexcept;
  // Progresses it; true once it is complete. Non-destructive (it stays
  // complete, with its result, until wait or test frees it).
  [[nodiscard]] bool done() noexcept;
  // done(), throwing distopo::Error if it completed with a failure
  // (MPI_Request_get_status).
  [[nodiscard]] bool get_status();
  // Waits for completion and frees the request (*request = MPI_REQUEST_NULL;
  // this object is gone), then throws distopo::Error if it failed.
  void wait(MPI_Request* request);
  // Like wait if it is complete (true); false otherwise.
  [[nodiscard]] bool test(MPI_Request* request);

  NonblockingRequest(const NonblockingRequest&) = delete;
  NonblockingRequest& operator=(const NonblockingRequest&) = delete;
  ~NonblockingRequest();

  // The library's side of a request (opaque here), and the MPICH callbacks
  // that make and serve it.
  struct State;
  struct Callbacks;

 private:
  explicit NonblockingRequest(std::unique_ptr<State> state) noexcept;
  void mark_complete() noexcept;       // MPI_Grequest_complete, once
  void release(MPI_Request* request);  // frees a complete one; throws its failure

  std::unique_ptr<State> state_;
  MPI_Request handle_ = MPI_REQUEST_NULL;  // the generalized request handed out
  bool marked_ = false;
};

}  // namespace distopo
