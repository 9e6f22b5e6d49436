/* Preloaded into MPI processes when ranks outnumber cores (LD_PRELOAD).
 *
 * MPICH's ch4:ucx device busy-polls ucp_worker_progress() and never yields the
 * CPU (MPIR_CVAR_POLLS_BEFORE_YIELD has no effect on ch4:ucx), so with 8 or 16
 * ranks on 2 cores a rank waiting for a message burns its whole time slice
 * while the rank that would send it waits for a core. This wrapper yields
 * whenever a progress call found nothing to do, which lets the rank with work
 * run. Measured here: MPI_Barrier at 64 ranks on 2 cores, 0.6 s -> 0.0075 s.
 *
 * UCX's function is looked up at its first call, not at load: a program may
 * load MPI (and libucp) later with dlopen, as python does for mpi4py. Such a
 * library is loaded with RTLD_LOCAL, out of RTLD_NEXT's reach, while its own
 * calls still bind to this preloaded wrapper; so the wrapper then asks the
 * already loaded libucp by name (RTLD_NOLOAD). Nothing is resolved when the
 * helper is loaded, so a program that never loads UCX is untouched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned (*progress_fn)(void *worker);

static progress_fn resolve_progress(void) {
  void *found = dlsym(RTLD_NEXT, "ucp_worker_progress");
  if (found == NULL) {
    /* Loaded in a local scope: the library is there (its caller is), find it
     * by its soname without loading anything new. */
    static const char *const sonames[] = {"libucp.so.0", "libucp.so"};
    for (size_t i = 0; found == NULL && i < sizeof sonames / sizeof sonames[0]; ++i) {
      void *library = dlopen(sonames[i], RTLD_NOW | RTLD_NOLOAD);
      if (library != NULL) found = dlsym(library, "ucp_worker_progress");
    }
  }
  return (progress_fn)found;
}

unsigned ucp_worker_progress(void *worker) {
  /* Several threads may resolve at once; they find the same function. */
  static progress_fn real_progress = NULL;
  progress_fn progress = __atomic_load_n(&real_progress, __ATOMIC_ACQUIRE);
  if (progress == NULL) {
    progress = resolve_progress();
    if (progress == NULL) {
      fputs("libdistopo_ucx_yield.so: ucp_worker_progress was called but UCX's libucp is not loaded\n", stderr);
      abort();
    }
    __atomic_store_n(&real_progress, progress, __ATOMIC_RELEASE);
  }
  const unsigned events = progress(worker);
  if (events == 0) sched_yield();
  return events;
}
