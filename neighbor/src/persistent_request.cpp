#include "distopo/neighbor/persistent_request.hpp"

#include "completion.hpp"
#include "distopo/core/error.hpp"

namespace distopo {

PersistentRequest::PersistentRequest() noexcept = default;
PersistentRequest::PersistentRequest(std::unique_ptr<detail::PostedRequests> posted) noexcept
    : posted_(std::move(posted)) {}
PersistentRequest::PersistentRequest(PersistentRequest&&) noexcept = default;
PersistentRequest& PersistentRequest::operator=(PersistentRequest&&) noexcept = default;
PersistentRequest::~PersistentRequest() = default;

void PersistentRequest::start() {
  if (!posted_) throw Error(MPI_ERR_REQUEST, "PersistentRequest::start: empty request");
  if (posted_->active()) {
    const detail::Origin& origin = posted_->origin();
    throw Error(MPI_ERR_REQUEST, rank_prefix(origin.caller, origin.rank) + "the persistent request is already active");
  }
  check_mpi(posted_->start(), "MPI_Startall");
}

void PersistentRequest::wait() {
  if (!active()) return;  // like MPI_Wait on an inactive request
  posted_->finish();
  take_result();
}

bool PersistentRequest::test() {
  if (!active()) return true;
  if (!posted_->poll()) return false;
  take_result();
  return true;
}

bool PersistentRequest::done() { return !active() || posted_->poll(); }

bool PersistentRequest::get_status() {
  if (!done()) return false;
  if (active() && posted_->result() != MPI_SUCCESS) throw posted_->error();
  return true;
}

bool PersistentRequest::active() const noexcept { return posted_ && posted_->active(); }

MPI_Comm PersistentRequest::comm() const noexcept { return posted_ ? posted_->origin().comm : MPI_COMM_NULL; }

void PersistentRequest::take_result() {
  if (posted_->take() != MPI_SUCCESS) throw posted_->error();
}

}  // namespace distopo
