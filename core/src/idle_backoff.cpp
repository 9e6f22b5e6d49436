#include "distopo/core/idle_backoff.hpp"

#include <algorithm>
#include <thread>

#include "distopo/core/error.hpp"

namespace distopo {

#ifdef DISTOPO_SMPI_BUILD
// SimGrid's ranks each have a simulated core: a real nap would only slow the run.
void IdleBackoff::idle() {}
#else
void IdleBackoff::idle() {
  const auto now = std::chrono::steady_clock::now();
  if (!waiting_) {
    waiting_ = true;
    since_ = now;
    return;
  }
  const auto waited = now - since_;
  if (waited < poll_for_) return;
  std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(waited / kWaitedPerNap, longest_nap_));
}
#endif

void wait_politely(MPI_Request& request) {
  IdleBackoff backoff(std::chrono::microseconds(250), std::chrono::microseconds(500));
  for (int done = 0;;) {
    check_mpi(PMPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done != 0) return;
    backoff.idle();
  }
}

}  // namespace distopo
