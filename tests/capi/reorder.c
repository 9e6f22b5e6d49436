/* MPI_Dist_graph_create(_adjacent) with reorder = 1 on emulated nodes of 2
 * ranks (info key distopo_ranks_per_node): a ring numbered by a permutation,
 * so the identity puts most ring edges between nodes. The result must hold
 * graph node v's lists on its rank v, cross no more weight than the identity
 * (less, from 8 ranks on), and pair MPI_Neighbor_allgather slots with their
 * sources; both below the gather limit and, with distopo_reorder_gather_limit
 * = 1, through the distributed multilevel mapping. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "capi_check.h"

enum { kRanksPerNode = 2 };

static int size_;
static int* node_at_;  /* graph node at ring position c */
static int* place_of_; /* ring position of graph node v */

/* A fixed shuffle (same on every rank). */
static void make_ring(int size) {
  size_ = size;
  node_at_ = malloc(sizeof(int) * (size_t)size);
  place_of_ = malloc(sizeof(int) * (size_t)size);
  for (int c = 0; c < size; ++c) node_at_[c] = c;
  unsigned state = 12345u;
  for (int c = size - 1; c > 0; --c) {
    state = state * 1103515245u + 12345u;
    const int j = (int)((state >> 8) % (unsigned)(c + 1));
    const int t = node_at_[c];
    node_at_[c] = node_at_[j];
    node_at_[j] = t;
  }
  for (int c = 0; c < size; ++c) place_of_[node_at_[c]] = c;
}

/* Graph node v's neighbors: previous and next on the ring (one when P = 2,
 * none when P = 1); weight 3 to the next, 1 to the previous. */
static int ring_neighbors(int v, int* ranks, int* weights) {
  if (size_ == 1) return 0;
  const int c = place_of_[v];
  ranks[0] = node_at_[(c + 1) % size_];
  weights[0] = 3;
  if (size_ == 2) return 1;
  ranks[1] = node_at_[(c + size_ - 1) % size_];
  weights[1] = 1;
  return 2;
}

static int contains(const int* ranks, int n, int r) {
  for (int i = 0; i < n; ++i) {
    if (ranks[i] == r) return 1;
  }
  return 0;
}

static long crossing(const int* node_of) {
  long cut = 0;
  int ranks[2];
  int weights[2];
  for (int v = 0; v < size_; ++v) {
    const int n = ring_neighbors(v, ranks, weights);
    for (int i = 0; i < n; ++i) {
      if (node_of[v] != node_of[ranks[i]]) cut += weights[i];
    }
  }
  return cut;
}

static void check_result(MPI_Comm graph, const char* how) {
  int v = -1;
  int world = -1;
  MPI_Comm_rank(graph, &v);
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  int expected[2];
  int expected_weights[2];
  const int degree = ring_neighbors(v, expected, expected_weights);

  int indegree = -1, outdegree = -1, weighted = -1;
  MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted);
  CHECK(indegree == degree && outdegree == degree && weighted, "%s: degrees %d %d weighted %d, expected %d", how,
        indegree, outdegree, weighted, degree);
  int sources[2], source_weights[2], destinations[2], destination_weights[2];
  MPI_Dist_graph_neighbors(graph, 2, sources, source_weights, 2, destinations, destination_weights);
  for (int i = 0; i < degree && i < indegree; ++i) {
    CHECK(contains(expected, degree, sources[i]), "%s: graph node %d has source %d", how, v, sources[i]);
    CHECK(contains(expected, degree, destinations[i]), "%s: graph node %d has destination %d", how, v, destinations[i]);
  }

  int received[2] = {-1, -1};
  MPI_Neighbor_allgather(&v, 1, MPI_INT, received, 1, MPI_INT, graph);
  for (int i = 0; i < indegree && i < 2; ++i) {
    CHECK_EQ_INT(received[i], sources[i]);
  }

  int* node_of = malloc(sizeof(int) * (size_t)size_);
  int* identity = malloc(sizeof(int) * (size_t)size_);
  const int my_node = world / kRanksPerNode;
  MPI_Allgather(&my_node, 1, MPI_INT, node_of, 1, MPI_INT, graph);
  for (int u = 0; u < size_; ++u) identity[u] = u / kRanksPerNode;
  const long mapped = crossing(node_of);
  const long before = crossing(identity);
  CHECK(mapped <= before, "%s: crossing weight %ld above the identity's %ld", how, mapped, before);
  if (size_ >= 8) CHECK(mapped < before, "%s: crossing weight %ld not below the identity's %ld", how, mapped, before);
  free(node_of);
  free(identity);
}

/* Both constructors with `info`, then the same mapping from both. */
static void run(int rank, int size, MPI_Info info, const char* path) {
  char how[64];
  int ranks[2], weights[2];
  const int degree = ring_neighbors(rank, ranks, weights);
  /* The edge from the next graph node arrives with its weight to its previous. */
  const int in_weights[2] = {size == 2 ? 3 : 1, 3};
  MPI_Comm adjacent = MPI_COMM_NULL;
  expect_error_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, degree, ranks, in_weights, degree, ranks, weights,
                                                    info, 1, &adjacent),
                     MPI_SUCCESS, "MPI_Dist_graph_create_adjacent");
  snprintf(how, sizeof how, "adjacent, %s", path);
  check_result(adjacent, how);

  /* Scattered: rank r names the out-edges of graph node r + 1. */
  const int source = (rank + 1) % size;
  int out[2], out_weights[2];
  const int out_degree = ring_neighbors(source, out, out_weights);
  MPI_Comm scattered = MPI_COMM_NULL;
  expect_error_class(
      MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &out_degree, out, out_weights, info, 1, &scattered),
      MPI_SUCCESS, "MPI_Dist_graph_create");
  snprintf(how, sizeof how, "scattered, %s", path);
  check_result(scattered, how);

  /* Same input, same mapping. */
  int first = -1, second = -1;
  MPI_Comm_rank(adjacent, &first);
  MPI_Comm_rank(scattered, &second);
  CHECK_EQ_INT(first, second);
  MPI_Comm_free(&adjacent);
  MPI_Comm_free(&scattered);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  make_ring(size);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "distopo_ranks_per_node", "2");
  run(rank, size, info, "gathered");
  /* A gather limit of one edge: the distributed multilevel mapping. */
  MPI_Info_set(info, "distopo_reorder_gather_limit", "1");
  run(rank, size, info, "distributed");
  MPI_Info_free(&info);
  free(node_at_);
  free(place_of_);
  return capi_finish();
}
