#pragma once
// distopo::PersistentRequest: a persistent neighborhood collective (MPI-4
// "init once, start many times"), returned by the *_init forms.
#include <memory>

namespace distopo {

namespace detail {
class PostedRequests;
}

// Inactive after init; start() posts the prepared sends and receives,
// wait()/test() complete them. The buffers and the arguments given at init
// are used by every start. Starts must happen in the same order on all ranks
// (as MPI-4 requires). Movable; destroying an active one waits for it.
//
// Not an MPI_Request: MPICH's generalized requests cannot be persistent, and
// its own MPI_Neighbor_*_init cannot carry distopo's pairing rule. The C API
// maps the MPI_Request it hands out to one of these.
class PersistentRequest {
 public:
  PersistentRequest() noexcept;
  explicit PersistentRequest(std::unique_ptr<detail::PostedRequests> posted) noexcept;
  PersistentRequest(PersistentRequest&&) noexcept;
  PersistentRequest& operator=(PersistentRequest&&) noexcept;
  ~PersistentRequest();

  void start();
  void wait();
  [[nodiscard]] bool test();
  [[nodiscard]] bool active() const noexcept;
  [[nodiscard]] explicit operator bool() const noexcept { return posted_ != nullptr; }

 private:
  std::unique_ptr<detail::PostedRequests> posted_;
};

}  // namespace distopo
