/* What one thread of an MPI_THREAD_MULTIPLE program does on its own
 * communicator, through the C API only: create, query and free distributed
 * graphs (adjacent and general) and a Cartesian ring, and run blocking,
 * non-blocking (completed by MPI_Wait and by an MPI_Test loop) and persistent
 * neighborhood collectives on them, checking every received block. Shared by
 * the threaded test (tests/capi/threads.c) and the benchmark
 * (bench/neighbor/threads_bench.cpp), which runs it with and without libdistopo_mpi.so.
 * Valid C and C++. */
#ifndef DISTOPO_THREADED_WORKLOAD_H
#define DISTOPO_THREADED_WORKLOAD_H

#include <mpi.h>
#include <stdio.h>

/* The calls of a step, by kind, for a program that times them: it defines
 * WORKLOAD_PHASE(phase, call) before including this header (threads_bench
 * does). By default a call is only made. */
enum workload_phase {
  WORKLOAD_CREATE_ADJACENT,
  WORKLOAD_CREATE_GENERAL,
  WORKLOAD_CREATE_CART,
  WORKLOAD_FIRST_COLLECTIVE, /* MPI_Neighbor_alltoall, the first on each new communicator */
  WORKLOAD_NONBLOCKING_WAIT, /* MPI_Ineighbor_allgather and its MPI_Wait */
  WORKLOAD_NONBLOCKING_TEST, /* MPI_Ineighbor_alltoall and its MPI_Test loop */
  WORKLOAD_PERSISTENT_INIT,
  WORKLOAD_PERSISTENT_RUN, /* MPI_Start and MPI_Wait, three times */
  WORKLOAD_REQUEST_FREE,
  WORKLOAD_COMM_FREE,
  WORKLOAD_PHASES
};
static inline const char* workload_phase_name(enum workload_phase phase) {
  static const char* const names[WORKLOAD_PHASES] = {
      "create_adjacent",  "create_general",  "create_cart",    "first_collective", "nonblocking_wait",
      "nonblocking_test", "persistent_init", "persistent_run", "request_free",     "comm_free"};
  return names[phase];
}
#ifndef WORKLOAD_PHASE
#define WORKLOAD_PHASE(phase, call) (call)
#endif

/* The block a rank sends to every out-neighbor in a given step. */
static inline int workload_value(int sender, int step) { return sender * 1000 + step % 1000; }

/* Counts received blocks that differ from the sources' values. */
static inline int workload_check(const int* received, const int* sources, int degree, int step, const char* what,
                                 int rank) {
  int wrong = 0;
  for (int i = 0; i < degree; ++i) {
    if (sources[i] == MPI_PROC_NULL) continue;
    if (received[i] != workload_value(sources[i], step)) {
      if (wrong == 0) {
        fprintf(stderr, "rank %d: %s: slot %d from rank %d holds %d, expected %d\n", rank, what, i, sources[i],
                received[i], workload_value(sources[i], step));
      }
      ++wrong;
    }
  }
  return wrong;
}

/* The collectives of one step on `topo`, whose in-neighbors are
 * sources[0..degree) in slot order (degree <= 4). Returns failures. */
static inline int workload_collectives(MPI_Comm topo, const int* sources, int degree, int step, int rank) {
  int failures = 0;
  int send[4], received[4];
  for (int i = 0; i < 4; ++i) send[i] = workload_value(rank, step);

  /* Blocking. */
  for (int i = 0; i < 4; ++i) received[i] = -1;
  if (WORKLOAD_PHASE(WORKLOAD_FIRST_COLLECTIVE, MPI_Neighbor_alltoall(send, 1, MPI_INT, received, 1, MPI_INT, topo)) !=
      MPI_SUCCESS) {
    ++failures;
  }
  failures += workload_check(received, sources, degree, step, "MPI_Neighbor_alltoall", rank);

  /* Non-blocking, completed by MPI_Wait. */
  MPI_Request request = MPI_REQUEST_NULL;
  for (int i = 0; i < 4; ++i) received[i] = -1;
  if (WORKLOAD_PHASE(WORKLOAD_NONBLOCKING_WAIT,
                     MPI_Ineighbor_allgather(send, 1, MPI_INT, received, 1, MPI_INT, topo, &request)) != MPI_SUCCESS ||
      WORKLOAD_PHASE(WORKLOAD_NONBLOCKING_WAIT, MPI_Wait(&request, MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
    ++failures;
  }
  failures += workload_check(received, sources, degree, step, "MPI_Ineighbor_allgather", rank);

  /* Non-blocking, completed by an MPI_Test loop. */
  for (int i = 0; i < 4; ++i) received[i] = -1;
  if (WORKLOAD_PHASE(WORKLOAD_NONBLOCKING_TEST,
                     MPI_Ineighbor_alltoall(send, 1, MPI_INT, received, 1, MPI_INT, topo, &request)) != MPI_SUCCESS) {
    ++failures;
  } else {
    int done = 0;
    while (!done) {
      if (WORKLOAD_PHASE(WORKLOAD_NONBLOCKING_TEST, MPI_Test(&request, &done, MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
        ++failures;
        break;
      }
    }
  }
  failures += workload_check(received, sources, degree, step, "MPI_Ineighbor_alltoall", rank);

  /* Persistent, started three times with new contents. */
  if (WORKLOAD_PHASE(WORKLOAD_PERSISTENT_INIT, MPI_Neighbor_alltoall_init(send, 1, MPI_INT, received, 1, MPI_INT, topo,
                                                                          MPI_INFO_NULL, &request)) != MPI_SUCCESS) {
    return failures + 1;
  }
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 4; ++i) {
      send[i] = workload_value(rank, step + round);
      received[i] = -1;
    }
    if (WORKLOAD_PHASE(WORKLOAD_PERSISTENT_RUN, MPI_Start(&request)) != MPI_SUCCESS ||
        WORKLOAD_PHASE(WORKLOAD_PERSISTENT_RUN, MPI_Wait(&request, MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
      ++failures;
    }
    failures += workload_check(received, sources, degree, step + round, "MPI_Neighbor_alltoall_init", rank);
  }
  if (WORKLOAD_PHASE(WORKLOAD_REQUEST_FREE, MPI_Request_free(&request)) != MPI_SUCCESS) ++failures;
  return failures;
}

/* One step: an adjacent and a general distributed graph and a Cartesian ring
 * over `comm`, each queried, used and freed. Returns failures. */
static inline int workload_step(MPI_Comm comm, int step) {
  int rank = 0, size = 0, failures = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;

  /* Adjacent: both ring neighbors, weighted. */
  {
    const int ring[2] = {left, right};
    const int weights[2] = {1, 2};
    MPI_Comm graph = MPI_COMM_NULL;
    if (WORKLOAD_PHASE(WORKLOAD_CREATE_ADJACENT, MPI_Dist_graph_create_adjacent(comm, 2, ring, weights, 2, ring,
                                                                                weights, MPI_INFO_NULL, 0, &graph)) !=
        MPI_SUCCESS) {
      return failures + 1;
    }
    int indegree = -1, outdegree = -1, weighted = -1;
    MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted);
    if (indegree != 2 || outdegree != 2 || !weighted) ++failures;
    int sources[2], source_weights[2], destinations[2], destination_weights[2];
    MPI_Dist_graph_neighbors(graph, 2, sources, source_weights, 2, destinations, destination_weights);
    if (!((sources[0] == left && sources[1] == right) || (sources[0] == right && sources[1] == left))) ++failures;
    failures += workload_collectives(graph, sources, 2, step, rank);
    WORKLOAD_PHASE(WORKLOAD_COMM_FREE, MPI_Comm_free(&graph));
  }

  /* General: this rank names its edges to the next two ranks. */
  {
    const int node = rank, degree = 2;
    const int destinations[2] = {right, (rank + 2) % size};
    MPI_Comm graph = MPI_COMM_NULL;
    if (WORKLOAD_PHASE(WORKLOAD_CREATE_GENERAL, MPI_Dist_graph_create(comm, 1, &node, &degree, destinations,
                                                                      MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph)) !=
        MPI_SUCCESS) {
      return failures + 1;
    }
    int indegree = -1, outdegree = -1, weighted = -1;
    MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted);
    if (indegree != 2 || outdegree != 2 || weighted) ++failures;
    int sources[2], destinations_seen[2];
    MPI_Dist_graph_neighbors(graph, 2, sources, MPI_UNWEIGHTED, 2, destinations_seen, MPI_UNWEIGHTED);
    const int before2 = (rank + 2 * size - 2) % size;
    if (!((sources[0] == left && sources[1] == before2) || (sources[0] == before2 && sources[1] == left))) {
      ++failures;
    }
    failures += workload_collectives(graph, sources, 2, step, rank);
    WORKLOAD_PHASE(WORKLOAD_COMM_FREE, MPI_Comm_free(&graph));
  }

  /* Cartesian: a periodic ring. */
  {
    const int periodic = 1;
    MPI_Comm grid = MPI_COMM_NULL;
    if (WORKLOAD_PHASE(WORKLOAD_CREATE_CART, MPI_Cart_create(comm, 1, &size, &periodic, 0, &grid)) != MPI_SUCCESS) {
      return failures + 1;
    }
    int coords = -1, below = -1, above = -1, topology = MPI_UNDEFINED;
    MPI_Topo_test(grid, &topology);
    MPI_Cart_coords(grid, rank, 1, &coords);
    MPI_Cart_shift(grid, 0, 1, &below, &above);
    if (topology != MPI_CART || coords != rank || below != left || above != right) ++failures;
    const int sources[2] = {below, above};
    failures += workload_collectives(grid, sources, 2, step, rank);
    WORKLOAD_PHASE(WORKLOAD_COMM_FREE, MPI_Comm_free(&grid));
  }
  return failures;
}

#endif
