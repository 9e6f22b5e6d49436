/* The standard's examples through the plain C API: the MPI_Dims_create table
 * (Example 7.1), the 4-process graph with repeated neighbors (Example 7.5),
 * the 4-process dist graph given three ways (Example 7.3, at exactly 4
 * processes; other process counts run the parts that fit), the
 * shuffle-exchange graph (Example 7.6, 8 processes), and the Poisson set-up
 * of the Cartesian section: dims_create + cart_create + cart_shift + a halo
 * exchange driving a few Jacobi sweeps whose result is checked. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"

static int rank, size;

static void dims_table(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int a[2] = {0, 0};
  MPI_Dims_create(6, 2, a);
  CHECK(a[0] == 3 && a[1] == 2, "6 in 2-D: %d x %d", a[0], a[1]);
  int b[2] = {0, 0};
  MPI_Dims_create(7, 2, b);
  CHECK(b[0] == 7 && b[1] == 1, "7 in 2-D: %d x %d", b[0], b[1]);
  int c[3] = {0, 3, 0};
  MPI_Dims_create(6, 3, c);
  CHECK(c[0] == 2 && c[1] == 3 && c[2] == 1, "6 in 3-D with (0,3,0): %d x %d x %d", c[0], c[1], c[2]);
  int d[3] = {0, 3, 0};
  expect_error_class(MPI_Dims_create(7, 3, d), MPI_ERR_DIMS, "7 in 3-D with (0,3,0) is erroneous");
  CHECK(d[0] == 0 && d[1] == 3 && d[2] == 0, "erroneous call changed dims");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Example 7.5: neighbors listed several times, returned exactly as given. */
static void graph_with_repeated_neighbors(void) {
  if (size < 4) return;
  const int index[4] = {3, 5, 6, 9};
  const int edges[9] = {1, 1, 3, 0, 0, 3, 0, 2, 2};
  MPI_Comm graph;
  MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &graph);
  if (rank >= 4) {
    CHECK(graph == MPI_COMM_NULL, "rank %d outside the graph got a communicator", rank);
    return;
  }
  int count = 0;
  MPI_Graph_neighbors_count(graph, rank, &count);
  const int first = rank == 0 ? 0 : index[rank - 1];
  CHECK_EQ_INT(count, index[rank] - first);
  int neighbors[3] = {-1, -1, -1};
  MPI_Graph_neighbors(graph, rank, 3, neighbors);
  for (int i = 0; i < count; ++i) CHECK_EQ_INT(neighbors[i], edges[first + i]);
  int nnodes, nedges;
  MPI_Graphdims_get(graph, &nnodes, &nedges);
  CHECK(nnodes == 4 && nedges == 9, "graphdims %d %d", nnodes, nedges);
  MPI_Comm_free(&graph);
}

/* Example 7.3 given by each process, by process 0 alone, and adjacent. */
static void dist_graph_three_ways(void) {
  if (size != 4) return;
  static const int out[4][2] = {{1, 3}, {0, -1}, {3, -1}, {0, 2}};
  static const int outdegree[4] = {2, 1, 1, 2};
  static const int in[4][2] = {{1, 3}, {0, -1}, {3, -1}, {0, 2}};
  const int ones[6] = {1, 1, 1, 1, 1, 1};
  MPI_Comm graphs[3];
  MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &outdegree[rank], out[rank], ones, MPI_INFO_NULL, 0, &graphs[0]);
  const int all_sources[4] = {0, 1, 2, 3}, all_degrees[4] = {2, 1, 1, 2}, all_destinations[6] = {1, 3, 0, 3, 0, 2};
  MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? 4 : 0, all_sources, all_degrees, all_destinations, MPI_UNWEIGHTED,
                        MPI_INFO_NULL, 0, &graphs[1]);
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, outdegree[rank], in[rank], ones, outdegree[rank], out[rank], ones,
                                 MPI_INFO_NULL, 0, &graphs[2]);
  for (int g = 0; g < 3; ++g) {
    int indeg, outdeg, weighted;
    MPI_Dist_graph_neighbors_count(graphs[g], &indeg, &outdeg, &weighted);
    CHECK(indeg == outdegree[rank] && outdeg == outdegree[rank], "way %d: degrees %d %d", g, indeg, outdeg);
    CHECK_EQ_INT(weighted != 0, g != 1);
    int sources[2], destinations[2], sw[2], dw[2];
    MPI_Dist_graph_neighbors(graphs[g], 2, sources, sw, 2, destinations, dw);
    for (int i = 0; i < indeg; ++i) CHECK(sources[i] == in[rank][i], "way %d: source %d = %d", g, i, sources[i]);
    for (int i = 0; i < outdeg; ++i) {
      CHECK(destinations[i] == out[rank][i], "way %d: destination %d = %d", g, i, destinations[i]);
    }
    int kind;
    MPI_Topo_test(graphs[g], &kind);
    CHECK_EQ_INT(kind, MPI_DIST_GRAPH);
    MPI_Comm_free(&graphs[g]);
  }
}

/* Example 7.6 for n = 3: exchange, shuffle, unshuffle. */
static void shuffle_exchange(void) {
  if (size < 8) return;
  int index[8], edges[24];
  for (int node = 0; node < 8; ++node) {
    index[node] = 3 * (node + 1);
    edges[3 * node] = node ^ 1;
    edges[3 * node + 1] = ((node << 1) | (node >> 2)) & 7;
    edges[3 * node + 2] = ((node >> 1) | ((node & 1) << 2)) & 7;
  }
  MPI_Comm graph;
  MPI_Graph_create(MPI_COMM_WORLD, 8, index, edges, 1, &graph);
  if (graph == MPI_COMM_NULL) return;
  int me, neighbors[3];
  MPI_Comm_rank(graph, &me);
  MPI_Graph_neighbors(graph, me, 3, neighbors);
  /* The standard's code: send to the shuffle neighbor, receive from the unshuffle one. */
  int sent = me, received = -1;
  MPI_Sendrecv(&sent, 1, MPI_INT, neighbors[1], 0, &received, 1, MPI_INT, neighbors[2], 0, graph, MPI_STATUS_IGNORE);
  CHECK_EQ_INT(received, neighbors[2]);
  CHECK_EQ_INT(neighbors[0], me ^ 1);
  MPI_Comm_free(&graph);
}

/* Poisson set-up: u'' = 0 on a periodic 2-D grid of ranks, one value per
 * rank; Jacobi sweeps of a constant field keep it constant, and a halo
 * exchange through MPI_Cart_shift + MPI_Sendrecv must bring every neighbor's
 * value. */
static void poisson_setup(void) {
  int dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
  int me, coords[2];
  MPI_Comm_rank(grid, &me);
  MPI_Cart_coords(grid, me, 2, coords);
  double u = 1.0 + me; /* distinct values first: check the halo */
  for (int d = 0; d < 2; ++d) {
    int below, above;
    MPI_Cart_shift(grid, d, 1, &below, &above);
    double from_below = -1, from_above = -1;
    MPI_Sendrecv(&u, 1, MPI_DOUBLE, above, 0, &from_below, 1, MPI_DOUBLE, below, 0, grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u, 1, MPI_DOUBLE, below, 1, &from_above, 1, MPI_DOUBLE, above, 1, grid, MPI_STATUS_IGNORE);
    CHECK(from_below == 1.0 + below && from_above == 1.0 + above, "halo in dim %d", d);
    int neighbor_coords[2];
    MPI_Cart_coords(grid, above, 2, neighbor_coords);
    CHECK_EQ_INT(neighbor_coords[d], (coords[d] + 1) % dims[d]);
  }
  u = 3.0; /* constant field: a Jacobi sweep must keep it */
  for (int sweep = 0; sweep < 5; ++sweep) {
    double halo[4], send[4] = {u, u, u, u};
    MPI_Neighbor_alltoall(send, 1, MPI_DOUBLE, halo, 1, MPI_DOUBLE, grid);
    u = (halo[0] + halo[1] + halo[2] + halo[3]) / 4.0;
  }
  CHECK(u == 3.0, "Jacobi on a constant field gave %g", u);
  MPI_Comm_free(&grid);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  dims_table();
  graph_with_repeated_neighbors();
  dist_graph_three_ways();
  shuffle_exchange();
  poisson_setup();
  return capi_finish();
}
