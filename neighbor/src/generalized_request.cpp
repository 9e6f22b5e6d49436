#include "generalized_request.hpp"

#include <atomic>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "distopo/core/error.hpp"
#include "distopo/neighbor/nonblocking_request.hpp"

namespace distopo {
namespace detail {
namespace {

// The outstanding non-blocking collectives by handle (NonblockingRequest::find);
// an entry lives as long as its generalized request.
std::mutex registry_mutex;
std::unordered_map<MPI_Request, NonblockingRequest*> registry;
std::atomic<std::size_t> registered{0};

}  // namespace

// MPICH's callbacks, and the making of a request.
struct GeneralizedRequest {
  // A collective's status is empty; a failure is returned (MPICH reports it
  // as MPI_ERR_OTHER on MPI_COMM_WORLD's handler).
  static int query(void* state, MPI_Status* status) {
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    return static_cast<NonblockingRequest*>(state)->posted_->result();
  }

  static int release(void* state) {
    auto* request = static_cast<NonblockingRequest*>(state);
    {
      const std::lock_guard lock(registry_mutex);
      registry.erase(request->handle_);
      registered.fetch_sub(1, std::memory_order_relaxed);
    }
    delete request;
    return MPI_SUCCESS;
  }

  static int cancel(void*, int) { return MPI_SUCCESS; }  // collectives cannot be cancelled

  // Called by MPICH's MPI_Test* and MPI_Wait* (not MPI_Request_get_status).
  static int poll(void* state, MPI_Status*) {
    (void)static_cast<NonblockingRequest*>(state)->done();
    return MPI_SUCCESS;
  }

  // Called by MPI_Wait/MPI_Waitall with the states of our requests.
  static int wait(int count, void** states, double, MPI_Status*) {
    for (int i = 0; i < count; ++i) {
      auto* request = static_cast<NonblockingRequest*>(states[i]);
      request->posted_->finish();
      request->mark_complete();
    }
    return MPI_SUCCESS;
  }

  static MPIX_Grequest_class kind() {
    static const MPIX_Grequest_class k = [] {
      MPIX_Grequest_class created{};
      check_mpi(PMPIX_Grequest_class_create(query, release, cancel, poll, wait, &created),
                "MPIX_Grequest_class_create");
      return created;
    }();
    return k;
  }

  static MPI_Request make(std::unique_ptr<PostedRequests> posted) {
    std::unique_ptr<NonblockingRequest> owned(new NonblockingRequest(std::move(posted)));
    check_mpi(PMPIX_Grequest_class_allocate(kind(), owned.get(), &owned->handle_), "MPIX_Grequest_class_allocate");
    NonblockingRequest* request = owned.release();  // owned by the generalized request now (release)
    {
      const std::lock_guard lock(registry_mutex);
      registry.emplace(request->handle_, request);
      registered.fetch_add(1, std::memory_order_relaxed);
    }
    if (request->posted_->count_posted() == 0) request->mark_complete();  // nothing to wait for
    return request->handle_;
  }
};

MPI_Request generalized_request(std::unique_ptr<PostedRequests> posted) {
  return GeneralizedRequest::make(std::move(posted));
}

}  // namespace detail

NonblockingRequest::NonblockingRequest(std::unique_ptr<detail::PostedRequests> posted) noexcept
    : posted_(std::move(posted)) {}

NonblockingRequest::~NonblockingRequest() = default;

NonblockingRequest* NonblockingRequest::find(MPI_Request request) noexcept {
  if (detail::registered.load(std::memory_order_relaxed) == 0 || request == MPI_REQUEST_NULL) return nullptr;
  const std::lock_guard lock(detail::registry_mutex);
  const auto it = detail::registry.find(request);
  return it == detail::registry.end() ? nullptr : it->second;
}

MPI_Comm NonblockingRequest::comm() const noexcept { return posted_->origin().comm; }

bool NonblockingRequest::done() noexcept {
  if (!posted_->poll()) return false;
  mark_complete();
  return true;
}

bool NonblockingRequest::get_status() {
  if (!done()) return false;
  if (posted_->result() != MPI_SUCCESS) throw posted_->error();
  return true;
}

void NonblockingRequest::wait(MPI_Request* request) {
  posted_->finish();
  release(request);
}

bool NonblockingRequest::test(MPI_Request* request) {
  if (!done()) return false;
  release(request);
  return true;
}

void NonblockingRequest::mark_complete() noexcept {
  if (marked_) return;
  marked_ = true;
  PMPI_Grequest_complete(handle_);
}

void NonblockingRequest::release(MPI_Request* request) {
  std::optional<Error> failure;
  if (posted_->take() != MPI_SUCCESS) failure = posted_->error();
  mark_complete();
  PMPI_Request_free(request);  // MPICH calls GeneralizedRequest::release: `this` is gone
  *request = MPI_REQUEST_NULL;
  if (failure) throw *failure;
}

}  // namespace distopo
