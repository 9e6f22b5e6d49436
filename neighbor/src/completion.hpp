#pragma once
// The point-to-point requests one neighborhood collective posted, in posting
// order, and their completion: the one place where every form starts, tests
// and waits. A blocking call waits at once; a non-blocking call's request is
// completed through it (by MPICH's generalized-request callbacks, or by the C
// API); a persistent request starts it again and again.
//
// Errors. Each request is completed on its own (MPI_Test / MPI_Wait), never by
// MPI_Testall / MPI_Waitall, whose MPICH version stops at the first failed
// request and leaves the rest unprocessed; so every request is completed and
// the first failure is kept, to be reported on the user's communicator.
// MPICH raises a completion's failure on MPI_COMM_WORLD's handler, which
// returns errors meanwhile (world_errors_returned.hpp). A posting that fails
// midway keeps that failure too; the requests posted before it are completed
// like the others. Results are codes, not exceptions, because MPICH's
// callbacks must not throw; error() turns a failure into a distopo::Error.
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "distopo/core/error.hpp"

namespace distopo::detail {

enum class Posting { immediate, persistent };  // MPI_Isend/Irecv or MPI_Send_init/Recv_init

// Who posted: the user's communicator (where errors are reported), the
// operation and the calling rank (for messages).
struct Origin {
  MPI_Comm comm = MPI_COMM_NULL;
  const char* caller = "";
  int rank = 0;
};

class PostedRequests {
 public:
  PostedRequests() = default;
  PostedRequests(const PostedRequests&) = delete;
  PostedRequests& operator=(const PostedRequests&) = delete;
  // Persistent requests are freed here, after waiting for them if they are in
  // flight (nothing once MPI is finalized).
  ~PostedRequests();

  // A new posting: `receives` receive requests, then `sends` send requests.
  void prepare(std::size_t receives, std::size_t sends, Posting how, const Origin& origin);
  // Posts the next request towards or from `peer` with `post(MPI_Request*)`,
  // an MPI_Irecv-like call returning its code. False if it failed: the
  // failure is kept and nothing more may be posted.
  template <class Post>
  bool add(int peer, Post&& post) {
    peers_[posted_] = peer;
    const int rc = post(&requests_[posted_]);
    if (rc != MPI_SUCCESS) {
      fail(rc, posted_);
      return false;
    }
    ++posted_;
    return true;
  }
  // A datatype the persistent requests use, freed with them.
  void keep(MPI_Datatype type) { types_.push_back(type); }
  // The posting is over: immediate requests are in flight now, persistent
  // ones wait for start().
  void posted() noexcept;

  [[nodiscard]] bool persistent() const noexcept { return how_ == Posting::persistent; }
  [[nodiscard]] const Origin& origin() const noexcept { return origin_; }
  [[nodiscard]] std::size_t count_posted() const noexcept { return posted_; }
  // Requests were posted (or started) and their completion was not yet taken
  // (MPI's "active").
  [[nodiscard]] bool active() const noexcept { return state_ != State::inactive; }

  // MPI_Startall of the persistent requests (its failure is MPICH's to raise).
  int start() noexcept;
  // Tests the requests still in flight, in order: true once none is (the
  // collective is complete, or inactive). Does not take the result.
  bool poll() noexcept;
  // Waits until none is in flight.
  void finish() noexcept;
  // The result of a complete collective, which becomes inactive: MPI_SUCCESS
  // or the code of its first failure (which error() describes until the next
  // start or posting).
  int take() noexcept;
  // The result so far, without taking it.
  [[nodiscard]] int result() const noexcept { return error_; }
  // The first failure as "<caller>: rank <r>: the receive from rank <s>
  // failed: <MPI's message>", with the failure's error class.
  [[nodiscard]] Error error() const;

 private:
  enum class State { inactive, in_flight, complete };
  void fail(int code, std::size_t index) noexcept;

  std::vector<MPI_Request> requests_;
  std::vector<int> peers_;           // the rank each request receives from or sends to
  std::vector<MPI_Datatype> types_;  // kept for persistent messages of several blocks
  std::size_t receives_ = 0;         // requests [0, receives_) are receives
  std::size_t posted_ = 0;           // requests posted (all of them, unless posting failed)
  std::size_t next_ = 0;             // requests before next_ are complete
  int error_ = MPI_SUCCESS;          // the first failure since the posting or start
  std::size_t failed_ = 0;           // its request
  Posting how_ = Posting::immediate;
  State state_ = State::inactive;
  Origin origin_;
};

}  // namespace distopo::detail
