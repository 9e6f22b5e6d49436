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

/* A library already loaded by `sonames`, without loading anything new. */
static void *loaded_symbol(const char *symbol, const char *const *sonames, size_t count) {
  void *found = dlsym(RTLD_NEXT, symbol);
  /* Loaded in a local scope: the library is there (its caller is), find it
   * by its soname. */
  for (size_t i = 0; found == NULL && i < count; ++i) {
    void *library = dlopen(sonames[i], RTLD_NOW | RTLD_NOLOAD);
    if (library != NULL) found = dlsym(library, symbol);
  }
  return found;
}

/* Nonzero while this thread is inside MPI_Request_free. */
static __thread int freeing_requests = 0;

unsigned ucp_worker_progress(void *worker) {
  /* Several threads may resolve at once; they find the same function. */
  static progress_fn real_progress = NULL;
  progress_fn progress = __atomic_load_n(&real_progress, __ATOMIC_ACQUIRE);
  if (progress == NULL) {
    static const char *const sonames[] = {"libucp.so.0", "libucp.so"};
    progress = (progress_fn)loaded_symbol("ucp_worker_progress", sonames, sizeof sonames / sizeof sonames[0]);
    if (progress == NULL) {
      fputs("libdistopo_ucx_yield.so: ucp_worker_progress was called but UCX's libucp is not loaded\n", stderr);
      abort();
    }
    __atomic_store_n(&real_progress, progress, __ATOMIC_RELEASE);
  }
  const unsigned events = progress(worker);
  if (events == 0 && freeing_requests == 0) sched_yield();
  return events;
}

/* MPI_Request_free and PMPI_Request_free (MPICH's own MPI_ name calls its
 * implementation directly, and a library above MPI calls the PMPI_ one). */
typedef int (*request_free_fn)(void *request);

static int free_request(const char *name, request_free_fn *cached, void *request) {
  request_free_fn next = __atomic_load_n(cached, __ATOMIC_ACQUIRE);
  if (next == NULL) {
    static const char *const sonames[] = {"libmpich.so.12", "libmpi.so.12"};
    next = (request_free_fn)loaded_symbol(name, sonames, sizeof sonames / sizeof sonames[0]);
    if (next == NULL) {
      fprintf(stderr, "libdistopo_ucx_yield.so: %s was called but MPICH's library is not loaded\n", name);
      abort();
    }
    __atomic_store_n(cached, next, __ATOMIC_RELEASE);
  }
  ++freeing_requests;
  const int code = next(request);
  --freeing_requests;
  return code;
}

int MPI_Request_free(void *request) {
  static request_free_fn next = NULL;
  return free_request("MPI_Request_free", &next, request);
}

int PMPI_Request_free(void *request) {
  static request_free_fn next = NULL;
  return free_request("PMPI_Request_free", &next, request);
}
