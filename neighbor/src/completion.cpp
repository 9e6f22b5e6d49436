#include "completion.hpp"

#include <array>
#include <string>

#include "world_errors_returned.hpp"

namespace distopo::detail {

// Completion goes through PMPI_ names: the C API library interposes MPI_Wait*,
// MPI_Test* and MPI_Start* (for neighborhood collectives' requests).

PostedRequests::~PostedRequests() {
  if (how_ != Posting::persistent) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  finish();
  for (std::size_t i = 0; i < posted_; ++i) {
    if (requests_[i] != MPI_REQUEST_NULL) PMPI_Request_free(&requests_[i]);
  }
  for (MPI_Datatype& type : types_) PMPI_Type_free(&type);
}

void PostedRequests::prepare(std::size_t receives, std::size_t sends, Posting how, const Origin& origin) {
  requests_.assign(receives + sends, MPI_REQUEST_NULL);
  peers_.resize(receives + sends);
  receives_ = receives;
  posted_ = 0;
  next_ = 0;
  error_ = MPI_SUCCESS;
  how_ = how;
  state_ = State::inactive;
  origin_ = origin;
}

void PostedRequests::posted() noexcept {
  if (how_ == Posting::immediate) state_ = posted_ == 0 ? State::complete : State::in_flight;
}

int PostedRequests::start() noexcept {
  const int rc = PMPI_Startall(static_cast<int>(posted_), requests_.data());
  if (rc != MPI_SUCCESS) return rc;
  next_ = 0;
  error_ = MPI_SUCCESS;
  state_ = posted_ == 0 ? State::complete : State::in_flight;
  return rc;
}

// A request whose completion call fails has completed (with that error): MPICH
// reports a request's own error only once it is complete, and frees or
// inactivates it like a successful one.
bool PostedRequests::poll() noexcept {
  if (state_ != State::in_flight) return true;
  const WorldErrorsReturned returned;
  while (next_ < posted_) {
    int flag = 0;
    const int rc = PMPI_Test(&requests_[next_], &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      fail(rc, next_);
    } else if (!flag) {
      return false;
    }
    ++next_;
  }
  state_ = State::complete;
  return true;
}

void PostedRequests::finish() noexcept {
  if (state_ != State::in_flight) return;
  const WorldErrorsReturned returned;
  for (; next_ < posted_; ++next_) {
    if (const int rc = PMPI_Wait(&requests_[next_], MPI_STATUS_IGNORE); rc != MPI_SUCCESS) fail(rc, next_);
  }
  state_ = State::complete;
}

int PostedRequests::take() noexcept {
  state_ = State::inactive;
  return error_;
}

void PostedRequests::fail(int code, std::size_t index) noexcept {
  if (error_ != MPI_SUCCESS) return;
  error_ = code;
  failed_ = index;
}

Error PostedRequests::error() const {
  int error_class = MPI_ERR_OTHER;
  MPI_Error_class(error_, &error_class);
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int length = 0;
  MPI_Error_string(error_, text.data(), &length);
  const bool receive = failed_ < receives_;
  return Error(error_class, rank_prefix(origin_.caller, origin_.rank) + (receive ? "the receive from" : "the send to") +
                                " rank " + std::to_string(peers_[failed_]) +
                                " failed: " + std::string(text.data(), static_cast<std::size_t>(length)));
}

}  // namespace distopo::detail
