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
  if (posted_->active()) throw Error(MPI_ERR_REQUEST, "PersistentRequest::start: request is already active");
  check_mpi(posted_->start(), "MPI_Startall");
}

void PersistentRequest::wait() {
  if (!posted_ || !posted_->active()) return;  // like MPI_Wait on an inactive request
  check_mpi(posted_->wait(), "MPI_Waitall");
}

bool PersistentRequest::test() {
  if (!posted_ || !posted_->active()) return true;
  bool done = false;
  check_mpi(posted_->test(done), "MPI_Testall");
  return done;
}

bool PersistentRequest::active() const noexcept { return posted_ && posted_->active(); }

}  // namespace distopo
