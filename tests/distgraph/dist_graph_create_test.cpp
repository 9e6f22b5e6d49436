// dist_graph_create: the standard's examples, differential tests against
// MPICH's own MPI_Dist_graph_create, and the corner cases of the semantics.
#include <gtest/gtest.h>

#include <climits>
#include <random>
#include <string>
#include <vector>

#include "dist_graph_testing.hpp"
#include "distopo/distgraph.hpp"

namespace {

using distopo::Comm;
using distopo::DistGraphOptions;
using distopo::Edge;
using namespace distopo::testing;

// The first four ranks of the world, or a null Comm on the others (and when
// there are fewer than four ranks).
Comm four_ranks() {
  const int rank = world_rank();
  MPI_Comm sub = MPI_COMM_NULL;
  const bool member = world_size() >= 4 && rank < 4;
  MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, rank, &sub);
  return Comm::adopt(sub);
}

// MPI-4.1 section 9.5.4, the 4-process example: 0->1,3  1->0  2->3  3->0,2.
const std::vector<Lists> kStandardExample = {
    {{{1, 1}, {3, 1}}, {{1, 1}, {3, 1}}, true},
    {{{0, 1}}, {{0, 1}}, true},
    {{{3, 1}}, {{3, 1}}, true},
    {{{0, 1}, {2, 1}}, {{0, 1}, {2, 1}}, true},
};

void expect_lists(MPI_Comm comm, const Lists& expected) {
  const Lists got = distopo_lists(comm);
  EXPECT_EQ(got.in, expected.in);
  EXPECT_EQ(got.out, expected.out);
  EXPECT_EQ(got.weighted, expected.weighted);
  expect_native_mirror(comm, got, false);
}

TEST(DistGraphCreate, StandardExampleEachRankGivesItsOutEdges) {
  Comm four = four_ranks();
  if (!four) GTEST_SKIP() << "needs 4 ranks";
  const int rank = four.rank();
  const std::vector<std::vector<int>> destinations = {{1, 3}, {0}, {3}, {0, 2}};
  const auto& mine = destinations[static_cast<std::size_t>(rank)];
  const int degree = static_cast<int>(mine.size());
  const std::vector<int> weights(mine.size(), 1);
  Comm graph = distopo::dist_graph_create(four, 1, &rank, &degree, mine.data(), weights.data(), {});
  expect_lists(graph, kStandardExample[static_cast<std::size_t>(rank)]);
}

TEST(DistGraphCreate, StandardExampleWholeGraphOnRankZero) {
  Comm four = four_ranks();
  if (!four) GTEST_SKIP() << "needs 4 ranks";
  const int rank = four.rank();
  const std::vector<int> sources = {0, 1, 2, 3};
  const std::vector<int> degrees = {2, 1, 1, 2};
  const std::vector<int> destinations = {1, 3, 0, 3, 0, 2};
  const std::vector<int> weights = {1, 1, 1, 1, 1, 1};
  Comm graph = rank == 0 ? distopo::dist_graph_create(four, 4, sources.data(), degrees.data(), destinations.data(),
                                                      weights.data(), {})
                         : distopo::dist_graph_create(four, 0, nullptr, nullptr, nullptr, MPI_WEIGHTS_EMPTY, {});
  expect_lists(graph, kStandardExample[static_cast<std::size_t>(rank)]);
}

TEST(DistGraphCreate, NativeWeightsKeyCopiesTheWeightsToMpich) {
  const int size = world_size();
  const int rank = world_rank();
  // Distinct weights, each end given by a rank that does not store it.
  const std::vector<Edge> edges = {{(rank + 1) % size, (rank + 2) % size, rank + 10},
                                   {(rank + 1) % size, rank, 2 * rank + 1}};
  InfoHandle native_weights({{"distopo_native_weights", "true"}});
  for (const bool reorder : {false, true}) {
    Comm graph = distopo::dist_graph_create(MPI_COMM_WORLD, edges, {.reorder = reorder, .info = native_weights.get()});
    expect_native_mirror(graph, distopo_lists(graph), true);
  }
  Comm unweighted =
      distopo::dist_graph_create(MPI_COMM_WORLD, edges, {.weighted = false, .info = native_weights.get()});
  expect_native_mirror(unweighted, distopo_lists(unweighted), true);
}

TEST(DistGraphCreate, StandardExampleUnweighted) {
  Comm four = four_ranks();
  if (!four) GTEST_SKIP() << "needs 4 ranks";
  const int rank = four.rank();
  const std::vector<std::vector<int>> destinations = {{1, 3}, {0}, {3}, {0, 2}};
  const auto& mine = destinations[static_cast<std::size_t>(rank)];
  const int degree = static_cast<int>(mine.size());
  Comm graph = distopo::dist_graph_create(four, 1, &rank, &degree, mine.data(), nullptr, {.weighted = false});
  Lists expected = kStandardExample[static_cast<std::size_t>(rank)];
  expected.weighted = false;
  expect_lists(graph, expected);
  const auto degrees = distopo::dist_graph_neighbors_count(graph);
  EXPECT_FALSE(degrees.weighted);
  EXPECT_TRUE(distopo::dist_graph_neighbors(graph).source_weights.empty());
}

// The P x Q torus with diagonals (MPI-2.2 Example 7.4) with the weight
// indices the example meant: weights[i] belongs to destinations[i].
std::vector<Edge> torus_with_diagonals(int rank, int p, int q) {
  const int y = rank / p;
  const int x = rank % p;
  auto at = [&](int xx, int yy) { return p * ((yy + q) % q) + (xx + p) % p; };
  return {{rank, at(x + 1, y), 2},     {rank, at(x - 1, y), 2},     {rank, at(x, y + 1), 2},
          {rank, at(x, y - 1), 2},     {rank, at(x + 1, y + 1), 1}, {rank, at(x + 1, y - 1), 1},
          {rank, at(x - 1, y + 1), 1}, {rank, at(x - 1, y - 1), 1}};
}

TEST(DistGraphCreate, TorusWithDiagonalsKeepsMultiEdgesAndSelfLoops) {
  const int size = world_size();
  const int rank = world_rank();
  // Small dims make repeated neighbors and self-loops: all must be kept.
  const int p = size >= 4 && size % 2 == 0 ? 2 : size;
  const int q = size / p;
  const auto edges = torus_with_diagonals(rank, p, q);
  Comm graph = distopo::dist_graph_create(MPI_COMM_WORLD, edges, {.weighted = true, .reorder = true});
  EXPECT_EQ(graph.rank(), rank) << "reorder keeps ranks until the mapping lands";

  Lists expected{{}, {}, true};
  for (const Edge& e : edges) expected.out.emplace_back(e.destination, e.weight);
  for (int other = 0; other < size; ++other) {
    for (const Edge& e : torus_with_diagonals(other, p, q)) {
      if (e.destination == rank) expected.in.emplace_back(e.source, e.weight);
    }
  }
  expected.in = sorted(expected.in);
  expected.out = sorted(expected.out);
  expect_lists(graph, expected);
  EXPECT_EQ(distopo::dist_graph_neighbors_count(graph).indegree, 8);
  EXPECT_EQ(distopo::dist_graph_neighbors_count(graph).outdegree, 8);
}

// Both implementations must give every rank the same multiset of
// (neighbor, weight) for these arrays.
void expect_graph_same_as_mpich(const std::vector<int>& sources, const std::vector<int>& degrees,
                                const std::vector<int>& destinations, const std::vector<int>& weights, bool weighted,
                                const std::string& what, MPI_Info info = MPI_INFO_NULL) {
  const int n = static_cast<int>(sources.size());
  const int* weight_arg = weighted ? (weights.empty() ? MPI_WEIGHTS_EMPTY : weights.data()) : MPI_UNWEIGHTED;
  MPI_Comm reference = MPI_COMM_NULL;
  ASSERT_EQ(PMPI_Dist_graph_create(MPI_COMM_WORLD, n, sources.data(), degrees.data(), destinations.data(), weight_arg,
                                   MPI_INFO_NULL, 0, &reference),
            MPI_SUCCESS);
  Comm graph = distopo::dist_graph_create(MPI_COMM_WORLD, n, sources.data(), degrees.data(), destinations.data(),
                                          weights.data(), {.weighted = weighted, .info = info});
  const Lists mpich = mpich_lists(reference);
  const Lists ours = distopo_lists(graph);
  EXPECT_EQ(sorted(mpich.in), ours.in) << what;
  EXPECT_EQ(sorted(mpich.out), ours.out) << what;
  EXPECT_EQ(mpich.weighted, ours.weighted);
  MPI_Comm_free(&reference);
}

// A weight of its own for each index: index * odd mod 2^30 is one-to-one,
// so distinct indices give distinct weights, in no particular order.
int distinct_weight(unsigned index) { return static_cast<int>((index * 2654435761U) & 0x3fffffffU); }

// Random edges named by arbitrary ranks.
void expect_same_as_mpich(int seed, int edges_per_rank, bool weighted, int max_weight = 5,
                          MPI_Info info = MPI_INFO_NULL) {
  const int size = world_size();
  const int rank = world_rank();
  std::mt19937 random(static_cast<unsigned>(seed * 7919 + rank));
  std::uniform_int_distribution<int> any_rank(0, size - 1);
  std::uniform_int_distribution<int> any_weight(0, max_weight);
  std::uniform_int_distribution<int> count(0, edges_per_rank);
  std::vector<int> sources, degrees, destinations, weights;
  const int n = count(random) % 6;
  for (int i = 0; i < n; ++i) {
    sources.push_back(any_rank(random));
    degrees.push_back(count(random));
    for (int j = 0; j < degrees.back(); ++j) {
      destinations.push_back(any_rank(random));
      weights.push_back(any_weight(random));
    }
  }
  expect_graph_same_as_mpich(sources, degrees, destinations, weights, weighted, "seed " + std::to_string(seed), info);
}

TEST(DistGraphCreate, RandomGraphsMatchMpichWeighted) {
  for (int seed = 0; seed < 12; ++seed) expect_same_as_mpich(seed, 20, true);
}

TEST(DistGraphCreate, RandomGraphsMatchMpichUnweighted) {
  for (int seed = 100; seed < 106; ++seed) expect_same_as_mpich(seed, 20, false);
}

// The exchange's route set by the info key: node-aware on declared nodes of
// 2 ranks, every rank gathering; node-aware with the nodes still to be found
// (the first exchange on each of the communicator's two channels goes direct
// and finds them; on one machine they are one node, so the next go direct
// too); direct.
TEST(DistGraphCreate, ExchangeRouteFromTheInfoKeyMatchesMpich) {
  const InfoHandle declared(
      {{"distopo_exchange", "node_aware"}, {"distopo_ranks_per_node", "2"}, {"distopo_exchange_gather_min", "1"}});
  const InfoHandle to_find({{"distopo_exchange", "node_aware"}});
  const InfoHandle direct({{"distopo_exchange", "direct"}});
  int seed = 300;
  for (const MPI_Info info : {declared.get(), to_find.get(), to_find.get(), to_find.get(), direct.get()}) {
    expect_same_as_mpich(seed++, 200, true, 5, info);
  }
}

// Going by source (forced by the info key here; large scattered inputs go so
// on their own): out-ends to their sources in the first round, in-ends from
// there, in order, in the second. Every rank by source (repeated and
// distinct ends, weighted and not); every other rank by source while the
// others' ends take one round into the same lists; a rank that gives its own
// out-edges (its sorted list in the first round) beside ranks by source,
// whose out-ends for it it merges into that list.
TEST(DistGraphCreate, BySourceMatchesMpich) {
  const InfoHandle always({{"distopo_by_source", "true"}});
  const InfoHandle never({{"distopo_by_source", "false"}});
  const MPI_Info alternate = world_rank() % 2 == 0 ? always.get() : never.get();
  int seed = 400;
  for (const bool weighted : {true, false}) {
    expect_same_as_mpich(seed++, 200, weighted, 5, always.get());
    expect_same_as_mpich(seed++, 200, weighted, INT_MAX, always.get());
    expect_same_as_mpich(seed++, 200, weighted, INT_MAX, alternate);
  }
  const int size = world_size();
  const int rank = world_rank();
  std::mt19937 random(static_cast<unsigned>(77 + rank));
  std::uniform_int_distribution<int> any_rank(0, size - 1);
  std::vector<int> sources, degrees, destinations, weights;
  for (int j = 0; j < 300; ++j) {
    sources.push_back(rank == 0 ? 0 : any_rank(random));
    degrees.push_back(1);
    destinations.push_back(any_rank(random));
    weights.push_back(rank * 1000 + j);
  }
  expect_graph_same_as_mpich(sources, degrees, destinations, weights, true, "own beside by source", always.get());
}

// A large scattered input of long source entries (distinct weights, 20000
// edges in entries of 1000, so at 20 ranks or fewer each pair of source and
// destination carries 50 ends or more) goes by source without being asked.
TEST(DistGraphCreate, LargeScatteredInputMatchesMpich) {
  const int size = world_size();
  const int rank = world_rank();
  std::mt19937 random(static_cast<unsigned>(91 + rank));
  std::uniform_int_distribution<int> any_rank(0, size - 1);
  std::vector<int> sources, degrees, destinations, weights;
  for (int j = 0; j < 20000; ++j) {
    if (j % 1000 == 0) {
      sources.push_back(any_rank(random));
      degrees.push_back(0);
    }
    ++degrees.back();
    destinations.push_back(any_rank(random));
    weights.push_back(distinct_weight(static_cast<unsigned>(rank * 20000 + j)));
  }
  expect_graph_same_as_mpich(sources, degrees, destinations, weights, true, "large scattered input");
}

// A hub: nine in ten edges of every rank end at rank 0, so every rank sends
// it far more than anyone else (over 2^16 ints): the ranks then meet in a
// barrier of their own before MPICH's copy (dist_graph_create.cpp), the
// others waiting in it while rank 0 writes its lists.
TEST(DistGraphCreate, HubGraphMatchesMpich) {
  const int size = world_size();
  const int rank = world_rank();
  std::mt19937 random(static_cast<unsigned>(57 + rank));
  std::uniform_int_distribution<int> any_rank(0, size - 1);
  std::vector<int> sources, degrees, destinations, weights;
  for (int j = 0; j < 80000; ++j) {
    sources.push_back(any_rank(random));
    degrees.push_back(1);
    destinations.push_back(j % 10 == 0 ? any_rank(random) : 0);
    weights.push_back(distinct_weight(static_cast<unsigned>(rank * 80000 + j)));
  }
  expect_graph_same_as_mpich(sources, degrees, destinations, weights, true, "hub graph");
}

// Thousands of ends per rank take the sort's counting path (few distinct
// (direction, rank, weight) values); weights up to INT_MAX take its radix
// passes, two to four of them depending on the ranks.
TEST(DistGraphCreate, LargeRandomGraphMatchesMpich) { expect_same_as_mpich(7, 4000, true); }
TEST(DistGraphCreate, LargeRandomGraphWithWideWeightsMatchesMpich) { expect_same_as_mpich(9, 4000, true, INT_MAX); }
TEST(DistGraphCreate, LargeRandomGraphUnweightedMatchesMpich) { expect_same_as_mpich(11, 4000, false); }

// No edge end repeats (distinct weights): each rank's lists are written in
// the memory its ends arrived in, grouped by neighbor where there are more
// than 4096 ends. Even ranks give their weights in ascending order (each
// neighbor's group then arrives in order and is not sorted), odd ranks in
// no order; rank 1 gives few edges, so some ranks stay below 4096 ends.
TEST(DistGraphCreate, DistinctWeightsMatchMpich) {
  const int size = world_size();
  const int rank = world_rank();
  std::mt19937 random(static_cast<unsigned>(31 + rank));
  std::uniform_int_distribution<int> any_rank(0, size - 1);
  const int edges = rank == 1 ? 300 : 6000;
  std::vector<int> sources{rank, any_rank(random)};
  std::vector<int> degrees{edges, 500};
  std::vector<int> destinations, weights;
  for (int j = 0; j < edges + 500; ++j) {
    destinations.push_back(any_rank(random));
    const auto index = static_cast<unsigned>(rank * 10000 + j);
    weights.push_back(rank % 2 == 0 ? static_cast<int>(index) : distinct_weight(index));
  }
  expect_graph_same_as_mpich(sources, degrees, destinations, weights, true, "distinct weights");
}

// Unweighted, but no (source, destination) pair twice: no edge end repeats.
TEST(DistGraphCreate, UniquePairsUnweightedMatchMpich) {
  const int size = world_size();
  const int rank = world_rank();
  std::vector<int> destinations;
  for (int k = size - 1; k >= 0; --k) destinations.push_back((rank + k) % size);
  expect_graph_same_as_mpich({rank}, {size}, destinations, {}, false, "unique pairs");
}

// A heavy multigraph travels as tallied ends (each distinct edge once, with
// its count), distinct edges one by one: here even ranks give 6000 edges
// over a few (rank, weight) values, odd ranks 6000 edges of distinct weights,
// so most ranks receive both kinds and merge them, on the counting path
// (unweighted, narrow weights) and the sorting paths (wide weights).
TEST(DistGraphCreate, TalliedAndSingleEndsTogetherMatchMpich) {
  const int size = world_size();
  const int rank = world_rank();
  for (const bool weighted : {true, false}) {
    for (const int wide : {0, 1}) {
      std::mt19937 random(static_cast<unsigned>(rank * 31 + wide));
      std::vector<int> sources, degrees, destinations, weights;
      for (int entry = 0; entry < 3; ++entry) {
        sources.push_back(static_cast<int>(random() % static_cast<unsigned>(size)));
        degrees.push_back(2000);
        for (int j = 0; j < 2000; ++j) {
          destinations.push_back(static_cast<int>(random() % static_cast<unsigned>(size)));
          const int distinct = (rank * 6000 + entry * 2000 + j) * (wide ? 97 : 1);
          weights.push_back(rank % 2 == 0 ? static_cast<int>(random() % 3) : distinct);
        }
      }
      expect_graph_same_as_mpich(sources, degrees, destinations, weights, weighted,
                                 std::string(weighted ? "weighted" : "unweighted") + (wide ? ", wide" : ""));
    }
  }
}

// 300 edges per rank take the comparison sort, 6000 the counting sort.
class TwoCreates : public testing::TestWithParam<int> {};

TEST_P(TwoCreates, ReturnIdenticalSortedLists) {
  const int size = world_size();
  const int rank = world_rank();
  std::mt19937 random(static_cast<unsigned>(rank));
  std::vector<Edge> edges;
  for (int i = 0; i < GetParam(); ++i) {
    edges.push_back(
        {static_cast<int>(random() % size), static_cast<int>(random() % size), static_cast<int>(random() % 3)});
  }
  Comm first = distopo::dist_graph_create(MPI_COMM_WORLD, edges);
  std::shuffle(edges.begin(), edges.end(), random);  // input order must not matter
  Comm second = distopo::dist_graph_create(MPI_COMM_WORLD, edges);
  const Lists a = distopo_lists(first);
  const Lists b = distopo_lists(second);
  EXPECT_EQ(a.in, b.in);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.in, sorted(a.in));
  EXPECT_EQ(a.out, sorted(a.out));
}
INSTANTIATE_TEST_SUITE_P(DistGraphCreate, TwoCreates, testing::Values(300, 6000));

TEST(DistGraphCreate, IsolatedRanksAndOneSelfLoop) {
  const int rank = world_rank();
  std::vector<Edge> edges;
  if (rank == 0) edges = {{0, 0, 3}, {0, 0, 3}};
  Comm graph = distopo::dist_graph_create(MPI_COMM_WORLD, edges);
  Lists expected{{}, {}, true};
  if (rank == 0) expected = {{{0, 3}, {0, 3}}, {{0, 3}, {0, 3}}, true};
  expect_lists(graph, expected);
}

TEST(DistGraphCreate, NoEdgesAnywhere) {
  Comm graph = distopo::dist_graph_create(MPI_COMM_WORLD, std::span<const Edge>{});
  expect_lists(graph, {{}, {}, true});
  EXPECT_EQ(distopo::topo_test(graph), distopo::TopologyKind::dist_graph);
}

TEST(DistGraphCreate, RanksGiveOnlyIncomingOrOnlyOutgoingEdges) {
  const int size = world_size();
  const int rank = world_rank();
  const int next = (rank + 1) % size;
  const int prev = (rank + size - 1) % size;
  // Ring i -> i+1 (weight i), described by the receiver only...
  std::vector<Edge> incoming = {{prev, rank, prev}};
  Comm by_receivers = distopo::dist_graph_create(MPI_COMM_WORLD, incoming);
  // ...and by the sender only.
  std::vector<Edge> outgoing = {{rank, next, rank}};
  Comm by_senders = distopo::dist_graph_create(MPI_COMM_WORLD, outgoing);
  const Lists expected{{{prev, prev}}, {{next, rank}}, true};
  expect_lists(by_receivers, expected);
  expect_lists(by_senders, expected);
}

TEST(DistGraphCreate, OnSubCommunicator) {
  const int rank = world_rank();
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  Comm sub = Comm::adopt(half);
  const int size = sub.size();
  const int me = sub.rank();
  std::vector<Edge> edges = {{me, (me + 1) % size, 1}};
  Comm graph = distopo::dist_graph_create(sub, edges);
  EXPECT_EQ(graph.size(), size);
  expect_lists(graph, {{{(me + size - 1) % size, 1}}, {{(me + 1) % size, 1}}, true});
}

TEST(DistGraphCreate, PlainMpiNeighborCollectiveWorksOnResult) {
  const int size = world_size();
  const int rank = world_rank();
  std::vector<Edge> edges = {{rank, (rank + 1) % size, 1}, {rank, (rank + size - 1) % size, 1}};
  Comm graph = distopo::dist_graph_create(MPI_COMM_WORLD, edges);
  const auto& n = distopo::dist_graph_neighbors(graph);
  std::vector<int> received(n.sources.size(), -1);
  ASSERT_EQ(PMPI_Neighbor_allgather(&rank, 1, MPI_INT, received.data(), 1, MPI_INT, graph), MPI_SUCCESS);
  EXPECT_EQ(received, n.sources);  // each source sent its own rank
}

TEST(DistGraphCreate, RepeatedCreatesAndFreesDoNotLeakTraffic) {
  const int size = world_size();
  const int rank = world_rank();
  for (int round = 0; round < 30; ++round) {
    std::vector<Edge> edges = {{rank, (rank + round) % size, round}};
    Comm graph = distopo::dist_graph_create(MPI_COMM_WORLD, edges);
    const auto& n = distopo::dist_graph_neighbors(graph);
    ASSERT_EQ(n.destinations, std::vector<int>{(rank + round) % size});
    ASSERT_EQ(n.sources, std::vector<int>{((rank - round) % size + size) % size});
    ASSERT_EQ(n.source_weights, std::vector<int>{round});
  }
}

}  // namespace
