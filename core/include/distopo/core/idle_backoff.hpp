#pragma once
// Waiting for other ranks without taking their core. A rank that polls
// while another rank works (the hub of a skewed graph sorting its lists, a
// rank that gives every edge bucketing them) takes half of a core it shares
// with that rank: spinning and sched_yield alike, since the scheduler shares
// a core fairly between runnable processes. Ranks share cores on
// oversubscribed and shared nodes. So a wait that has found nothing for a
// millisecond sleeps between polls, each time for a sixteenth of the time
// waited (at most a millisecond): a wake-up comes at most that much late,
// and short waits (the common case of small calls) never sleep.
// docs/design/sparse-exchange.md.
#include <mpi.h>

#include <chrono>

namespace distopo {

class IdleBackoff {
 public:
  static constexpr std::chrono::microseconds kSpinFor{1000};
  static constexpr std::chrono::microseconds kLongestNap{1000};
  static constexpr int kWaitedPerNap = 16;

  // After a poll that found nothing: sleeps once the wait is long.
  void idle();
  // After a poll that found something: the next wait starts afresh.
  void progress() { waiting_ = false; }

 private:
  bool waiting_ = false;
  std::chrono::steady_clock::time_point since_;
};

// Completes `request` (PMPI_Test, so that interposed completion calls are
// not entered), polling with an IdleBackoff.
void wait_politely(MPI_Request& request);

}  // namespace distopo
