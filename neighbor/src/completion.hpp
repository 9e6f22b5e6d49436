#pragma once
// The point-to-point requests one neighborhood collective posted, in posting
// order, and their completion: the one place where every form tests and
// waits. A blocking call waits at once; a non-blocking call's generalized
// request polls and waits through it; a persistent request starts it again
// and again. Results are MPI codes, not exceptions, because MPICH calls the
// non-blocking form's callbacks, which must not throw.
#include <mpi.h>

#include <cstddef>
#include <vector>

namespace distopo::detail {

enum class Posting { immediate, persistent };  // MPI_Isend/Irecv or MPI_Send_init/Recv_init

class PostedRequests {
 public:
  PostedRequests() = default;
  PostedRequests(const PostedRequests&) = delete;
  PostedRequests& operator=(const PostedRequests&) = delete;
  // Persistent requests are freed here, after waiting for them if active
  // (nothing once MPI is finalized).
  ~PostedRequests();

  // `count` null requests for the posting driver to fill.
  std::vector<MPI_Request>& prepare(std::size_t count, Posting how);
  // The driver has posted them: immediate requests are in flight now,
  // persistent ones wait for start().
  void posted() noexcept { active_ = how_ == Posting::immediate; }

  [[nodiscard]] bool active() const noexcept { return active_; }
  [[nodiscard]] bool persistent() const noexcept { return how_ == Posting::persistent; }
  [[nodiscard]] bool empty() const noexcept { return requests_.empty(); }
  int start() noexcept;           // MPI_Startall of persistent requests
  int wait() noexcept;            // MPI_Waitall; inactive afterwards
  int test(bool& done) noexcept;  // MPI_Testall; inactive once done

 private:
  std::vector<MPI_Request> requests_;
  Posting how_ = Posting::immediate;
  bool active_ = false;
};

}  // namespace distopo::detail
