// From edge ends to neighbor lists (dist_graph_create's last step), on every
// path: few distinct ends counted, many grouped by neighbor and their weights
// sorted per group, the rest sorted whole; tallied ends (sent once with a
// count) merged into any of them. And the tally itself: each distinct edge
// once with its multiplicity, giving up beyond its limit.
#include "edge_lists.hpp"

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "distopo/distgraph.hpp"
#include "edge_input.hpp"
#include "end_tally.hpp"

namespace {

using distopo::EdgeDirection;
using distopo::EdgeKey;
using distopo::detail::TalliedEnd;

class EdgeLists : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!Kokkos::is_initialized()) Kokkos::initialize();
  }
};

struct Ends {
  std::vector<EdgeKey> single;
  std::vector<TalliedEnd> tallied;
};

// What the lists must be: every end as often as it occurs, sorted.
distopo::DistGraphTopology expected_lists(const Ends& ends, bool weighted) {
  std::vector<EdgeKey> all = ends.single;
  for (const TalliedEnd& end : ends.tallied) all.insert(all.end(), end.count, end.key);
  std::sort(all.begin(), all.end());
  std::vector<int> sources, source_weights, destinations, destination_weights;
  for (const EdgeKey key : all) {
    const bool in = distopo::edge_direction(key) == EdgeDirection::in;
    (in ? sources : destinations).push_back(distopo::edge_rank(key));
    if (weighted) (in ? source_weights : destination_weights).push_back(distopo::edge_weight(key));
  }
  return distopo::DistGraphTopology::copy_of(sources, source_weights, destinations, destination_weights, weighted);
}

#ifdef DISTOPO_SANITIZE
constexpr bool kReallocMoves = true;
#else
constexpr bool kReallocMoves = false;
#endif

// The constructor's order: room taken as the ends arrive (in `batches`
// messages), then the lists written into the keys' memory (single ends only)
// or into the room (with tallied ends), which must not move them.
void expect_lists_like_sorting(Ends ends, bool weighted, const char* what, std::size_t batches = 1) {
  const distopo::DistGraphTopology expected = expected_lists(ends, weighted);
  distopo::detail::ListRoom room(weighted);
  room.prepare();
  distopo::detail::KeyBuffer keys;
  const std::size_t n = ends.single.size();
  for (std::size_t b = 0; b < batches; ++b) {
    const std::size_t first = b * n / batches;
    const std::size_t count = (b + 1) * n / batches - first;
    std::copy_n(ends.single.begin() + static_cast<std::ptrdiff_t>(first), count, keys.append(count));
    ASSERT_EQ(room.add(keys.items().subspan(first)), distopo::detail::Rejection::none) << what;
  }
  ASSERT_EQ(room.add(std::span<const TalliedEnd>(ends.tallied)), distopo::detail::Rejection::none) << what;
  const int* lists_memory = ends.tallied.empty() ? reinterpret_cast<const int*>(keys.data()) : room.buffer();
  const distopo::DistGraphTopology lists = distopo::detail::write_lists(std::move(keys), ends.tallied, std::move(room));
  EXPECT_EQ(lists.sources, expected.sources) << what;
  EXPECT_EQ(lists.destinations, expected.destinations) << what;
  EXPECT_EQ(lists.source_weights, expected.source_weights) << what;
  EXPECT_EQ(lists.destination_weights, expected.destination_weights) << what;
  EXPECT_EQ(lists.weighted, weighted) << what;
  // The lists give back what they do not need with realloc, which glibc
  // does in place; AddressSanitizer's allocator always moves the block.
  if (!kReallocMoves && !expected.sources.empty()) {
    EXPECT_EQ(lists.sources.data(), lists_memory) << what << ": sources moved";
  }
  if (!kReallocMoves && !expected.destinations.empty() && expected.sources.empty()) {
    EXPECT_EQ(lists.destinations.data(), lists_memory) << what << ": destinations moved";
  }
}

// n ends of random direction, rank below `ranks`, weight below `weights`
// (times `weight_step`, so that the weights differ in high bits only).
std::vector<EdgeKey> random_ends(std::mt19937_64& random, std::size_t n, int ranks, int weights, int weight_step = 1) {
  std::vector<EdgeKey> keys(n);
  for (EdgeKey& key : keys) {
    key = distopo::pack_edge(random() % 2 ? EdgeDirection::out : EdgeDirection::in,
                             static_cast<int>(random() % static_cast<unsigned>(ranks)),
                             static_cast<int>(random() % static_cast<unsigned>(weights)) * weight_step);
  }
  return keys;
}

std::vector<TalliedEnd> random_tallies(std::mt19937_64& random, std::size_t n, int ranks, int weights) {
  std::vector<TalliedEnd> tallied;
  for (const EdgeKey key : random_ends(random, n, ranks, weights)) tallied.push_back({key, 1 + random() % 300});
  return tallied;
}

TEST_F(EdgeLists, EveryPathGivesTheSortedLists) {
  std::mt19937_64 random(3);
  for (const bool weighted : {true, false}) {
    const int weight_limit = weighted ? 1 << 30 : 1;
    const auto weights = [&](int w) { return weighted ? w : 1; };
    expect_lists_like_sorting({}, weighted, "nothing");
    expect_lists_like_sorting({random_ends(random, 300, 5, weights(1000)), {}}, weighted, "below 4096: std::sort");
    expect_lists_like_sorting({random_ends(random, 20000, 16, weights(4)), {}}, weighted, "few values: counted");
    expect_lists_like_sorting({random_ends(random, 20000, 8, weight_limit), {}}, weighted,
                              "wide weights: grouped by neighbor, weights radix-sorted");
    expect_lists_like_sorting({random_ends(random, 20000, 8, weights(2000), 1 << 20), {}}, weighted,
                              "weights differing in high bits only");
    expect_lists_like_sorting({random_ends(random, 20000, 250, weight_limit), {}}, weighted,
                              "small groups: std::sort per group");
    expect_lists_like_sorting({random_ends(random, 300000, 4, weight_limit), {}}, weighted,
                              "large groups, both directions interleaved");
    std::vector<EdgeKey> skewed = random_ends(random, 200000, 2, weights(1 << 12));
    for (const EdgeKey key : random_ends(random, 20000, 2, weight_limit)) skewed.push_back(key);
    expect_lists_like_sorting({skewed, {}}, weighted, "large groups, weights crowded at the bottom");
    expect_lists_like_sorting({random_ends(random, 5000, 1 << 20, weight_limit), {}}, weighted,
                              "more neighbors than ends: sorted whole");
    expect_lists_like_sorting({random_ends(random, 20000, 16, weights(4)), random_tallies(random, 40, 16, 4)}, weighted,
                              "counted, with tallies");
    expect_lists_like_sorting({random_ends(random, 20000, 8, weight_limit), random_tallies(random, 40, 8, 1000)},
                              weighted, "wide, with tallies: sorted whole and merged");
    expect_lists_like_sorting({{}, random_tallies(random, 500, 30, 1000)}, weighted, "only tallies");
  }
  // Equal keys single and tallied: the same end, counted together.
  const EdgeKey key = distopo::pack_edge(EdgeDirection::in, 3, 7);
  expect_lists_like_sorting({std::vector<EdgeKey>(5000, key), {{key, 4}, {key, 2}}}, true, "one end everywhere");
}

// Single ends written into their own memory (weighted, more than
// std::sort's share): ties, one end per neighbor (too many neighbors to
// group: sorted whole and rewritten in place), groups already in order, one
// direction empty, keys arriving in several messages, groups whose weights
// take one, two or three radix passes.
TEST_F(EdgeLists, SingleEndsListedInTheirOwnMemory) {
  std::mt19937_64 random(11);
  std::vector<EdgeKey> ties = random_ends(random, 20000, 3, 1 << 30);
  for (std::size_t i = 0; i < 10000; ++i) ties.push_back(ties[random() % ties.size()]);
  expect_lists_like_sorting({ties, {}}, true, "equal ends among distinct ones");
  std::vector<EdgeKey> singles;  // every neighbor with one end, 20000 neighbors
  for (int r = 0; r < 20000; ++r) {
    singles.push_back(distopo::pack_edge(r % 2 ? EdgeDirection::out : EdgeDirection::in, r * 7 % 20000,
                                         static_cast<int>(random() % (1U << 30))));
  }
  expect_lists_like_sorting({singles, {}}, true, "one end per neighbor");
  std::vector<EdgeKey> ordered = random_ends(random, 30000, 8, 1 << 30);
  std::sort(ordered.begin(), ordered.end());
  expect_lists_like_sorting({ordered, {}}, true, "already in order");
  std::vector<EdgeKey> runs = ordered;  // ordered within each of four messages, not across
  std::rotate(runs.begin(), runs.begin() + 12345, runs.end());
  expect_lists_like_sorting({runs, {}}, true, "ordered runs", 4);
  std::vector<EdgeKey> out_only = random_ends(random, 20000, 64, 1 << 30);
  for (EdgeKey& k : out_only) k |= distopo::pack_edge(EdgeDirection::out, 0, 0);
  expect_lists_like_sorting({out_only, {}}, true, "no sources");
  expect_lists_like_sorting({random_ends(random, 20000, 1 << 28, 1 << 30), {}}, true, "wide ranks and weights", 3);
  expect_lists_like_sorting({random_ends(random, 9000, 2, 1 << 5), {}}, true, "few bits: one pass", 2);
  expect_lists_like_sorting({random_ends(random, 9000, 2, 1 << 16), {}}, true, "two digits' width: three passes");
  expect_lists_like_sorting({std::vector<EdgeKey>(6000, distopo::pack_edge(EdgeDirection::out, 5, 9)), {}}, true,
                            "every end the same");
  expect_lists_like_sorting({random_ends(random, 9000, 4, 1 << 30), {}}, true,
                            "room taken for the first message, given back when grouping applies", 3);
}

TEST_F(EdgeLists, GroupedEndsNeedNoRoomBeyondTheirGroups) {
  std::mt19937_64 random(5);
  distopo::detail::ListRoom room(true);
  room.prepare();
  const std::vector<EdgeKey> few = random_ends(random, 1000, 4, 1 << 30);
  ASSERT_EQ(room.add(few), distopo::detail::Rejection::none);
  EXPECT_NE(room.buffer(), nullptr) << "std::sort's share: one int per end, for the weights";
  const std::vector<EdgeKey> more = random_ends(random, 20000, 4, 1 << 30);
  ASSERT_EQ(room.add(more), distopo::detail::Rejection::none);
  EXPECT_TRUE(room.grouped());
  EXPECT_EQ(room.buffer(), nullptr) << "grouped in place: no room for the weights";
  const std::vector<EdgeKey> wide = random_ends(random, 5000, 1 << 20, 1 << 30);
  ASSERT_EQ(room.add(wide), distopo::detail::Rejection::none);
  EXPECT_FALSE(room.grouped());
  EXPECT_NE(room.buffer(), nullptr) << "too many neighbors to group: room again";
}

TEST(ListRoom, RejectsADegreeAboveIntMaxBeforeTakingRoom) {
  distopo::detail::ListRoom room(true);
  const std::vector<TalliedEnd> too_many = {{distopo::pack_edge(EdgeDirection::in, 1, 2), std::uint64_t{1} << 31}};
  EXPECT_EQ(room.add(std::span<const TalliedEnd>(too_many)), distopo::detail::Rejection::degree_overflow);
  EXPECT_EQ(room.buffer(), nullptr) << "no room taken";
}

// ListEdges with a count of the edges visited, to see where a tally stops.
struct CountedWalk {
  distopo::detail::ListEdges edges;
  mutable std::size_t visited = 0;
  template <class Visit>
  void for_each(Visit&& visit) const {
    edges.for_each([&](int source, int destination, int weight) {
      ++visited;
      return visit(source, destination, weight);
    });
  }
};

TEST(EndTally, EachDistinctEdgeOnceWithItsMultiplicity) {
  const int self = 2;
  std::mt19937 random(5);
  std::vector<distopo::Edge> edges;
  for (int i = 0; i < 30000; ++i) {
    edges.push_back({static_cast<int>(random() % 4), static_cast<int>(random() % 6), static_cast<int>(random() % 3)});
  }
  // (owner, key) -> count, as bucketing would send them one by one.
  std::map<std::pair<int, EdgeKey>, std::uint64_t> expected;
  for (const distopo::Edge& e : edges) {
    ++expected[{e.source, distopo::pack_edge(EdgeDirection::out, e.destination, e.weight)}];
    ++expected[{e.destination, distopo::pack_edge(EdgeDirection::in, e.source, e.weight)}];
  }

  distopo::detail::KeyBuffer own;
  const auto tally = distopo::detail::EndTally::of(self, distopo::detail::ListEdges(edges, true), 4 * 6 * 3, own);
  ASSERT_TRUE(tally.has_value());
  std::map<std::pair<int, EdgeKey>, std::uint64_t> got;
  const auto read = [&](int owner, std::span<const EdgeKey> words) {
    ASSERT_TRUE(distopo::detail::is_tally_message(words));
    ASSERT_EQ(words.size() % 2, 0U);
    for (std::size_t i = 0; i < distopo::detail::tallied_end_count(words); ++i) {
      const TalliedEnd end = distopo::detail::tallied_end(words, i);
      EXPECT_EQ(got.count({owner, end.key}), 0U) << "each end once per message";
      got[{owner, end.key}] += end.count;
    }
  };
  read(self, own.items());  // this rank's own ends: the words of a tally message
  for (const auto& message : tally->messages()) {
    EXPECT_NE(message.destination, self);
    read(message.destination, message.payload);
  }
  EXPECT_EQ(got, expected);
}

TEST(EndTally, GivesUpBeyondItsLimitWithoutWalkingOn) {
  std::vector<distopo::Edge> edges;
  for (int i = 0; i < 1000; ++i) edges.push_back({0, 1, i});  // every edge distinct
  distopo::detail::KeyBuffer own;
  const CountedWalk walk{distopo::detail::ListEdges(edges, true)};
  EXPECT_FALSE(distopo::detail::EndTally::of(0, walk, 100, own).has_value());
  EXPECT_EQ(walk.visited, 101U) << "the walk stops at the first edge over the limit";
  EXPECT_EQ(own.size(), 0U);
  EXPECT_TRUE(distopo::detail::EndTally::of(0, walk, 1000, own).has_value()) << "exactly at the limit";
  EXPECT_FALSE(distopo::detail::EndTally::of(0, walk, 0, own).has_value()) << "limit 0: not tried";
}

TEST(EndTally, GivesUpWhenItsFirstEdgesBarelyRepeat) {
  constexpr std::size_t probe = distopo::detail::EndTally::kProbeEdges;
  // `distinct` different edges, the first of them `repeats` times more, then
  // one edge more and the whole again: 2 * (distinct + repeats + 1) edges.
  const auto edges_with = [](std::size_t distinct, std::size_t repeats) {
    std::vector<distopo::Edge> edges;
    for (std::size_t i = 0; i < distinct; ++i) edges.push_back({0, 1, static_cast<int>(i)});
    edges.insert(edges.end(), repeats, edges.front());
    edges.push_back({0, 2, 0});
    edges.insert(edges.end(), edges.begin(), edges.end());
    return edges;
  };
  const auto tally_of = [](const std::vector<distopo::Edge>& edges, std::size_t& visited) {
    const CountedWalk walk{distopo::detail::ListEdges(edges, true)};
    distopo::detail::KeyBuffer own;
    const bool tallied = distopo::detail::EndTally::of(0, walk, 10 * probe, own).has_value();
    visited = walk.visited;
    return tallied;
  };
  std::size_t visited = 0;
  // Half of the probe distinct and then one more new edge, just beyond it:
  // the tally goes on to the end.
  const auto after_probe = edges_with(probe / 2, probe - probe / 2);
  EXPECT_TRUE(tally_of(after_probe, visited));
  EXPECT_EQ(visited, after_probe.size());
  // The same new edge one earlier, as the probe's last edge: more than half
  // of the probe is distinct, and the walk stops at that edge.
  EXPECT_FALSE(tally_of(edges_with(probe / 2, probe - probe / 2 - 1), visited));
  EXPECT_EQ(visited, probe);
  // Every edge distinct: it stops at the (probe / 2 + 1)-th.
  EXPECT_FALSE(tally_of(edges_with(probe, 0), visited));
  EXPECT_EQ(visited, probe / 2 + 1);
}

TEST(EndTally, MessagesOfSingleEndsNeverLookTallied) {
  // The largest key there is: no direction, rank or weight sets bit 63.
  const EdgeKey largest = distopo::pack_edge(EdgeDirection::out, 2147483647, 2147483647);
  const std::vector<EdgeKey> single = {largest};
  EXPECT_FALSE(distopo::detail::is_tally_message(single));
  EXPECT_FALSE(distopo::detail::is_tally_message({}));
}

}  // namespace
