#pragma once
// Kokkos is distgraph's alone (the key sort). Whoever initializes Kokkos owns
// it: the distributed-graph constructors start it when nobody has, and the
// library finalizes what it started when its runtime stops (MPI_Finalize or
// the last MPI_Session_finalize). A Kokkos the application started is the
// application's to finalize, also while the library still runs: the key sort
// then does without it (sort_keys), and the library never starts Kokkos again
// after somebody else finalized it. Programs that never build a distributed
// graph never start Kokkos.
#include <mutex>

namespace distopo::detail {

// Idempotent. Requires MPI to be initialized.
void ensure_kokkos();

// The right to dispatch Kokkos work from this thread, if no other thread of
// the process holds it: Kokkos' host backends take one dispatching thread at
// a time, and with MPI_THREAD_MULTIPLE several threads may build graphs at
// once. Without it, the caller does the same work without Kokkos.
class KokkosTurn {
 public:
  KokkosTurn();
  KokkosTurn(const KokkosTurn&) = delete;
  KokkosTurn& operator=(const KokkosTurn&) = delete;
  ~KokkosTurn();
  explicit operator bool() const { return held_; }

 private:
  bool held_;
};

}  // namespace distopo::detail
