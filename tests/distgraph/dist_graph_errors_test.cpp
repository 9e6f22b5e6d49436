// Bad input on one rank only: every rank gets the same MPI error class, with a
// message naming the rank and the value, and nobody hangs. After each error
// the next create must work (no stray messages left behind).
#include <gtest/gtest.h>

#include <climits>
#include <vector>

#include "dist_graph_testing.hpp"
#include "distopo/distgraph.hpp"

namespace {

using distopo::Comm;
using distopo::Edge;
using namespace distopo::testing;

// The rank that gets the bad input: the last one (not 0, to catch root bias).
int culprit() { return world_size() - 1; }

// A valid create every rank runs after an error.
void expect_next_create_works() {
  const int size = world_size();
  const int rank = world_rank();
  std::vector<Edge> edges = {{rank, (rank + 1) % size, 1}};
  Comm graph = distopo::dist_graph_create(MPI_COMM_WORLD, edges);
  EXPECT_EQ(distopo::dist_graph_neighbors(graph).sources, std::vector<int>{(rank + size - 1) % size});
}

// Runs the standard-array create with this rank's arguments and checks the
// agreed class and, on the culprit, that the message names it and the value.
void expect_error(int expected_class, int n, std::vector<int> sources, std::vector<int> degrees,
                  std::vector<int> destinations, std::vector<int> weights, distopo::DistGraphOptions options,
                  const std::string& value_text) {
  std::string message;
  const int got = error_class_of(
      [&] {
        distopo::dist_graph_create(MPI_COMM_WORLD, n, sources.data(), degrees.data(), destinations.data(),
                                   weights.data(), options);
      },
      &message);
  EXPECT_EQ(got, expected_class) << message;
  EXPECT_NE(message.find("rank " + std::to_string(culprit())), std::string::npos) << message;
  EXPECT_NE(message.find(value_text), std::string::npos) << message;
  expect_next_create_works();
}

struct OwnRingEdge {
  int n = 1;
  std::vector<int> sources{world_rank()};
  std::vector<int> degrees{1};
  std::vector<int> destinations{(world_rank() + 1) % world_size()};
  std::vector<int> weights{1};
};

TEST(DistGraphErrors, NegativeN) {
  OwnRingEdge a;
  if (world_rank() == culprit()) a.n = -1;
  expect_error(MPI_ERR_ARG, a.n, a.sources, a.degrees, a.destinations, a.weights, {}, "n = -1");
}

TEST(DistGraphErrors, NegativeDegree) {
  OwnRingEdge a;
  if (world_rank() == culprit()) a.degrees = {-3};
  expect_error(MPI_ERR_ARG, a.n, a.sources, a.degrees, a.destinations, a.weights, {}, "degrees[0] = -3");
}

TEST(DistGraphErrors, DestinationOutOfRange) {
  OwnRingEdge a;
  if (world_rank() == culprit()) a.destinations = {world_size()};
  expect_error(MPI_ERR_RANK, a.n, a.sources, a.degrees, a.destinations, a.weights, {},
               "destinations[0] = " + std::to_string(world_size()));
}

TEST(DistGraphErrors, NegativeSource) {
  OwnRingEdge a;
  if (world_rank() == culprit()) a.sources = {-2};
  expect_error(MPI_ERR_RANK, a.n, a.sources, a.degrees, a.destinations, a.weights, {}, "sources[0] = -2");
}

TEST(DistGraphErrors, MpiProcNullIsNotARank) {
  OwnRingEdge a;
  if (world_rank() == culprit()) a.destinations = {MPI_PROC_NULL};
  expect_error(MPI_ERR_RANK, a.n, a.sources, a.degrees, a.destinations, a.weights, {},
               "destinations[0] = " + std::to_string(MPI_PROC_NULL));
}

TEST(DistGraphErrors, NegativeWeight) {
  OwnRingEdge a;
  if (world_rank() == culprit()) a.weights = {-7};
  expect_error(MPI_ERR_ARG, a.n, a.sources, a.degrees, a.destinations, a.weights, {}, "weights[0] = -7");
}

TEST(DistGraphErrors, DegreeSumOverflowsInt) {
  OwnRingEdge a;
  if (world_rank() == culprit()) {
    // Validation stops at the overflow, before reading any destination.
    a.n = 2;
    a.sources = {0, 0};
    a.degrees = {INT_MAX, 1};
  }
  expect_error(MPI_ERR_ARG, a.n, a.sources, a.degrees, a.destinations, a.weights, {}, "INT_MAX");
}

TEST(DistGraphErrors, UnweightedOnSomeRanksOnly) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  OwnRingEdge a;
  distopo::DistGraphOptions options;
  if (world_rank() == culprit()) options.weighted = false;
  expect_error(MPI_ERR_ARG, a.n, a.sources, a.degrees, a.destinations, a.weights, options, "MPI_UNWEIGHTED");
}

TEST(DistGraphErrors, ReorderDiffersBetweenRanks) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  OwnRingEdge a;
  distopo::DistGraphOptions options;
  if (world_rank() == culprit()) options.reorder = true;
  expect_error(MPI_ERR_ARG, a.n, a.sources, a.degrees, a.destinations, a.weights, options, "reorder");
}

TEST(DistGraphErrors, UnknownExchangeRouteOnOneRank) {
  OwnRingEdge a;
  const InfoHandle sideways({{"distopo_exchange", "sideways"}});
  distopo::DistGraphOptions options;
  if (world_rank() == culprit()) options.info = sideways.get();
  expect_error(MPI_ERR_ARG, a.n, a.sources, a.degrees, a.destinations, a.weights, options, "sideways");
}

// Whether to go by source may differ between ranks, but its value must be one
// of the three.
TEST(DistGraphErrors, UnknownBySourceValueOnOneRank) {
  OwnRingEdge a;
  const InfoHandle maybe({{"distopo_by_source", "maybe"}});
  distopo::DistGraphOptions options;
  if (world_rank() == culprit()) options.info = maybe.get();
  expect_error(MPI_ERR_ARG, a.n, a.sources, a.degrees, a.destinations, a.weights, options, "maybe");
}

// One rank on the node-aware route (its nodes declared, or still to be
// found), the others direct: MPI_ERR_ARG on every rank, none waiting in a
// collective step (the relay channel's copy, finding the nodes) the others
// skip.
TEST(DistGraphErrors, ExchangeRouteDiffersBetweenRanks) {
  if (world_size() < 3) GTEST_SKIP() << "needs 2 nodes of 2 ranks";
  const InfoHandle declared({{"distopo_exchange", "node_aware"}, {"distopo_ranks_per_node", "2"}});
  const InfoHandle to_find({{"distopo_exchange", "node_aware"}});
  const InfoHandle direct({{"distopo_exchange", "direct"}});
  for (const MPI_Info node_aware : {declared.get(), to_find.get()}) {
    OwnRingEdge a;
    std::string message;
    const int got = error_class_of(
        [&] {
          distopo::dist_graph_create(MPI_COMM_WORLD, a.n, a.sources.data(), a.degrees.data(), a.destinations.data(),
                                     a.weights.data(), {.info = world_rank() == culprit() ? node_aware : direct.get()});
        },
        &message);
    EXPECT_EQ(got, MPI_ERR_ARG) << message;
    EXPECT_NE(message.find("different exchange routes"), std::string::npos) << message;
    expect_next_create_works();
  }
}

TEST(DistGraphErrors, NullArraysWithEdges) {
  std::string message;
  const bool bad = world_rank() == culprit();
  const int one = 1;
  const int rank = world_rank();
  const int next = (rank + 1) % world_size();
  const int got = error_class_of(
      [&] { distopo::dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, bad ? nullptr : &next, &one, {}); }, &message);
  EXPECT_EQ(got, MPI_ERR_ARG) << message;
  expect_next_create_works();
}

TEST(DistGraphErrors, BadEdgeInEdgeList) {
  std::vector<Edge> edges = {{world_rank(), 0, 1}};
  if (world_rank() == culprit()) edges.push_back({0, world_size() + 5, 1});
  std::string message;
  EXPECT_EQ(error_class_of([&] { distopo::dist_graph_create(MPI_COMM_WORLD, edges); }, &message), MPI_ERR_RANK);
  EXPECT_NE(message.find("edges.destination[1]"), std::string::npos) << message;
  expect_next_create_works();
}

// Long inputs are checked in one pass over all values first; a bad value deep
// inside must still be found and named by its index.
TEST(DistGraphErrors, BadValuesDeepInsideLongInput) {
  const int size = world_size();
  const int rank = world_rank();
  constexpr int kDegree = 10000;
  std::vector<int> destinations(kDegree);
  for (int j = 0; j < kDegree; ++j) destinations[static_cast<std::size_t>(j)] = (rank + j) % size;
  std::vector<int> weights(kDegree, 2);
  std::vector<int> bad_destinations = destinations;
  std::vector<int> bad_weights = weights;
  if (rank == culprit()) {
    bad_destinations[9876] = size;
    bad_weights[9001] = -1;
  }
  expect_error(MPI_ERR_RANK, 1, {rank}, {kDegree}, bad_destinations, weights, {}, "destinations[9876] = ");
  expect_error(MPI_ERR_ARG, 1, {rank}, {kDegree}, destinations, bad_weights, {}, "weights[9001] = -1");

  // Many sources of degree 1: a bad source and a negative degree deep inside.
  std::vector<int> sources(kDegree, rank);
  std::vector<int> ones(kDegree, 1);
  std::vector<int> bad_sources = sources;
  std::vector<int> bad_degrees = ones;
  if (rank == culprit()) {
    bad_sources[6543] = size + 1;
    bad_degrees[4321] = -2;
  }
  expect_error(MPI_ERR_RANK, kDegree, bad_sources, ones, destinations, weights, {}, "sources[6543] = ");
  expect_error(MPI_ERR_ARG, kDegree, sources, bad_degrees, destinations, weights, {}, "degrees[4321] = -2");

  std::vector<Edge> edges;
  for (int j = 0; j < kDegree; ++j) edges.push_back({rank, (rank + j) % size, 1});
  if (rank == culprit()) edges[7777].source = -4;
  std::string message;
  EXPECT_EQ(error_class_of([&] { distopo::dist_graph_create(MPI_COMM_WORLD, edges); }, &message), MPI_ERR_RANK);
  if (rank == culprit()) {
    EXPECT_NE(message.find("edges.source[7777] = -4"), std::string::npos) << message;
  }
  expect_next_create_works();
}

TEST(DistGraphErrors, AdjacentNegativeDegreeAndBadRank) {
  const bool bad = world_rank() == culprit();
  const int size = world_size();
  const std::vector<int> one = {(world_rank() + 1) % size};
  const std::vector<int> weight = {1};
  EXPECT_EQ(error_class_of([&] {
              distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, bad ? -1 : 0, nullptr, nullptr, 1, one.data(),
                                                  weight.data(), {});
            }),
            MPI_ERR_ARG);
  const std::vector<int> out_of_range = {bad ? size : 0};
  std::string message;
  EXPECT_EQ(error_class_of(
                [&] {
                  distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, 1, out_of_range.data(), weight.data(), 0, nullptr,
                                                      nullptr, {});
                },
                &message),
            MPI_ERR_RANK);
  EXPECT_NE(message.find("sources[0] = " + std::to_string(size)), std::string::npos) << message;
  expect_next_create_works();
}

TEST(DistGraphErrors, AdjacentUnweightedOnSomeRanksOnly) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const std::vector<int> none;
  distopo::DistGraphOptions options;
  if (world_rank() == culprit()) options.weighted = false;
  EXPECT_EQ(
      error_class_of([&] { distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, none, none, none, none, options); }),
      MPI_ERR_ARG);
}

// dist_graph_create_adjacent makes MPICH's copy while its agreement is in
// flight: a flag that differs between ranks still fails everywhere, and
// no rank keeps the copy it made.
TEST(DistGraphErrors, AdjacentReorderOrCheckOnSomeRanksOnly) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const int size = world_size();
  const std::vector<int> next = {(world_rank() + 1) % size};
  const std::vector<int> previous = {(world_rank() + size - 1) % size};
  const std::vector<int> weight = {1};
  distopo::DistGraphOptions reorder;
  reorder.reorder = world_rank() == culprit();
  EXPECT_EQ(error_class_of(
                [&] { distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, previous, weight, next, weight, reorder); }),
            MPI_ERR_ARG);
  MPI_Info check = MPI_INFO_NULL;
  MPI_Info_create(&check);
  MPI_Info_set(check, "distopo_check_adjacent", "true");
  distopo::DistGraphOptions checked;
  checked.info = world_rank() == culprit() ? check : MPI_INFO_NULL;
  EXPECT_EQ(error_class_of(
                [&] { distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, previous, weight, next, weight, checked); }),
            MPI_ERR_ARG);
  MPI_Info_free(&check);
  expect_next_create_works();
}

// More failed creates than MPICH has communicators (2048 context ids): the
// copy each rank made during the agreement is freed with the error.
TEST(DistGraphErrors, AdjacentErrorsLeaveNoCommunicatorBehind) {
  const bool bad = world_rank() == culprit();
  const std::vector<int> next = {(world_rank() + 1) % world_size()};
  const std::vector<int> weight = {1};
  for (int i = 0; i < 2200; ++i) {
    const int got = error_class_of([&] {
      distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, bad ? -1 : 0, nullptr, nullptr, 1, next.data(), weight.data(),
                                          {});
    });
    if (got != MPI_ERR_ARG) {
      ADD_FAILURE() << "create " << i << ": error class " << got;
      break;
    }
  }
  expect_next_create_works();
}

TEST(DistGraphErrors, NullAndInterCommunicator) {
  std::vector<Edge> edges;
  EXPECT_EQ(error_class_of([&] { distopo::dist_graph_create(MPI_COMM_NULL, edges); }), MPI_ERR_COMM);
  if (world_size() < 2) return;
  MPI_Comm half = MPI_COMM_NULL;
  const int rank = world_rank();
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Comm inter = MPI_COMM_NULL;
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 17, &inter);
  EXPECT_EQ(error_class_of([&] { distopo::dist_graph_create(inter, edges); }), MPI_ERR_COMM);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

TEST(DistGraphErrors, QueriesNeedADistGraphTopology) {
  std::string message;
  EXPECT_EQ(error_class_of([] { distopo::dist_graph_neighbors_count(MPI_COMM_WORLD); }, &message), MPI_ERR_TOPOLOGY);
  EXPECT_NE(message.find("dist_graph_neighbors_count"), std::string::npos) << message;
  EXPECT_EQ(error_class_of([] { distopo::dist_graph_neighbors(MPI_COMM_WORLD); }), MPI_ERR_TOPOLOGY);
  EXPECT_EQ(error_class_of([] { distopo::dist_graph_neighbors(MPI_COMM_NULL); }), MPI_ERR_COMM);
}

}  // namespace
