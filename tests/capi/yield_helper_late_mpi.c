/* The yield helper (libdistopo_ucx_yield.so) is preloaded, and MPI is loaded
 * only later with dlopen(RTLD_LOCAL), as python loads mpi4py's extension: the
 * helper must find UCX's progress function at its first call, in a library
 * that was not there when the helper was loaded. Not linked to MPI; the ranks
 * exchange a message and meet in a barrier, which makes MPICH poll UCX. The
 * program's own MPI_Request_free is the helper's (which does not yield
 * inside it): it must find MPICH's in that library too. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*init_fn)(int*, char***);
typedef int (*finalize_fn)(void);
typedef int (*comm_query_fn)(int, int*);
typedef int (*barrier_fn)(int);
typedef int (*allreduce_fn)(const void*, void*, int, int, int, int);
typedef int (*recv_init_fn)(void*, int, int, int, int, int, int*);
typedef int (*request_free_fn)(int*);

static void* need(void* library, const char* name) {
  void* symbol = dlsym(library, name);
  if (symbol == NULL) {
    fprintf(stderr, "yield_helper_late_mpi: %s not found: %s\n", name, dlerror());
    exit(1);
  }
  return symbol;
}

int main(int argc, char** argv) {
  if (dlsym(RTLD_DEFAULT, "ucp_worker_progress") == NULL) {
    fprintf(stderr, "yield_helper_late_mpi: the yield helper is not preloaded\n");
    return 1;
  }
  if (dlsym(RTLD_DEFAULT, "MPI_Init") != NULL) {
    fprintf(stderr, "yield_helper_late_mpi: MPI is already loaded; the test needs it loaded later\n");
    return 1;
  }
  /* The MPI library the project links (CMake defines it). */
  const char* library = DISTOPO_MPI_LIBRARY;
  void* mpi = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (mpi == NULL) {
    fprintf(stderr, "yield_helper_late_mpi: %s\n", dlerror());
    return 1;
  }
  /* MPICH's mpi.h values: MPI_COMM_WORLD 0x44000000, MPI_INT 0x4c000405,
   * MPI_SUM 0x58000003 (the program has no mpi.h, like a python program). */
  const int comm_world = 0x44000000, mpi_int = 0x4c000405, mpi_sum = 0x58000003;
  ((init_fn)need(mpi, "MPI_Init"))(&argc, &argv);
  int rank = 0, size = 0;
  ((comm_query_fn)need(mpi, "MPI_Comm_rank"))(comm_world, &rank);
  ((comm_query_fn)need(mpi, "MPI_Comm_size"))(comm_world, &size);
  int one = 1, total = 0;
  ((allreduce_fn)need(mpi, "MPI_Allreduce"))(&one, &total, 1, mpi_int, mpi_sum, comm_world);
  /* MPI_PROC_NULL -1, MPI_BYTE 0x4c00010d, MPI_REQUEST_NULL 0x2c000000. */
  int request = 0;
  ((recv_init_fn)need(mpi, "MPI_Recv_init"))(NULL, 0, 0x4c00010d, -1, 0, comm_world, &request);
  const int freed = ((request_free_fn)need(RTLD_DEFAULT, "MPI_Request_free"))(&request);
  if (freed != 0 || request != 0x2c000000) {
    fprintf(stderr, "yield_helper_late_mpi: rank %d: MPI_Request_free through the helper gave %d, request %#x\n", rank,
            freed, (unsigned)request);
    return 1;
  }
  ((barrier_fn)need(mpi, "MPI_Barrier"))(comm_world);
  ((finalize_fn)need(mpi, "MPI_Finalize"))();
  if (total != size) {
    fprintf(stderr, "yield_helper_late_mpi: rank %d: allreduce gave %d, expected %d\n", rank, total, size);
    return 1;
  }
  if (rank == 0) printf("yield_helper_late_mpi: %d ranks passed\n", size);
  return 0;
}
