/* MPI_THREAD_MULTIPLE: several threads per rank, each on its own
 * communicator, create, query and free distributed graphs and Cartesian grids
 * and run blocking, non-blocking and persistent neighborhood collectives on
 * them at the same time (threaded_workload.h), every result checked. The
 * threads' communicators are duplicates of MPI_COMM_WORLD made after a
 * topology over MPI_COMM_WORLD ran a collective, as a program that sets up
 * its main grid before starting threads does: their collectives must not
 * have to agree with each other on anything. */
#include <pthread.h>
#include <stdlib.h>

#include "capi_check.h"
#include "threaded_workload.h"

enum { kThreads = 4, kSteps = 6 };

struct Worker {
  MPI_Comm comm;
  int failures;
};

static void* run_worker(void* argument) {
  struct Worker* worker = (struct Worker*)argument;
  for (int step = 0; step < kSteps; ++step) worker->failures += workload_step(worker->comm, step);
  return NULL;
}

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread provided %d, expected MPI_THREAD_MULTIPLE", provided);
  if (provided != MPI_THREAD_MULTIPLE) return capi_finish();

  /* The main grid, used before and after the threads. */
  MPI_Comm ring = capi_ring();
  int send[2], received[2] = {-1, -1};
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  send[0] = ring_value(rank, 0, 1);
  send[1] = ring_value(rank, 1, 1);
  CHECK_EQ_INT(MPI_Neighbor_alltoall(send, 1, MPI_INT, received, 1, MPI_INT, ring), MPI_SUCCESS);
  CHECK_RING(received, 1, "main grid before the threads");

  /* Communicators are made in the same order on every rank, before the threads. */
  struct Worker workers[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    MPI_Comm_dup(MPI_COMM_WORLD, &workers[t].comm);
    workers[t].failures = 0;
  }
  pthread_t threads[kThreads];
  for (int t = 0; t < kThreads; ++t)
    CHECK(pthread_create(&threads[t], NULL, run_worker, &workers[t]) == 0, "pthread_create");
  for (int t = 0; t < kThreads; ++t) {
    pthread_join(threads[t], NULL);
    CHECK(workers[t].failures == 0, "thread %d: %d failures", t, workers[t].failures);
    MPI_Comm_free(&workers[t].comm);
  }
  /* Collectives completed at once by several threads leave MPI_COMM_WORLD's
   * handler as the program set it (the default). */
  MPI_Errhandler world_handler = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_handler);
  CHECK(world_handler == MPI_ERRORS_ARE_FATAL,
        "MPI_COMM_WORLD's error handler changed during the threads' collectives");
  if (world_handler != MPI_ERRHANDLER_NULL) MPI_Errhandler_free(&world_handler);
  send[0] = ring_value(rank, 0, 2);
  send[1] = ring_value(rank, 1, 2);
  CHECK_EQ_INT(MPI_Neighbor_alltoall(send, 1, MPI_INT, received, 1, MPI_INT, ring), MPI_SUCCESS);
  CHECK_RING(received, 2, "main grid after the threads");
  MPI_Comm_free(&ring);
  return capi_finish();
}
