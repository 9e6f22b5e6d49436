#include "completion.hpp"

namespace distopo::detail {

// Completion goes through PMPI_ names: the C API library interposes MPI_Wait*,
// MPI_Test* and MPI_Start* (for persistent neighborhood collectives).

PostedRequests::~PostedRequests() {
  if (how_ != Posting::persistent) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (active_) PMPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  for (MPI_Request& request : requests_) {
    if (request != MPI_REQUEST_NULL) PMPI_Request_free(&request);
  }
}

std::vector<MPI_Request>& PostedRequests::prepare(std::size_t count, Posting how) {
  requests_.assign(count, MPI_REQUEST_NULL);
  how_ = how;
  active_ = false;
  return requests_;
}

int PostedRequests::start() noexcept {
  const int rc = PMPI_Startall(static_cast<int>(requests_.size()), requests_.data());
  if (rc == MPI_SUCCESS) active_ = true;
  return rc;
}

int PostedRequests::wait() noexcept {
  const int rc = PMPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  if (rc == MPI_SUCCESS) active_ = false;
  return rc;
}

int PostedRequests::test(bool& done) noexcept {
  int flag = 0;
  const int rc = PMPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &flag, MPI_STATUSES_IGNORE);
  done = rc == MPI_SUCCESS && flag != 0;
  if (done) active_ = false;
  return rc;
}

}  // namespace distopo::detail
