// dist_graph_create_adjacent: order kept as given, weights, and the optional
// consistency check of both sides of every edge.
#include <gtest/gtest.h>

#include <vector>

#include "dist_graph_testing.hpp"
#include "distopo/distgraph.hpp"

namespace {

using distopo::Comm;
using namespace distopo::testing;

TEST(DistGraphAdjacent, StandardExample) {
  if (world_size() < 4) GTEST_SKIP() << "needs 4 ranks";
  const int rank = world_rank();
  MPI_Comm four_handle = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank < 4 ? 0 : MPI_UNDEFINED, rank, &four_handle);
  Comm four = Comm::adopt(four_handle);
  if (!four) return;
  // Table of MPI-4.1 9.5.4: sources and destinations are the same lists here.
  const std::vector<std::vector<int>> lists = {{1, 3}, {0}, {3}, {0, 2}};
  const auto& mine = lists[static_cast<std::size_t>(rank)];
  const std::vector<int> weights(mine.size(), 1);
  Comm graph = distopo::dist_graph_create_adjacent(four, mine, weights, mine, weights);
  const Lists got = distopo_lists(graph);
  EXPECT_EQ(got.in, zip(mine, weights));
  EXPECT_EQ(got.out, zip(mine, weights));
  expect_native_mirror(graph, got, false);
}

TEST(DistGraphAdjacent, OrderIsExactlyAsGivenWithDuplicates) {
  const int size = world_size();
  const int rank = world_rank();
  const int next = (rank + 1) % size;
  const int prev = (rank + size - 1) % size;
  // Deliberately unsorted, with a repeated neighbor and distinct weights.
  const std::vector<int> sources = {prev, rank, prev};
  const std::vector<int> source_weights = {5, 0, 2};
  const std::vector<int> destinations = {next, rank, next};
  const std::vector<int> destination_weights = {5, 0, 2};
  InfoHandle check({{"distopo_check_adjacent", "true"}});
  Comm graph = distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, sources, source_weights, destinations,
                                                   destination_weights, {.info = check.get()});
  const Lists got = distopo_lists(graph);
  EXPECT_EQ(got.in, zip(sources, source_weights));
  EXPECT_EQ(got.out, zip(destinations, destination_weights));
  expect_native_mirror(graph, got, false);
}

TEST(DistGraphAdjacent, NativeWeightsKeyCopiesTheWeightsToMpich) {
  const int size = world_size();
  const int rank = world_rank();
  const std::vector<int> sources = {(rank + size - 1) % size, rank};
  const std::vector<int> source_weights = {7, 0};
  const std::vector<int> destinations = {(rank + 1) % size, rank};
  const std::vector<int> destination_weights = {7, 0};
  InfoHandle both({{"distopo_check_adjacent", "true"}, {"distopo_native_weights", "true"}});
  Comm graph = distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, sources, source_weights, destinations,
                                                   destination_weights, {.info = both.get()});
  expect_native_mirror(graph, distopo_lists(graph), true);
  // Without weights there is nothing to copy: MPICH's copy is unweighted too.
  InfoHandle weights_only({{"distopo_native_weights", "true"}});
  Comm unweighted = distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, sources, {}, destinations, {},
                                                        {.weighted = false, .info = weights_only.get()});
  expect_native_mirror(unweighted, distopo_lists(unweighted), true);
}

TEST(DistGraphAdjacent, UnweightedAndEmpty) {
  const int rank = world_rank();
  const std::vector<int> none;
  // Rank 0 is isolated; the others point at rank 0, which does not list them:
  // without the check this is the user's responsibility and is accepted.
  const std::vector<int> to_zero = rank == 0 ? none : std::vector<int>{0};
  Comm graph = distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, none, none, to_zero, none, {.weighted = false});
  const auto degrees = distopo::dist_graph_neighbors_count(graph);
  EXPECT_EQ(degrees.indegree, 0);
  EXPECT_EQ(degrees.outdegree, static_cast<int>(to_zero.size()));
  EXPECT_FALSE(degrees.weighted);
  EXPECT_FALSE(mpich_lists(graph).weighted);
}

TEST(DistGraphAdjacent, CheckFindsAnEdgeMissingOnTheReceiverOnEveryRank) {
  const int size = world_size();
  if (size < 2) GTEST_SKIP() << "needs 2 ranks";
  const int rank = world_rank();
  const int next = (rank + 1) % size;
  const int prev = (rank + size - 1) % size;
  std::vector<int> sources = {prev};
  const std::vector<int> destinations = {next};
  if (rank == size - 1) sources.clear();  // the edge (size-2) -> (size-1) loses its receiving side
  const std::vector<int> ones_in(sources.size(), 1);
  const std::vector<int> ones_out(destinations.size(), 1);
  InfoHandle check({{"distopo_check_adjacent", "true"}});
  std::string message;
  const int error_class = error_class_of(
      [&] {
        distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, sources, ones_in, destinations, ones_out,
                                            {.info = check.get()});
      },
      &message);
  EXPECT_EQ(error_class, MPI_ERR_TOPOLOGY);
  EXPECT_NE(message.find(std::to_string(size - 2) + "->" + std::to_string(size - 1)), std::string::npos) << message;
}

TEST(DistGraphAdjacent, CheckFindsAWeightMismatch) {
  const int size = world_size();
  const int rank = world_rank();
  const int next = (rank + 1) % size;
  const int prev = (rank + size - 1) % size;
  const std::vector<int> sources = {prev};
  const std::vector<int> source_weights = {rank == 0 ? 9 : 1};
  const std::vector<int> destinations = {next};
  const std::vector<int> destination_weights = {1};
  InfoHandle check({{"distopo_check_adjacent", "true"}});
  EXPECT_EQ(error_class_of([&] {
              distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, sources, source_weights, destinations,
                                                  destination_weights, {.info = check.get()});
            }),
            MPI_ERR_TOPOLOGY);
}

// Weights that do not match their ranks in the C++ overload, on the last rank
// only: every rank throws MPI_ERR_ARG with a message that says so.
TEST(DistGraphAdjacent, WeightsOfTheWrongLengthOnOneRank) {
  const int size = world_size();
  const int rank = world_rank();
  const std::vector<int> sources = {(rank + size - 1) % size};
  const std::vector<int> source_weights = rank == size - 1 ? std::vector<int>{1, 1} : std::vector<int>{1};
  const std::vector<int> destinations = {(rank + 1) % size};
  const std::vector<int> destination_weights = {1};
  std::string message;
  EXPECT_EQ(error_class_of(
                [&] {
                  distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, sources, source_weights, destinations,
                                                      destination_weights);
                },
                &message),
            MPI_ERR_ARG);
  EXPECT_NE(message.find("rank " + std::to_string(size - 1) + ": source_weights has 2 entries for 1 sources"),
            std::string::npos)
      << message;
}

}  // namespace
