#include "generalized_request.hpp"

#include "distopo/core/error.hpp"

namespace distopo::detail {
namespace {

struct Pending {
  std::unique_ptr<PostedRequests> posted;
  MPI_Request handle = MPI_REQUEST_NULL;  // the generalized request handed out
};

int query_pending(void*, MPI_Status* status) {
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int free_pending(void* state) {
  delete static_cast<Pending*>(state);
  return MPI_SUCCESS;
}

int cancel_pending(void*, int) { return MPI_SUCCESS; }  // collectives cannot be cancelled

// Called by MPICH's progress engine (MPI_Test*, MPI_Wait*, any progress).
int poll_pending(void* state, MPI_Status*) {
  auto* pending = static_cast<Pending*>(state);
  if (!pending->posted->active()) return MPI_SUCCESS;
  bool done = false;
  if (const int rc = pending->posted->test(done); rc != MPI_SUCCESS) return rc;
  return done ? PMPI_Grequest_complete(pending->handle) : MPI_SUCCESS;
}

// Called by MPI_Wait/MPI_Waitall with the states of our requests.
int wait_pending(int count, void** states, double, MPI_Status*) {
  for (int i = 0; i < count; ++i) {
    auto* pending = static_cast<Pending*>(states[i]);
    if (!pending->posted->active()) continue;
    if (const int rc = pending->posted->wait(); rc != MPI_SUCCESS) return rc;
    if (const int rc = PMPI_Grequest_complete(pending->handle); rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

MPIX_Grequest_class pending_class() {
  static const MPIX_Grequest_class kind = [] {
    MPIX_Grequest_class k{};
    check_mpi(PMPIX_Grequest_class_create(query_pending, free_pending, cancel_pending, poll_pending, wait_pending, &k),
              "MPIX_Grequest_class_create");
    return k;
  }();
  return kind;
}

}  // namespace

MPI_Request generalized_request(std::unique_ptr<PostedRequests> posted) {
  auto pending = std::make_unique<Pending>();
  pending->posted = std::move(posted);
  Pending* state = pending.get();
  check_mpi(PMPIX_Grequest_class_allocate(pending_class(), state, &state->handle), "MPIX_Grequest_class_allocate");
  pending.release();  // owned by the generalized request now (free_pending)
  if (state->posted->empty()) {
    state->posted->wait();  // nothing to wait for: only marks it complete
    check_mpi(PMPI_Grequest_complete(state->handle), "MPI_Grequest_complete");
  }
  return state->handle;
}

}  // namespace distopo::detail
