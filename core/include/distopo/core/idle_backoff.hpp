#pragma once
// Waiting for other ranks without taking their core. A rank that polls
// while another rank works (the hub of a skewed graph sorting its lists, a
// rank that gives every edge bucketing them) takes half of a core it shares
// with that rank: spinning and sched_yield alike, since the scheduler shares
// a core fairly between runnable processes. Ranks share cores on
// oversubscribed and shared nodes. So a wait that has found nothing for a
// while sleeps between polls, each time for a 32nd of the time waited, up to
// a longest nap: a wake-up comes at most that much late. Both bounds are the
// caller's: where messages may still be on their way to the rank, naps delay
// them (and a nap lasts 50 us or more, the kernel's timer slack), so the
// sparse exchange polls for 4 ms and naps at most 100 us; a barrier after
// local work polls for a quarter of a millisecond and naps up to half of one.
// docs/design/sparse-exchange.md.
#include <mpi.h>

#include <chrono>

namespace distopo {

class IdleBackoff {
 public:
  static constexpr int kWaitedPerNap = 32;

  // Polls without sleeping for `poll_for` first; naps at most `longest_nap`.
  IdleBackoff(std::chrono::microseconds poll_for, std::chrono::microseconds longest_nap)
      : poll_for_(poll_for), longest_nap_(longest_nap) {}

  // After a poll that found nothing: sleeps once the wait is long.
  void idle();
  // After a poll that found something: the next wait starts afresh.
  void progress() { waiting_ = false; }

 private:
  std::chrono::microseconds poll_for_;
  std::chrono::microseconds longest_nap_;
  bool waiting_ = false;
  std::chrono::steady_clock::time_point since_;
};

// Completes `request` (PMPI_Test, so that interposed completion calls are
// not entered), polling with an IdleBackoff: for what completes once other
// ranks finish their local work (a barrier), nothing being in flight.
void wait_politely(MPI_Request& request);

}  // namespace distopo
