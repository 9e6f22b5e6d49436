#include "collective_requests.hpp"

#include "persistent_requests.hpp"

namespace distopo::capi {

std::optional<CollectiveRequest> CollectiveRequest::find(MPI_Request handle) noexcept {
  CollectiveRequest request;
  request.nonblocking_ = NonblockingRequest::find(handle);
  if (request.nonblocking_ == nullptr) request.persistent_ = find_persistent(handle);
  if (request.nonblocking_ == nullptr && request.persistent_ == nullptr) return std::nullopt;
  return request;
}

bool CollectiveRequest::any(int count, const MPI_Request requests[]) noexcept {
  for (int i = 0; i < count; ++i) {
    if (find(requests[i])) return true;
  }
  return false;
}

MPI_Comm CollectiveRequest::comm() const noexcept {
  return nonblocking_ != nullptr ? nonblocking_->comm() : persistent_->comm();
}

bool CollectiveRequest::active() const noexcept { return nonblocking_ != nullptr || persistent_->active(); }

bool CollectiveRequest::done() noexcept { return nonblocking_ != nullptr ? nonblocking_->done() : persistent_->done(); }

bool CollectiveRequest::get_status() {
  return nonblocking_ != nullptr ? nonblocking_->get_status() : persistent_->get_status();
}

void CollectiveRequest::complete(MPI_Request* handle) {
  if (nonblocking_ != nullptr) {
    NonblockingRequest* request = nonblocking_;
    nonblocking_ = nullptr;
    request->wait(handle);
  } else {
    persistent_->wait();
  }
}

}  // namespace distopo::capi
