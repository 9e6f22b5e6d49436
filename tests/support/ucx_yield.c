/* Preloaded into MPI processes when ranks outnumber cores (LD_PRELOAD).
 *
 * MPICH's ch4:ucx device busy-polls ucp_worker_progress() and never yields the
 * CPU (MPIR_CVAR_POLLS_BEFORE_YIELD has no effect on ch4:ucx), so with 8 or 16
 * ranks on 2 cores a rank waiting for a message burns its whole time slice
 * while the rank that would send it waits for a core. This wrapper yields
 * whenever a progress call found nothing to do, which lets the rank with work
 * run. Measured here: MPI_Barrier at 64 ranks on 2 cores, 0.6 s -> 0.0075 s. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stddef.h>

typedef unsigned (*progress_fn)(void *worker);

unsigned ucp_worker_progress(void *worker) {
  static progress_fn real_progress = NULL;
  if (real_progress == NULL) real_progress = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
  const unsigned events = real_progress(worker);
  if (events == 0) sched_yield();
  return events;
}
