#pragma once
// The requests distopo's neighborhood collectives hand out, behind MPI_Request
// handles: a non-blocking collective's (an MPICH generalized request, behind
// which is a distopo::NonblockingRequest) and a persistent one's
// (persistent_requests.hpp). The completion calls (completion_calls.cpp)
// complete them through this view rather than in MPICH, which would never
// complete a non-blocking one in MPI_Request_get_status and would raise its
// failure on MPI_COMM_WORLD's handler: the standard wants the collective's
// own error, on the communicator it was started on.
#include <mpi.h>

#include <optional>

#include "distopo/neighbor/nonblocking_request.hpp"
#include "distopo/neighbor/persistent_request.hpp"

namespace distopo::capi {

class CollectiveRequest {
 public:
  // The collective behind `handle`, or nothing for any other request.
  [[nodiscard]] static std::optional<CollectiveRequest> find(MPI_Request handle) noexcept;
  // Whether any of `requests` is one (cheap while none is outstanding).
  [[nodiscard]] static bool any(int count, const MPI_Request requests[]) noexcept;

  // The communicator it was started on, where its errors are raised.
  [[nodiscard]] MPI_Comm comm() const noexcept;
  // False only for a persistent request not started since its last completion.
  [[nodiscard]] bool active() const noexcept;
  // Progresses it; true once complete (an inactive one is). Frees and
  // inactivates nothing, reports nothing.
  [[nodiscard]] bool done() noexcept;
  // done(), throwing the failure of a complete collective (so it throws only
  // when complete) and leaving the request as it is (MPI_Request_get_status).
  [[nodiscard]] bool get_status();
  // Waits for completion, then frees a non-blocking request (*handle =
  // MPI_REQUEST_NULL; this view is void then) or inactivates a persistent
  // one, and throws the collective's failure if it failed.
  void complete(MPI_Request* handle);

 private:
  NonblockingRequest* nonblocking_ = nullptr;
  PersistentRequest* persistent_ = nullptr;
};

}  // namespace distopo::capi
