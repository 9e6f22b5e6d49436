// The requests the non-blocking and persistent forms hand out. A
// non-blocking collective is an MPICH generalized request
// (MPIX_Grequest_class) whose poll function progresses the collective and
// whose wait function completes it, so MPI_Wait/Test/Waitall/Testall/
// Waitany/... complete and progress it like any other request; behind it is
// a distopo::NonblockingRequest, through which a caller (the C API) may
// complete it instead. A persistent one is a distopo::PersistentRequest over
// persistent point-to-point requests (and a relayed part restarted with
// them).

#include <atomic>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "distopo/core/error.hpp"
#include "distopo/neighbor/nonblocking_request.hpp"
#include "distopo/neighbor/persistent_request.hpp"
#include "engine.hpp"

namespace distopo {
namespace detail {
namespace {

// The outstanding non-blocking collectives by handle (NonblockingRequest::find);
// an entry lives as long as its generalized request.
std::mutex registry_mutex;
std::unordered_map<MPI_Request, NonblockingRequest*> registry;
std::atomic<std::size_t> registered{0};

// States of finished requests, reused by this thread's next ones: the
// arrays of their posted requests keep their room, so that a non-blocking
// call allocates no more than a blocking one.
constexpr std::size_t kKeptStates = 8;
thread_local std::vector<std::unique_ptr<NonblockingRequest::State>> kept_states;

}  // namespace

std::unique_ptr<NonblockingRequest::State> nonblocking_state() {
  if (kept_states.empty()) return std::make_unique<NonblockingRequest::State>();
  std::unique_ptr<NonblockingRequest::State> state = std::move(kept_states.back());
  kept_states.pop_back();
  return state;
}

}  // namespace detail

#ifndef DISTOPO_SMPI_BUILD
// MPICH's callbacks, and the making of a request.
struct NonblockingRequest::Callbacks {
  // A collective's status is empty; a failure is returned (MPICH raises it,
  // with its class, on MPI_COMM_WORLD's handler).
  static int query(void* state, MPI_Status* status) {
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    return static_cast<NonblockingRequest*>(state)->state_->exchange.result();
  }

  static int release(void* state) {
    auto* request = static_cast<NonblockingRequest*>(state);
    {
      const std::lock_guard lock(detail::registry_mutex);
      detail::registry.erase(request->handle_);
      detail::registered.fetch_sub(1, std::memory_order_relaxed);
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
      request->state_->exchange.finish();
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

  static MPI_Request make(std::unique_ptr<State> state) {
    std::unique_ptr<NonblockingRequest> owned(new NonblockingRequest(std::move(state)));
    check_mpi(PMPIX_Grequest_class_allocate(kind(), owned.get(), &owned->handle_), "MPIX_Grequest_class_allocate");
    NonblockingRequest* request = owned.release();  // owned by the generalized request now (release)
    {
      const std::lock_guard lock(detail::registry_mutex);
      detail::registry.emplace(request->handle_, request);
      detail::registered.fetch_add(1, std::memory_order_relaxed);
    }
    // Nothing to wait for. (Not a poll: testing requests just posted finds
    // them in flight, and each empty progress may give the CPU away.)
    const detail::Exchange& e = request->state_->exchange;
    if (e.count_posted() == 0 && (!e.relayed || e.relayed->complete())) request->mark_complete();
    return request->handle_;
  }
};

MPI_Request detail::nonblocking_request(std::unique_ptr<NonblockingRequest::State> state) {
  return NonblockingRequest::Callbacks::make(std::move(state));
}
#else
// SMPI has no MPICH generalized requests: the collective completes at once.
MPI_Request detail::nonblocking_request(std::unique_ptr<NonblockingRequest::State> state) {
  state->exchange.finish();
  if (state->exchange.take() != MPI_SUCCESS) throw state->exchange.error();
  return MPI_REQUEST_NULL;
}
#endif

NonblockingRequest::NonblockingRequest(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}

NonblockingRequest::~NonblockingRequest() {
  if (!state_ || detail::kept_states.size() >= detail::kKeptStates) return;
  state_->exchange.relayed.reset();  // a relayed part belongs to its plan
  detail::kept_states.push_back(std::move(state_));
}

NonblockingRequest* NonblockingRequest::find(MPI_Request request) noexcept {
  if (detail::registered.load(std::memory_order_relaxed) == 0 || request == MPI_REQUEST_NULL) return nullptr;
  const std::lock_guard lock(detail::registry_mutex);
  const auto it = detail::registry.find(request);
  return it == detail::registry.end() ? nullptr : it->second;
}

MPI_Comm NonblockingRequest::comm() const noexcept { return state_->exchange.origin().comm; }

bool NonblockingRequest::done() noexcept {
  if (!state_->exchange.poll()) return false;
  mark_complete();
  return true;
}

bool NonblockingRequest::get_status() {
  if (!done()) return false;
  if (state_->exchange.result() != MPI_SUCCESS) throw state_->exchange.error();
  return true;
}

void NonblockingRequest::wait(MPI_Request* request) {
  state_->exchange.finish();
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
  if (state_->exchange.take() != MPI_SUCCESS) failure = state_->exchange.error();
  mark_complete();
  PMPI_Request_free(request);  // MPICH calls Callbacks::release: `this` is gone
  *request = MPI_REQUEST_NULL;
  if (failure) throw *failure;
}

// --- persistent requests ---------------------------------------------------

PersistentRequest::PersistentRequest() noexcept = default;
PersistentRequest::PersistentRequest(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
PersistentRequest::PersistentRequest(PersistentRequest&&) noexcept = default;
PersistentRequest& PersistentRequest::operator=(PersistentRequest&&) noexcept = default;
PersistentRequest::~PersistentRequest() = default;

void PersistentRequest::start() {
  if (!state_) throw Error(MPI_ERR_REQUEST, "PersistentRequest::start: empty request");
  if (state_->exchange.active()) {
    const detail::Origin& origin = state_->exchange.origin();
    throw Error(MPI_ERR_REQUEST, rank_prefix(origin.caller, origin.rank) + "the persistent request is already active");
  }
  check_mpi(state_->exchange.start(), "MPI_Startall");
}

void PersistentRequest::wait() {
  if (!active()) return;  // like MPI_Wait on an inactive request
  state_->exchange.finish();
  take_result();
}

bool PersistentRequest::test() {
  if (!active()) return true;
  if (!state_->exchange.poll()) return false;
  take_result();
  return true;
}

bool PersistentRequest::done() { return !active() || state_->exchange.poll(); }

bool PersistentRequest::get_status() {
  if (!done()) return false;
  if (active() && state_->exchange.result() != MPI_SUCCESS) throw state_->exchange.error();
  return true;
}

bool PersistentRequest::active() const noexcept { return state_ && state_->exchange.active(); }

MPI_Comm PersistentRequest::comm() const noexcept { return state_ ? state_->exchange.origin().comm : MPI_COMM_NULL; }

NeighborAlgorithmChoice PersistentRequest::algorithm() const {
  if (!state_) throw Error(MPI_ERR_REQUEST, "PersistentRequest::algorithm: empty request");
  return detail::choice_of(state_->selection);
}

void PersistentRequest::take_result() {
  if (state_->exchange.take() != MPI_SUCCESS) throw state_->exchange.error();
}

}  // namespace distopo
