#pragma once
// Every rank enters the timed call at the same simulated instant: the ranks
// agree on a start time `guard` seconds after the latest of them reached this
// point (an allreduce on MPI_COMM_WORLD, which also separates consecutive
// sparse exchanges there) and wait for it in simulated time. A real machine
// cannot do this; there a barrier's exit skew adds to the time. The time of
// the call is then the time from that instant to each rank's return, max
// over ranks.
#include <mpi.h>
#include <simgrid/actor.h>

#include <stdexcept>

namespace bench {

// Returns the agreed instant (MPI_Wtime); `guard` must be far longer than
// the allreduce takes at this P.
inline double start_together(double guard) {
  double start = MPI_Wtime();
  MPI_Allreduce(MPI_IN_PLACE, &start, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  start += guard;
  const double idle = start - MPI_Wtime();
  if (idle <= 0) throw std::runtime_error("the start guard is too short for this P");
  // Not as computation: where it is charged, SMPI measures the CPU time of
  // this thread between MPI calls, and other ranks run in it meanwhile.
  smpi_bench_end();
  sg_actor_sleep_for(idle);
  smpi_bench_begin();
  return start;
}

// The end of a timed call that started at `start` (start_together): returns
// the time this rank took, then waits in simulated time until `start +
// guard` before the caller's next MPI call. Where receive overheads are
// charged as messages arrive (smpi/overheads-timeline), a rank that is done
// must not send the messages of the next step (the allreduce that takes the
// maximum) to ranks still inside the timed call: their processing would be
// charged to the call. Throws if this rank took longer than `guard`.
inline double finish_together(double start, double guard) {
  const double elapsed = MPI_Wtime() - start;
  const double idle = start + guard - MPI_Wtime();
  if (idle <= 0) throw std::runtime_error("the end guard is too short for this call");
  smpi_bench_end();
  sg_actor_sleep_for(idle);
  smpi_bench_begin();
  return elapsed;
}

}  // namespace bench
