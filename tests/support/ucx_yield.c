/* Preloaded into MPI processes when ranks outnumber cores (LD_PRELOAD).
 *
 * MPICH's ch4:ucx device busy-polls ucp_worker_progress() and never yields the
 * CPU (MPIR_CVAR_POLLS_BEFORE_YIELD has no effect on ch4:ucx), so with 8 or 16
 * ranks on 2 cores a rank waiting for a message burns its whole time slice
 * while the rank that would send it waits for a core. This wrapper yields
 * whenever a progress call found nothing to do, which lets the rank with work
 * run. Measured here: MPI_Barrier at 64 ranks on 2 cores, 0.6 s -> 0.0075 s.
 *
 * Except inside MPI_Request_free, which waits for nothing but polls once
 * (MPICH's progress poke): yielding there cost a time slice per freed request,
 * which no machine with a core per rank pays, and an implementation that
 * frees more requests than another (a persistent collective made of
 * point-to-point requests) read as slower for it
 * (docs/guide/configuration.md).
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

/* `symbol` from a library already loaded (`sonames`), without loading
 * anything new; kept in *cache at the first call. Several threads may
 * resolve at once; they find the same function. Aborts, naming `library`,
 * when it is not loaded. */
static void *resolved(void **cache, const char *symbol, const char *const *sonames, size_t count, const char *library) {
  void *found = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (found != NULL) return found;
  found = dlsym(RTLD_NEXT, symbol);
  /* Loaded in a local scope: the library is there (its caller is), find it
   * by its soname. */
  for (size_t i = 0; found == NULL && i < count; ++i) {
    void *handle = dlopen(sonames[i], RTLD_NOW | RTLD_NOLOAD);
    if (handle != NULL) found = dlsym(handle, symbol);
  }
  if (found == NULL) {
    fprintf(stderr, "libdistopo_ucx_yield.so: %s was called but %s is not loaded\n", symbol, library);
    abort();
  }
  __atomic_store_n(cache, found, __ATOMIC_RELEASE);
  return found;
}

/* Nonzero while this thread is inside MPI_Request_free. */
static __thread int freeing_requests = 0;

unsigned ucp_worker_progress(void *worker) {
  static void *real_progress = NULL;
  static const char *const sonames[] = {"libucp.so.0", "libucp.so"};
  const progress_fn progress = (progress_fn)resolved(&real_progress, "ucp_worker_progress", sonames,
                                                     sizeof sonames / sizeof sonames[0], "UCX's libucp");
  const unsigned events = progress(worker);
  if (events == 0 && freeing_requests == 0) sched_yield();
  return events;
}

/* MPI_Request_free and PMPI_Request_free (MPICH's own MPI_ name calls its
 * implementation directly, and a library above MPI calls the PMPI_ one). */
typedef int (*request_free_fn)(void *request);

static int free_request(const char *name, void **cache, void *request) {
  static const char *const sonames[] = {"libmpich.so.12", "libmpi.so.12"};
  const request_free_fn next =
      (request_free_fn)resolved(cache, name, sonames, sizeof sonames / sizeof sonames[0], "MPICH's library");
  ++freeing_requests;
  const int code = next(request);
  --freeing_requests;
  return code;
}

int MPI_Request_free(void *request) {
  static void *next = NULL;
  return free_request("MPI_Request_free", &next, request);
}

int PMPI_Request_free(void *request) {
  static void *next = NULL;
  return free_request("PMPI_Request_free", &next, request);
}
