// Graph topologies at any process count: the standard's examples, queries
// compared with MPICH's answers on the same communicator, edge cases, errors
// given on one rank only, and the node-aware reorder with emulated nodes.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "distopo/core/comm.hpp"
#include "distopo/core/topology.hpp"
#include "distopo/graph.hpp"
#include "mpi_testing.hpp"

namespace {

using distopo::testing::error_class_of;
using distopo::testing::world_rank;
using distopo::testing::world_size;

// Graph as adjacency lists -> (index, edges).
struct Graph {
  std::vector<int> index;
  std::vector<int> edges;
  explicit Graph(const std::vector<std::vector<int>>& lists) {
    for (const auto& list : lists) {
      edges.insert(edges.end(), list.begin(), list.end());
      index.push_back(static_cast<int>(edges.size()));
    }
  }
};

// Every query compared with MPICH on the same communicator.
void expect_matches_mpich(MPI_Comm comm, const Graph& graph) {
  ASSERT_NE(comm, MPI_COMM_NULL);
  int topo = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &topo);
  ASSERT_EQ(topo, MPI_GRAPH);
  EXPECT_EQ(distopo::topo_test(comm), distopo::TopologyKind::graph);
  int nnodes = -1;
  int nedges = -1;
  PMPI_Graphdims_get(comm, &nnodes, &nedges);
  EXPECT_EQ(distopo::graphdims_get(comm), (distopo::GraphDims{nnodes, nedges}));
  std::vector<int> index(static_cast<std::size_t>(nnodes));
  std::vector<int> edges(static_cast<std::size_t>(nedges));
  PMPI_Graph_get(comm, nnodes, nedges, index.data(), edges.data());
  EXPECT_EQ(distopo::graph_get(comm).index, index);
  EXPECT_EQ(distopo::graph_get(comm).edges, edges);
  EXPECT_EQ(index, graph.index);
  EXPECT_EQ(edges, graph.edges);
  for (int r = 0; r < nnodes; ++r) {
    int count = -1;
    PMPI_Graph_neighbors_count(comm, r, &count);
    EXPECT_EQ(distopo::graph_neighbors_count(comm, r), count);
    std::vector<int> neighbors(static_cast<std::size_t>(count));
    PMPI_Graph_neighbors(comm, r, count, neighbors.data());
    const auto got = distopo::graph_neighbors(comm, r);
    EXPECT_EQ(std::vector<int>(got.begin(), got.end()), neighbors) << "rank " << r;
  }
}

TEST(GraphCreate, RepeatedNeighborsExample) {
  if (world_size() < 4) GTEST_SKIP() << "needs 4 processes";
  const int index[4] = {3, 5, 6, 9};
  const int edges[9] = {1, 1, 3, 0, 0, 3, 0, 2, 2};
  distopo::Comm graph = distopo::graph_create(MPI_COMM_WORLD, 4, index, edges, false);
  if (world_rank() >= 4) {
    EXPECT_TRUE(graph.is_null());
    return;
  }
  expect_matches_mpich(graph, Graph({{1, 1, 3}, {0, 0}, {3}, {0, 2, 2}}));
  const std::vector<std::vector<int>> expected{{1, 1, 3}, {0, 0}, {3}, {0, 2, 2}};
  for (int r = 0; r < 4; ++r) {
    const auto got = distopo::graph_neighbors(graph, r);
    EXPECT_EQ(std::vector<int>(got.begin(), got.end()), expected[static_cast<std::size_t>(r)]);
  }
  // Bounded copies never write past the given size.
  int neighbors[4] = {-9, -9, -9, -9};
  distopo::graph_neighbors(graph, 3, 2, neighbors);
  EXPECT_EQ(neighbors[0], 0);
  EXPECT_EQ(neighbors[1], 2);
  EXPECT_EQ(neighbors[2], -9);
  int got_index[5] = {-9, -9, -9, -9, -9};
  int got_edges[10];
  std::fill(std::begin(got_edges), std::end(got_edges), -9);
  distopo::graph_get(graph, 2, 4, got_index, got_edges);
  EXPECT_EQ(got_index[1], 5);
  EXPECT_EQ(got_index[2], -9);
  EXPECT_EQ(got_edges[3], 0);
  EXPECT_EQ(got_edges[4], -9);
}

// Shuffle-exchange on 2^n nodes (the standard's example has n = 3).
std::vector<std::vector<int>> shuffle_exchange(int n) {
  const int nodes = 1 << n;
  std::vector<std::vector<int>> lists;
  for (int a = 0; a < nodes; ++a) {
    const int exchange = a ^ 1;
    const int shuffle = ((a << 1) | (a >> (n - 1))) & (nodes - 1);
    const int unshuffle = ((a >> 1) | ((a & 1) << (n - 1))) & (nodes - 1);
    lists.push_back({exchange, shuffle, unshuffle});
  }
  return lists;
}

TEST(GraphCreate, ShuffleExchangeExample) {
  const int p = world_size();
  if (p < 2) GTEST_SKIP() << "needs 2 processes";
  int n = 1;
  while ((2 << n) <= p) ++n;
  const Graph graph(shuffle_exchange(n));
  if (n == 3) {
    EXPECT_EQ(graph.edges, (std::vector<int>{1, 0, 0, 0, 2, 4, 3, 4, 1, 2, 6, 5, 5, 1, 2, 4, 3, 6, 7, 5, 3, 6, 7, 7}));
  }
  distopo::Comm comm = distopo::graph_create(MPI_COMM_WORLD, graph.index, graph.edges);
  if (world_rank() >= (1 << n)) {
    EXPECT_TRUE(comm.is_null());
    return;
  }
  expect_matches_mpich(comm, graph);
  // The standard's permutations: exchange, shuffle, unshuffle.
  const int me = comm.rank();
  const auto neighbors = distopo::graph_neighbors(comm, me);
  ASSERT_EQ(neighbors.size(), 3U);
  double a = me;
  MPI_Sendrecv_replace(&a, 1, MPI_DOUBLE, neighbors[0], 0, neighbors[0], 0, comm, MPI_STATUS_IGNORE);
  EXPECT_EQ(a, neighbors[0]);
  a = me;
  MPI_Sendrecv_replace(&a, 1, MPI_DOUBLE, neighbors[1], 0, neighbors[2], 0, comm, MPI_STATUS_IGNORE);
  EXPECT_EQ(a, neighbors[2]);
  a = me;
  MPI_Sendrecv_replace(&a, 1, MPI_DOUBLE, neighbors[2], 0, neighbors[1], 0, comm, MPI_STATUS_IGNORE);
  EXPECT_EQ(a, neighbors[1]);
}

TEST(GraphCreate, SelfLoopsAndMultiEdgesKeptInOrder) {
  const int p = world_size();
  std::vector<std::vector<int>> lists;
  for (int i = 0; i < p; ++i) lists.push_back({i, (i + 1) % p, i, (i + p - 1) % p, (i + 1) % p});
  const Graph graph(lists);
  distopo::Comm comm = distopo::graph_create(MPI_COMM_WORLD, graph.index, graph.edges);
  expect_matches_mpich(comm, graph);
  EXPECT_EQ(distopo::graph_get(comm).edges, graph.edges);
}

TEST(GraphCreate, EmptyAndSmallerGraphs) {
  distopo::Comm none = distopo::graph_create(MPI_COMM_WORLD, 0, nullptr, nullptr, false);
  EXPECT_TRUE(none.is_null());
  distopo::Comm none_reordered =
      distopo::graph_create(MPI_COMM_WORLD, std::vector<int>{}, std::vector<int>{}, {.reorder = true});
  EXPECT_TRUE(none_reordered.is_null());
  // One node, no edges.
  const int index[1] = {0};
  distopo::Comm single = distopo::graph_create(MPI_COMM_WORLD, 1, index, nullptr, false);
  if (world_rank() == 0) {
    ASSERT_FALSE(single.is_null());
    EXPECT_EQ(distopo::graphdims_get(single), (distopo::GraphDims{1, 0}));
    EXPECT_EQ(distopo::graph_neighbors_count(single, 0), 0);
    expect_matches_mpich(single, Graph(std::vector<std::vector<int>>(1)));
  } else {
    EXPECT_TRUE(single.is_null());
  }
  EXPECT_EQ(distopo::graph_map(MPI_COMM_WORLD, 1, index, nullptr), world_rank() == 0 ? 0 : MPI_UNDEFINED);
}

TEST(GraphCreate, DupKeepsTopologyAndQueryErrors) {
  const int p = world_size();
  std::vector<std::vector<int>> ring;
  for (int i = 0; i < p; ++i) ring.push_back({(i + 1) % p});
  const Graph graph(ring);
  distopo::Comm comm = distopo::graph_create(MPI_COMM_WORLD, graph.index, graph.edges);
  MPI_Comm copy = MPI_COMM_NULL;
  MPI_Comm_dup(comm, &copy);
  distopo::Comm dup = distopo::Comm::adopt(copy);
  EXPECT_EQ(distopo::topo_test(dup), distopo::TopologyKind::graph);
  expect_matches_mpich(dup, graph);

  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int count = 0;
  int native_class = MPI_SUCCESS;
  MPI_Error_class(PMPI_Graph_neighbors_count(comm, p, &count), &native_class);
  EXPECT_EQ(error_class_of([&] { distopo::graph_neighbors_count(comm, p); }), native_class);
  EXPECT_EQ(error_class_of([&] { distopo::graph_neighbors(comm, -1); }), MPI_ERR_RANK);
  EXPECT_EQ(error_class_of([&] { distopo::graph_neighbors(comm, 0, -1, nullptr); }), MPI_ERR_ARG);
  EXPECT_EQ(error_class_of([] { distopo::graphdims_get(MPI_COMM_WORLD); }), MPI_ERR_TOPOLOGY);
  EXPECT_EQ(error_class_of([] { distopo::graph_get(MPI_COMM_WORLD); }), MPI_ERR_TOPOLOGY);
  EXPECT_EQ(error_class_of([] { distopo::graph_neighbors(MPI_COMM_WORLD, 0); }), MPI_ERR_TOPOLOGY);
}

void expect_agreed(int expected_class, const std::function<void()>& call, const std::string& value) {
  std::string message;
  EXPECT_EQ(error_class_of(call, &message), expected_class);
  EXPECT_NE(message.find("rank " + std::to_string(world_size() - 1)), std::string::npos) << message;
  EXPECT_NE(message.find(value), std::string::npos) << message;
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(GraphCreate, BadInputOnOneRankIsReportedEverywhere) {
  const int p = world_size();
  const bool last = world_rank() == p - 1;
  std::vector<std::vector<int>> ring;
  for (int i = 0; i < p; ++i) ring.push_back({(i + 1) % p});
  Graph good(ring);

  Graph bad_edge = good;
  if (last) bad_edge.edges[0] = p + 3;
  expect_agreed(
      MPI_ERR_ARG, [&] { distopo::graph_create(MPI_COMM_WORLD, bad_edge.index, bad_edge.edges); },
      "edges[0] = " + std::to_string(p + 3));
  Graph negative_edge = good;
  if (last) negative_edge.edges[0] = -1;
  expect_agreed(
      MPI_ERR_ARG, [&] { distopo::graph_map(MPI_COMM_WORLD, negative_edge.index, negative_edge.edges); },
      "edges[0] = -1");
  std::vector<int> decreasing = good.index;
  if (last) decreasing[0] = -4;
  expect_agreed(
      MPI_ERR_ARG, [&] { distopo::graph_create(MPI_COMM_WORLD, p, decreasing.data(), good.edges.data(), false); },
      "index[0] = -4");
  if (p > 1) {
    std::vector<int> dip = good.index;
    if (last) dip[1] = 0;
    expect_agreed(
        MPI_ERR_ARG, [&] { distopo::graph_create(MPI_COMM_WORLD, p, dip.data(), good.edges.data(), false); },
        "index[1] = 0");
  }
  expect_agreed(
      MPI_ERR_ARG,
      [&] { distopo::graph_create(MPI_COMM_WORLD, last ? -1 : p, good.index.data(), good.edges.data(), false); },
      "nnodes = -1");
  std::vector<int> bigger_index = good.index;
  bigger_index.push_back(good.index.back());
  expect_agreed(
      MPI_ERR_ARG,
      [&] { distopo::graph_create(MPI_COMM_WORLD, last ? p + 1 : p, bigger_index.data(), good.edges.data(), false); },
      "nnodes = " + std::to_string(p + 1));
  if (p > 1) {
    Graph other = good;
    if (last) other.edges[0] = (other.edges[0] + 1) % p;
    expect_agreed(
        MPI_ERR_ARG, [&] { distopo::graph_create(MPI_COMM_WORLD, other.index, other.edges); }, "differ");
    expect_agreed(
        MPI_ERR_ARG, [&] { distopo::graph_create(MPI_COMM_WORLD, good.index, good.edges, {.reorder = last}); },
        "differ");
  }
  // MPICH's classes for the same inputs (given on every rank).
  if (p > 1) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm native = MPI_COMM_NULL;
    Graph everywhere_bad = good;
    everywhere_bad.edges[0] = p + 3;
    int native_class = MPI_SUCCESS;
    MPI_Error_class(
        PMPI_Graph_create(MPI_COMM_WORLD, p, everywhere_bad.index.data(), everywhere_bad.edges.data(), 0, &native),
        &native_class);
    EXPECT_EQ(native_class, MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }
}

// Edges (each direction as given) whose ends are on different emulated nodes.
int offnode_edges(MPI_Comm comm, int k) {
  const int world = world_rank();
  const int size = distopo::comm_size(comm);
  std::vector<int> world_of(static_cast<std::size_t>(size));
  MPI_Allgather(&world, 1, MPI_INT, world_of.data(), 1, MPI_INT, comm);
  int count = 0;
  for (int other : distopo::graph_neighbors(comm, distopo::comm_rank(comm))) {
    if (world_of[static_cast<std::size_t>(other)] / k != world / k) ++count;
  }
  MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_INT, MPI_SUM, comm);
  return count;
}

TEST(GraphCreate, ReorderWithEmulatedNodes) {
  const int p = world_size();
  // A ring visiting 0, h, 1, h+1, 2, ... (h = p/2): consecutive ranks are never
  // neighbors, so nodes of consecutive ranks cut every edge.
  std::vector<int> order;
  const int h = (p + 1) / 2;
  for (int j = 0; j < h; ++j) {
    order.push_back(j);
    if (j + h < p) order.push_back(j + h);
  }
  std::vector<std::vector<int>> lists(static_cast<std::size_t>(p));
  for (std::size_t j = 0; j < order.size() && p > 1; ++j) {
    const int a = order[j];
    const int b = order[(j + 1) % order.size()];
    lists[static_cast<std::size_t>(a)].push_back(b);
    lists[static_cast<std::size_t>(b)].push_back(a);
  }
  const Graph graph(lists);
  for (int k : {2, 4}) {
    distopo::Comm identity = distopo::graph_create(MPI_COMM_WORLD, graph.index, graph.edges);
    MPI_Info info = MPI_INFO_NULL;
    MPI_Info_create(&info);
    MPI_Info_set(info, "distopo_ranks_per_node", std::to_string(k).c_str());
    const int mapped = distopo::graph_map(MPI_COMM_WORLD, graph.index, graph.edges, info);
    distopo::Comm reordered =
        distopo::graph_create(MPI_COMM_WORLD, graph.index, graph.edges, {.reorder = true, .info = info});
    MPI_Info_free(&info);
    // The environment variable does the same.
    setenv("DISTOPO_RANKS_PER_NODE", std::to_string(k).c_str(), 1);
    EXPECT_EQ(distopo::graph_map(MPI_COMM_WORLD, static_cast<int>(graph.index.size()), graph.index.data(),
                                 graph.edges.data()),
              mapped);
    unsetenv("DISTOPO_RANKS_PER_NODE");
    ASSERT_FALSE(reordered.is_null());
    EXPECT_EQ(reordered.rank(), mapped);
    expect_matches_mpich(reordered, graph);
    std::vector<int> new_ranks(static_cast<std::size_t>(p));
    MPI_Allgather(&mapped, 1, MPI_INT, new_ranks.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::sort(new_ranks.begin(), new_ranks.end());
    std::vector<int> all(static_cast<std::size_t>(p));
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(new_ranks, all);
    const int before = offnode_edges(identity, k);
    const int after = offnode_edges(reordered, k);
    EXPECT_LE(after, before);
    if (p >= 4 && p % k == 0 && p > k) {
      EXPECT_LT(after, before) << "k = " << k;
    }
    if (p % k != 0 && p > k) {
      EXPECT_EQ(mapped, world_rank());  // uneven nodes: identity
    }
  }
}

}  // namespace
