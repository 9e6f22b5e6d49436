// From edge ends to neighbor lists (dist_graph_create's receiving side), in
// every form the ends arrive in: single ends (keys), runs of one direction and
// neighbor (with their weights, in order or not, or of one weight each: a
// tally), runs from their sender, this rank's own sorted list, and mixtures;
// what a rank rejects (a degree above INT_MAX, malformed messages), and that
// a rejected message leaves the rest intact. Also the sorts underneath and
// the tally of repeated edges.
#include "edge_lists.hpp"

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <atomic>
#include <climits>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "distopo/distgraph.hpp"
#include "edge_inbox.hpp"
#include "edge_input.hpp"
#include "end_messages.hpp"
#include "end_tally.hpp"
#include "own_edges.hpp"
#include "radix_sort.hpp"

namespace {

using distopo::EdgeDirection;
using distopo::EdgeKey;
using distopo::detail::EdgeInbox;
using distopo::detail::MessageKind;
using distopo::detail::Rejection;

constexpr int kSize = 1 << 30;  // ranks below this are valid

class EdgeLists : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!Kokkos::is_initialized()) Kokkos::initialize();
  }
};

// One end: direction, neighbor rank, weight.
struct End {
  bool out;
  int rank;
  int weight;
  friend auto operator<=>(const End&, const End&) = default;
};

std::vector<int> ranks_of(const std::vector<End>& ends, bool out) {
  std::vector<int> ranks;
  for (const End& end : ends) {
    if (end.out == out) ranks.push_back(end.rank);
  }
  return ranks;
}
std::vector<int> weights_of(const std::vector<End>& ends, bool out) {
  std::vector<int> weights;
  for (const End& end : ends) {
    if (end.out == out) weights.push_back(end.weight);
  }
  return weights;
}

// The lists must hold every end as often as it occurs, sorted by (rank,
// weight) within each direction.
void expect_lists(distopo::DistGraphTopology lists, std::vector<End> ends, bool weighted, const std::string& what) {
  std::sort(ends.begin(), ends.end());
  EXPECT_EQ(lists.sources, ranks_of(ends, false)) << what;
  EXPECT_EQ(lists.destinations, ranks_of(ends, true)) << what;
  if (weighted) {
    EXPECT_EQ(lists.source_weights, weights_of(ends, false)) << what;
    EXPECT_EQ(lists.destination_weights, weights_of(ends, true)) << what;
  } else {
    EXPECT_TRUE(lists.source_weights.empty() && lists.destination_weights.empty()) << what;
  }
  EXPECT_EQ(lists.weighted, weighted) << what;
}

std::vector<End> random_ends(std::mt19937_64& random, std::size_t n, int ranks, int weights, int weight_step = 1) {
  std::vector<End> ends(n);
  for (End& end : ends) {
    end = {random() % 2 == 1, static_cast<int>(random() % static_cast<unsigned>(ranks)),
           static_cast<int>(random() % static_cast<unsigned>(weights)) * weight_step};
  }
  return ends;
}

// Most ends (about 7 in 8) with rank 0, the rest spread over `ranks`: the
// lists of a skewed graph's hub.
std::vector<End> hub_ends(std::mt19937_64& random, std::size_t n, int ranks, int weights) {
  std::vector<End> ends = random_ends(random, n, ranks, weights);
  for (End& end : ends) {
    if (random() % 8 != 0) end.rank = 0;
  }
  return ends;
}

EdgeKey key_of(const End& end) {
  return distopo::pack_edge(end.out ? EdgeDirection::out : EdgeDirection::in, end.rank, end.weight);
}

// Places `ints` as a message of `kind` from `source` and lets the inbox take it.
Rejection deliver(EdgeInbox& inbox, int source, MessageKind kind, const std::vector<int>& ints) {
  int* at = inbox.place(source, kind, static_cast<int>(ints.size()));
  std::copy(ints.begin(), ints.end(), at);
  return inbox.accept();
}

std::vector<int> keys_message(const std::vector<End>& ends) {
  std::vector<EdgeKey> keys;
  for (const End& end : ends) keys.push_back(key_of(end));
  const auto* ints = reinterpret_cast<const int*>(keys.data());
  return {ints, ints + 2 * keys.size()};
}

// A run: ends of one direction and rank; `one_weight`: sent as a count with
// their common weight (all must be equal).
struct SentRun {
  bool out;
  int rank;
  std::vector<int> weights;
  bool one_weight = false;
};

std::vector<int> runs_message(const std::vector<SentRun>& runs) {
  std::vector<int> message{static_cast<int>(runs.size())};
  for (const SentRun& run : runs) {
    message.push_back(static_cast<int>(distopo::detail::direction_rank(run.out, run.rank)));
    message.push_back(static_cast<int>(run.weights.size()));
    message.push_back(run.one_weight ? run.weights.front() : distopo::detail::kWeightsFollow);
  }
  for (const SentRun& run : runs) {
    if (!run.one_weight) message.insert(message.end(), run.weights.begin(), run.weights.end());
  }
  return message;
}

// The ends as runs: grouped by (direction, rank), each group split in
// `pieces` runs (sorted or not as they come), spread over `messages`.
std::vector<std::vector<SentRun>> as_runs(const std::vector<End>& ends, std::size_t pieces, std::size_t messages) {
  std::map<std::pair<bool, int>, std::vector<int>> groups;
  for (const End& end : ends) groups[{end.out, end.rank}].push_back(end.weight);
  std::vector<std::vector<SentRun>> result(messages);
  std::size_t next = 0;
  for (const auto& [key, weights] : groups) {
    for (std::size_t p = 0; p < pieces; ++p) {
      const std::size_t first = p * weights.size() / pieces;
      const std::size_t last = (p + 1) * weights.size() / pieces;
      if (first == last) continue;
      result[next++ % messages].push_back({key.first, key.second, {weights.begin() + first, weights.begin() + last}});
    }
  }
  return result;
}

TEST_F(EdgeLists, SingleEndsInEveryPathOfTheKeySort) {
  std::mt19937_64 random(3);
  for (const bool weighted : {true, false}) {
    const auto weights = [&](int w) { return weighted ? w : 1; };
    const std::vector<std::pair<std::vector<End>, const char*>> cases = {
        {{}, "nothing"},
        {random_ends(random, 300, 5, weights(1000)), "below 4096: std::sort"},
        {random_ends(random, 20000, 16, weights(4)), "few values: counted"},
        {random_ends(random, 20000, 16, weights(1 << 30)), "wide weights, few neighbors: grouped"},
        {hub_ends(random, 20000, 16, weights(1 << 30)), "one neighbor holds most: grouped"},
        {random_ends(random, 20000, 1 << 20, weights(1 << 30)), "wide: radix-sorted"},
    };
    for (const auto& [ends, what] : cases) {
      EdgeInbox inbox(kSize, weighted, false);
      inbox.prepare();
      for (std::size_t m = 0; m < 3; ++m) {
        const std::vector<End> part(ends.begin() + static_cast<std::ptrdiff_t>(m * ends.size() / 3),
                                    ends.begin() + static_cast<std::ptrdiff_t>((m + 1) * ends.size() / 3));
        ASSERT_EQ(deliver(inbox, static_cast<int>(m), MessageKind::keys, keys_message(part)), Rejection::none);
      }
      expect_lists(std::move(inbox).lists(), ends, weighted, what);
    }
  }
}

// The grouped path on its own: the lists it writes over the keys, and the
// inputs it leaves to the whole sort (too many groups for the keys).
TEST_F(EdgeLists, GroupedKeysWriteSortedListsOverTheKeys) {
  std::mt19937_64 random(11);
  for (const auto& [ends, groups_fit] : std::vector<std::pair<std::vector<End>, bool>>{
           {random_ends(random, 8192, 2, 1 << 30), true},
           {hub_ends(random, 50000, 1000, 1 << 30), true},
           {random_ends(random, 5000, 1000, 100), false},  // 2000 groups, 2.5 keys each
       }) {
    std::vector<EdgeKey> keys;
    distopo::KeyBits bits;
    for (const End& end : ends) {
      keys.push_back(key_of(end));
      bits.add(keys.back());
    }
    std::vector<int> room(keys.size());
    ASSERT_EQ(distopo::detail::write_grouped_keys(keys, bits, room.data()), groups_fit);
    if (!groups_fit) continue;
    std::vector<End> sorted = ends;
    std::sort(sorted.begin(), sorted.end());
    const auto* lists = reinterpret_cast<const int*>(keys.data());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      ASSERT_EQ(lists[i], sorted[i].rank) << i;
      ASSERT_EQ(lists[sorted.size() + i], sorted[i].weight) << i;
    }
  }
}

// A rank's self-loops give it one in-end from itself and one out-end to
// itself each: given `self`, the writers sort the in-list from self once and
// copy it to the out-list. Whatever form the ends come in, the lists match
// those written without `self`; where the two lists cannot be copies (one
// missing, lengths apart, a rank no key names) each is sorted on its own.
TEST_F(EdgeLists, SelfLoopsSortedOnceForBothDirections) {
  std::mt19937_64 random(41);
  // `loops` self-loops of rank `self`, shuffled apart in each direction,
  // beside `others` ends of the ranks in `ranks` (never `self`).
  const auto graph_ends = [&](int self, std::size_t loops, std::size_t others, std::vector<int> ranks) {
    std::vector<End> ends;
    for (std::size_t i = 0; i < loops; ++i) {
      const auto weight = static_cast<int>(random() % (1U << 30));
      ends.push_back({false, self, weight});
      ends.push_back({true, self, weight});
    }
    for (std::size_t i = 0; i < others; ++i) {
      ends.push_back({random() % 2 == 1, ranks[random() % ranks.size()], static_cast<int>(random() % (1U << 30))});
    }
    std::shuffle(ends.begin(), ends.end(), random);
    return ends;
  };
  struct Case {
    std::vector<End> ends;
    int self;
    const char* what;
  };
  std::vector<End> apart = graph_ends(3, 0, 6000, {0, 1, 6});
  for (int i = 0; i < 300; ++i) apart.push_back({false, 3, i});
  for (int i = 0; i < 301; ++i) apart.push_back({true, 3, i});
  std::vector<End> one_way = graph_ends(3, 0, 6000, {0, 1, 6});
  for (int i = 0; i < 300; ++i) one_way.push_back({false, 3, 7 * i});
  const std::vector<Case> cases = {
      {graph_ends(3, 20000, 20000, {0, 1, 2, 4, 7}), 3, "a hub's self-loops beside other ends"},
      {graph_ends(0, 2000, 100, {1}), 0, "rank 0, nearly all self-loops"},
      {graph_ends(2, 100, 8000, {0, 1, 3}), 2, "few self-loops"},
      {apart, 3, "lists to and from self of different lengths"},
      {one_way, 3, "an in-list from self only"},
      {graph_ends(5, 0, 9000, {4, 6}), 5, "self named by no end (packs to rank 4's group)"},
  };
  for (const Case& c : cases) {
    for (const bool runs : {true, false}) {
      const std::string what = std::string(c.what) + (runs ? ", runs" : ", single ends");
      EdgeInbox inbox(kSize, true, false);
      inbox.prepare();
      if (runs) {
        int source = 0;
        for (const std::vector<SentRun>& message : as_runs(c.ends, 3, 4)) {
          ASSERT_EQ(deliver(inbox, source++, MessageKind::runs, runs_message(message)), Rejection::none) << what;
        }
      } else {
        ASSERT_EQ(deliver(inbox, 0, MessageKind::keys, keys_message(c.ends)), Rejection::none) << what;
      }
      expect_lists(std::move(inbox).lists(c.self), c.ends, true, what);
    }
  }
  // The copy is what happens: where the two lists of rank `self` hold
  // different weights (no graph gives them), the out-list is the in-list.
  std::vector<End> unlike = graph_ends(1, 0, 6000, {0, 2});
  for (int i = 0; i < 500; ++i) {
    unlike.push_back({false, 1, 2 * i});
    unlike.push_back({true, 1, 2 * i + 1});
  }
  for (const bool runs : {true, false}) {
    EdgeInbox inbox(kSize, true, false);
    inbox.prepare();
    const std::vector<int> message = runs ? runs_message(as_runs(unlike, 2, 1).front()) : keys_message(unlike);
    ASSERT_EQ(deliver(inbox, 0, runs ? MessageKind::runs : MessageKind::keys, message), Rejection::none);
    const distopo::DistGraphTopology lists = std::move(inbox).lists(1);
    std::vector<int> in_from_self;
    std::vector<int> out_to_self;
    for (std::size_t i = 0; i < lists.sources.size(); ++i) {
      if (lists.sources[i] == 1) in_from_self.push_back(lists.source_weights[i]);
    }
    for (std::size_t i = 0; i < lists.destinations.size(); ++i) {
      if (lists.destinations[i] == 1) out_to_self.push_back(lists.destination_weights[i]);
    }
    EXPECT_EQ(in_from_self.size(), 500U) << (runs ? "runs" : "single ends");
    EXPECT_EQ(out_to_self, in_from_self) << (runs ? "runs" : "single ends");
  }
}

TEST_F(EdgeLists, RunsInEveryShape) {
  std::mt19937_64 random(7);
  for (const bool weighted : {true, false}) {
    const int wide = weighted ? 1 << 30 : 1;
    struct Case {
      std::vector<End> ends;
      std::size_t pieces;
      std::size_t messages;
      const char* what;
    };
    std::vector<End> crowded = random_ends(random, 200000, 2, weighted ? 1 << 12 : 1);
    for (const End& end : random_ends(random, 20000, 2, wide)) crowded.push_back(end);
    const std::vector<Case> cases = {
        {random_ends(random, 100, 3, weighted ? 50 : 1), 1, 1, "one message, small groups"},
        {random_ends(random, 20000, 8, wide), 1, 4, "a piece per group, unsorted"},
        {random_ends(random, 20000, 8, wide), 3, 5, "several pieces per group"},
        {random_ends(random, 20000, 250, wide), 2, 3, "many small groups"},
        {random_ends(random, 1200000, 2, wide), 2, 2, "groups beyond the split-first size"},
        {crowded, 4, 3, "weights crowded at the bottom"},
        {random_ends(random, 20000, 8, weighted ? 2000 : 1, 1 << 20), 2, 2, "weights differing in high bits"},
        {std::vector<End>(6000, End{true, 5, weighted ? 9 : 0}), 3, 2, "every end the same"},
    };
    for (const Case& c : cases) {
      EdgeInbox inbox(kSize, weighted, false);
      inbox.prepare();
      int source = 0;
      for (const std::vector<SentRun>& runs : as_runs(c.ends, c.pieces, c.messages)) {
        ASSERT_EQ(deliver(inbox, source++, MessageKind::runs, runs_message(runs)), Rejection::none) << c.what;
      }
      expect_lists(std::move(inbox).lists(), c.ends, weighted, c.what);
    }
  }
}

TEST_F(EdgeLists, RunsInOrderAndRunsOfOneWeight) {
  std::mt19937_64 random(9);
  // A tally: each group as several runs of one weight each, given out of
  // order; beside them, sorted runs and a run of one weight in one group.
  std::vector<End> ends;
  std::vector<SentRun> tally;
  for (int rank = 0; rank < 5; ++rank) {
    for (const int weight : {4, 1, 3}) {
      const auto count = static_cast<int>(1 + random() % 300);
      tally.push_back({rank % 2 == 0, rank, std::vector<int>(static_cast<std::size_t>(count), weight), true});
      for (int i = 0; i < count; ++i) ends.push_back({rank % 2 == 0, rank, weight});
    }
  }
  std::vector<int> sorted_weights(5000);
  for (int& w : sorted_weights) w = static_cast<int>(random() % (1U << 30));
  std::sort(sorted_weights.begin(), sorted_weights.end());
  for (const int w : sorted_weights) ends.push_back({false, 7, w});
  const std::vector<SentRun> mixed = {{false, 7, sorted_weights}, {false, 1, {2, 2, 2}, true}};
  for (int i = 0; i < 3; ++i) ends.push_back({false, 1, 2});

  EdgeInbox inbox(kSize, true, false);
  inbox.prepare();
  ASSERT_EQ(deliver(inbox, 0, MessageKind::runs, runs_message(tally)), Rejection::none);
  ASSERT_EQ(deliver(inbox, 1, MessageKind::runs, runs_message(mixed)), Rejection::none);
  expect_lists(std::move(inbox).lists(), ends, true, "tallies, sorted runs and their mixture");
}

TEST_F(EdgeLists, RunsFromTheirSender) {
  std::mt19937_64 random(13);
  for (const bool weighted : {true, false}) {
    EdgeInbox inbox(kSize, weighted, false);
    inbox.prepare();
    std::vector<End> ends;
    for (int sender = 9; sender >= 0; --sender) {  // arriving in no particular order
      const bool out = sender % 3 == 0;
      const std::size_t count = 1 + random() % 2000;
      std::vector<int> weights(count);
      for (int& w : weights) w = weighted ? static_cast<int>(random() % 100000) : 1;
      std::sort(weights.begin(), weights.end());
      for (const int w : weights) ends.push_back({out, sender, w});
      const auto kind = out ? MessageKind::out_run_from_sender : MessageKind::in_run_from_sender;
      ASSERT_EQ(deliver(inbox, sender, kind, weighted ? weights : std::vector<int>{static_cast<int>(count)}),
                Rejection::none);
    }
    expect_lists(std::move(inbox).lists(), ends, weighted, weighted ? "weighted" : "unweighted");
  }
}

// This rank's own list, sorted by its outbox, with self-loops among its ends.
distopo::detail::OwnList own_list(const std::vector<End>& own, bool out, bool weighted) {
  distopo::detail::OwnList list(out, own.size(), weighted);
  for (std::size_t i = 0; i < own.size(); ++i) {
    list.ranks()[i] = own[i].rank;
    if (weighted) list.weights()[i] = own[i].weight;
  }
  return list;
}

// The distinct neighbors of a sorted own list.
std::size_t neighbors_of(const std::vector<End>& own) {
  std::size_t neighbors = 0;
  for (std::size_t i = 0; i < own.size(); ++i)
    neighbors += static_cast<std::size_t>(i == 0 || own[i].rank != own[i - 1].rank);
  return neighbors;
}

TEST_F(EdgeLists, OwnListStaysWhereItWasSorted) {
  std::mt19937_64 random(17);
  const int self = 3;
  for (const bool weighted : {true, false}) {
    std::vector<End> own = random_ends(random, 5000, 8, weighted ? 1 << 20 : 1);
    for (End& end : own) end.out = true;
    std::sort(own.begin(), own.end());
    const auto loops = std::equal_range(own.begin(), own.end(), End{true, self, 0},
                                        [](const End& a, const End& b) { return a.rank < b.rank; });
    std::vector<End> ends = own;
    for (auto loop = loops.first; loop != loops.second; ++loop) ends.push_back({false, self, loop->weight});
    // In-ends from two senders, whose out-edges these are (their slices of
    // their own sorted lists).
    std::vector<int> from_one{3};  // unweighted: the number of ends
    std::vector<int> from_two{2};
    if (weighted) {
      from_one = {1, 5, 9};
      from_two = {2, 2};
    }
    for (const int w : {1, 5, 9}) ends.push_back({false, 1, weighted ? w : 1});
    for (int i = 0; i < 2; ++i) ends.push_back({false, 2, weighted ? 2 : 1});

    EdgeInbox inbox(kSize, weighted, false);
    inbox.prepare();
    distopo::detail::OwnList list = own_list(own, true, weighted);
    const int* const block = list.ranks();
    ASSERT_EQ(inbox.adopt_own_list(std::move(list), neighbors_of(own), self,
                                   static_cast<std::size_t>(loops.first - own.begin()),
                                   static_cast<std::size_t>(loops.second - loops.first)),
              Rejection::none);
    ASSERT_EQ(deliver(inbox, 2, MessageKind::in_run_from_sender, from_two), Rejection::none);
    ASSERT_EQ(deliver(inbox, 1, MessageKind::in_run_from_sender, from_one), Rejection::none);
    const distopo::DistGraphTopology lists = std::move(inbox).lists();
    EXPECT_EQ(lists.destinations.data(), block) << "the sorted own list is the record's, not a copy";
    expect_lists(lists, ends, weighted, "own out-list, in-ends received");
  }
}

TEST_F(EdgeLists, OwnListCutWhenOthersAddToItsDirection) {
  std::mt19937_64 random(19);
  std::vector<End> own = random_ends(random, 3000, 6, 1000);
  for (End& end : own) end.out = false;
  std::sort(own.begin(), own.end());
  std::vector<End> ends = own;
  const std::vector<End> more = {{false, 2, 7}, {false, 9, 1}, {true, 4, 4}};
  ends.insert(ends.end(), more.begin(), more.end());
  EdgeInbox inbox(kSize, true, false);
  inbox.prepare();
  ASSERT_EQ(inbox.adopt_own_list(own_list(own, false, true), neighbors_of(own), 100, 0, 0), Rejection::none);
  ASSERT_EQ(
      deliver(inbox, 5, MessageKind::runs, runs_message({{false, 2, {7}}, {false, 9, {1}, true}, {true, 4, {4}}})),
      Rejection::none);
  expect_lists(std::move(inbox).lists(), ends, true, "own in-list merged with received in-ends");
}

TEST_F(EdgeLists, KeysAndRunsTogether) {
  std::mt19937_64 random(23);
  for (const bool weighted : {true, false}) {
    const int weights = weighted ? 1 << 30 : 1;
    const std::vector<End> keys = random_ends(random, 7000, 50, weights);
    const std::vector<End> runs = random_ends(random, 9000, 50, weights);
    std::vector<End> own = random_ends(random, 500, 50, weights);
    for (End& end : own) end.out = true;
    std::sort(own.begin(), own.end());
    std::vector<End> ends = keys;
    ends.insert(ends.end(), runs.begin(), runs.end());
    ends.insert(ends.end(), own.begin(), own.end());
    EdgeInbox inbox(kSize, weighted, false);
    inbox.prepare();
    ASSERT_EQ(inbox.adopt_own_list(own_list(own, true, weighted), neighbors_of(own), 1000, 0, 0), Rejection::none);
    ASSERT_EQ(deliver(inbox, 1, MessageKind::runs, runs_message(as_runs(runs, 2, 1).front())), Rejection::none);
    ASSERT_EQ(deliver(inbox, 2, MessageKind::keys, keys_message(keys)), Rejection::none);
    expect_lists(std::move(inbox).lists(), ends, weighted, "single ends, runs and an own list");
  }
}

TEST_F(EdgeLists, RejectedMessagesLeaveTheRestIntact) {
  EdgeInbox inbox(100, true, false);
  inbox.prepare();
  const std::vector<End> good = {{false, 3, 5}, {true, 4, 1}, {false, 3, 2}};
  ASSERT_EQ(deliver(inbox, 0, MessageKind::runs, runs_message(as_runs(good, 1, 1).front())), Rejection::none);
  const auto run_header = [](std::uint32_t direction_rank, int count, int weight) {
    return std::vector<int>{1, static_cast<int>(direction_rank), count, weight};
  };
  // A run of one weight standing for more ends than an int counts.
  EXPECT_EQ(deliver(inbox, 1, MessageKind::runs, run_header(distopo::detail::direction_rank(false, 3), INT_MAX, 1)),
            Rejection::degree_overflow);
  EXPECT_EQ(deliver(inbox, 1, MessageKind::runs, run_header(distopo::detail::direction_rank(false, 100), 1, 1)),
            Rejection::malformed)
      << "a rank beyond the communicator";
  EXPECT_EQ(deliver(inbox, 1, MessageKind::runs, {2, 0, 1, 1}), Rejection::malformed) << "headers beyond the message";
  EXPECT_EQ(deliver(inbox, 1, MessageKind::runs, run_header(0, 3, distopo::detail::kWeightsFollow)),
            Rejection::malformed)
      << "weights beyond the message";
  std::vector<int> trailing = runs_message({{true, 1, {4}}});
  trailing.push_back(6);
  EXPECT_EQ(deliver(inbox, 1, MessageKind::runs, trailing), Rejection::malformed) << "ints after the last weight";
  EXPECT_EQ(deliver(inbox, 1, MessageKind::runs, run_header(0, -1, 1)), Rejection::malformed) << "negative count";
  EXPECT_EQ(deliver(inbox, 1, MessageKind::runs, {}), Rejection::malformed) << "empty";
  EXPECT_EQ(deliver(inbox, 1, MessageKind::keys, {1, 2, 3}), Rejection::malformed) << "half a key";
  EXPECT_EQ(deliver(inbox, 1, MessageKind::keys, keys_message({{true, 100, 1}})), Rejection::malformed)
      << "a key's rank beyond the communicator";
  EXPECT_EQ(deliver(inbox, 1, static_cast<MessageKind>(5), {1}), Rejection::malformed) << "unknown kind";
  expect_lists(std::move(inbox).lists(), good, true, "after the rejections");
}

TEST_F(EdgeLists, SortWeightsAgreesWithStdSort) {
  std::mt19937_64 random(29);
  std::vector<std::uint32_t> counts(distopo::detail::RadixPlan::kCounters);
  // 600000 and 1600000: above kMinKeysToSplitFirst, the split-then-sort
  // path, with parts of the bucket sort's size and parts above it.
  static_assert(600000 > distopo::detail::kMinKeysToSplitFirst);
  static_assert(600000 / 256 < distopo::detail::kMaxKeysToBucket && 1600000 / 256 > distopo::detail::kMaxKeysToBucket);
  for (const std::size_t n :
       {0UL, 1UL, 2UL, 100UL, 255UL, 256UL, 383UL, 1000UL, 1535UL, 4095UL, 5000UL, 70000UL, 600000UL, 1600000UL}) {
    for (const unsigned bits : {1U, 5U, 12U, 23U, 31U}) {
      for (const unsigned shift : {0U, 7U}) {
        if (bits + shift > 31) continue;
        std::vector<int> weights(n);
        for (int& w : weights) w = static_cast<int>((random() & ((std::uint64_t{1} << bits) - 1)) << shift);
        std::uint32_t any = 0;
        std::uint32_t all = ~std::uint32_t{0};
        for (const int w : weights) {
          any |= static_cast<std::uint32_t>(w);
          all &= static_cast<std::uint32_t>(w);
        }
        std::vector<int> expected = weights;
        std::sort(expected.begin(), expected.end());
        std::vector<int> scratch(n);
        distopo::detail::sort_weights(weights.data(), scratch.data(), n, any, all, counts.data());
        EXPECT_EQ(weights, expected) << "n " << n << " bits " << bits << " shift " << shift;
      }
    }
  }
}

// Wide weights below kMaxKeysToBucket take one bucket pass where they spread,
// the radix passes where more than a few crowd into one bucket. Every shape
// gives std::sort's order.
TEST_F(EdgeLists, BucketedWeightsAgreeWithStdSortWhereverTheyCrowd) {
  std::mt19937 random(31);
  const std::uint32_t wide = (1U << 30) - 1;
  {
    // Fewer than 2 keys: nothing to bucket, nothing written.
    std::vector<std::uint32_t> counts(distopo::detail::RadixPlan::kCounters);
    const std::uint32_t one = 7;
    std::uint32_t out = 0;
    EXPECT_FALSE(distopo::detail::radix::scatter_to_buckets(&one, &out, 1, 0, 30, counts.data(), counts.size()));
    EXPECT_FALSE(distopo::detail::radix::scatter_to_buckets(&one, &out, 0, 0, 30, counts.data(), counts.size()));
    EXPECT_EQ(out, 0U);
  }
  for (const std::size_t n : {200UL, 1000UL, 2048UL, 4095UL}) {
    for (const int crowded_percent : {0, 20, 90, 100}) {
      std::vector<std::uint32_t> keys(n);
      for (std::size_t i = 0; i < n; ++i) {
        // Crowded keys share one bucket (their top bits are all zero); the
        // others spread over 30 bits.
        keys[i] = static_cast<int>(random() % 100) < crowded_percent ? random() % 64 : random() & wide;
      }
      keys.front() = wide;  // the same sorted bits in every shape
      std::vector<std::uint32_t> expected = keys;
      std::sort(expected.begin(), expected.end());
      std::vector<std::uint32_t> scratch(n);
      std::vector<std::uint32_t> counts(distopo::detail::RadixPlan::counters_for(n, 30));
      const std::vector<std::uint32_t> given = keys;
      std::vector<std::uint32_t> bucketed_keys(n, 0);
      const bool bucketed = distopo::detail::radix::scatter_to_buckets(keys.data(), bucketed_keys.data(), n, 0, 30,
                                                                       counts.data(), counts.size());
      if (bucketed) {
        std::vector<std::uint32_t> in_place = bucketed_keys;
        distopo::detail::radix::insert_within_buckets(in_place.data(), in_place.data(), n);
        EXPECT_EQ(in_place, expected) << "in place: n " << n << " crowded " << crowded_percent << "%";
        distopo::detail::radix::insert_within_buckets(bucketed_keys.data(), keys.data(), n);
        EXPECT_EQ(keys, expected) << "n " << n << " crowded " << crowded_percent << "%";
      } else {
        EXPECT_EQ(bucketed_keys, std::vector<std::uint32_t>(n, 0))
            << "declined, yet wrote keys: n " << n << " crowded " << crowded_percent << "%";
      }
      EXPECT_EQ(bucketed, crowded_percent == 0) << "n " << n << " crowded " << crowded_percent << "%";
      keys = given;
      distopo::detail::sort_in_place(keys.data(), scratch.data(), n, 0, 30, counts.data());
      EXPECT_EQ(keys, expected) << "sort_in_place: n " << n << " crowded " << crowded_percent << "%";
    }
  }
}

// With a spare core, large groups are shared between this thread and one
// more: every group sorted exactly once, each with counters no other group
// uses at the same time (checked by sorting with them).
TEST_F(EdgeLists, SortGroupsOnASpareCoreSortsEachGroupOnce) {
  constexpr std::size_t kGroups = 7;
  const std::size_t n = distopo::detail::kMinWeightsForSecondThread;
  std::mt19937_64 random(31);
  std::vector<std::vector<int>> groups(kGroups, std::vector<int>(n));
  for (auto& group : groups) {
    for (int& w : group) w = static_cast<int>(random() & 0x3fffffff);
  }
  std::vector<std::vector<int>> expected = groups;
  for (auto& group : expected) std::sort(group.begin(), group.end());
  std::vector<std::vector<int>> scratch(kGroups, std::vector<int>(n));
  std::vector<std::atomic<int>> calls(kGroups);
  distopo::detail::sort_groups(
      kGroups, n,
      [&](std::size_t g, std::uint32_t* counters) {
        ++calls[g];
        distopo::detail::sort_weights(groups[g].data(), scratch[g].data(), n, 0x3fffffff, 0, counters);
      },
      true);
  for (std::size_t g = 0; g < kGroups; ++g) {
    EXPECT_EQ(calls[g].load(), 1) << "group " << g;
    EXPECT_EQ(groups[g], expected[g]) << "group " << g;
  }
}

TEST_F(EdgeLists, OwnEdgesSortedByNeighborAndWeight) {
  std::mt19937_64 random(31);
  const int self = 2;
  struct Case {
    int ranks;
    int weights;
    std::size_t edges;
    const char* what;
  };
  const std::vector<Case> cases = {
      {4, 1 << 30, 20000, "few neighbors: grouped, then each group's weights sorted"},
      {1 << 24, 1 << 30, 3000, "more neighbors than edges: (neighbor, weight) keys of 64 bits"},
      {1 << 12, 1 << 10, 3000, "more neighbors than edges: keys of 32 bits"},
      {3, 1, 50, "one weight"},
      {5, 1 << 30, 40, "a few edges: sorted on the stack"},
  };
  for (const Case& c : cases) {
    for (const bool out : {true, false}) {
      for (const bool weighted : {true, false}) {
        std::vector<distopo::Edge> edges;
        std::vector<End> expected;
        for (std::size_t i = 0; i < c.edges; ++i) {
          const int other = static_cast<int>(random() % static_cast<unsigned>(c.ranks));
          const int weight = weighted ? static_cast<int>(random() % static_cast<unsigned>(c.weights)) : 1;
          edges.push_back({out ? self : other, out ? other : self, weight});
          expected.push_back({out, other, weight});
        }
        const distopo::detail::ListEdges input(edges, weighted);
        distopo::detail::InputExtent extent;
        ASSERT_FALSE(input.validate(self, c.ranks + self + 1, extent).has_value());
        distopo::detail::OwnList list = distopo::detail::sort_own_edges(input, extent, out, weighted);
        std::sort(expected.begin(), expected.end());
        ASSERT_EQ(list.ends(), expected.size());
        EXPECT_EQ(std::vector<int>(list.ranks(), list.ranks() + list.ends()), ranks_of(expected, out)) << c.what;
        if (weighted) {
          EXPECT_EQ(std::vector<int>(list.weights(), list.weights() + list.ends()), weights_of(expected, out))
              << c.what;
        }
      }
    }
  }
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
  std::mt19937 random(5);
  std::vector<distopo::Edge> edges;
  for (int i = 0; i < 30000; ++i) {
    edges.push_back({static_cast<int>(random() % 4), static_cast<int>(random() % 6), static_cast<int>(random() % 3)});
  }
  // (owner, direction, rank, weight) -> count, as the ends would go one by one.
  std::map<std::tuple<int, bool, int, int>, std::int64_t> expected;
  for (const distopo::Edge& e : edges) {
    ++expected[{e.source, true, e.destination, e.weight}];
    ++expected[{e.destination, false, e.source, e.weight}];
  }
  const auto tally = distopo::detail::EndTally::of(distopo::detail::ListEdges(edges, true), 4 * 6 * 3);
  ASSERT_TRUE(tally.has_value());
  std::map<std::tuple<int, bool, int, int>, std::int64_t> got;
  int owner = -1;
  for (const distopo::detail::OwnedRun& owned : tally->runs(true)) {
    EXPECT_GE(owned.owner, owner) << "grouped by owner";
    owner = owned.owner;
    const distopo::detail::RunHeader& run = owned.run;
    const std::tuple<int, bool, int, int> end{owned.owner, distopo::detail::is_out(run.direction_rank),
                                              distopo::detail::rank_of(run.direction_rank), run.weight};
    EXPECT_EQ(got.count(end), 0U) << "each end once";
    got[end] += run.count;
  }
  EXPECT_EQ(got, expected);
}

TEST(EndTally, GivesUpBeyondItsLimitWithoutWalkingOn) {
  std::vector<distopo::Edge> edges;
  for (int i = 0; i < 1000; ++i) edges.push_back({0, 1, i});  // every edge distinct
  const CountedWalk walk{distopo::detail::ListEdges(edges, true)};
  EXPECT_FALSE(distopo::detail::EndTally::of(walk, 100).has_value());
  EXPECT_EQ(walk.visited, 101U) << "the walk stops at the first edge over the limit";
  EXPECT_TRUE(distopo::detail::EndTally::of(walk, 1000).has_value()) << "exactly at the limit";
  EXPECT_FALSE(distopo::detail::EndTally::of(walk, 0).has_value()) << "limit 0: not tried";
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
    const bool tallied = distopo::detail::EndTally::of(walk, 10 * probe).has_value();
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

}  // namespace
