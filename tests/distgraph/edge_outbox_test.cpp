// The sending side of dist_graph_create (edge_outbox.hpp): which form a
// rank's ends take, and what going by source sends. A large scattered input
// of long source entries, each meeting few destinations many times, goes by
// source (or every scattered input, or none, as the info key asks): its out-ends only, each in its source's message
// (this rank's own into the inbox), none of its in-ends. The second round:
// the out-ends a source holds, as its own input, become its sorted out-list
// and each destination's run of in-ends in order.
#include "edge_outbox.hpp"

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "edge_inbox.hpp"
#include "edge_input.hpp"
#include "end_messages.hpp"

namespace {

using distopo::EdgeDirection;
using distopo::EdgeKey;
using distopo::detail::ArrayEdges;
using distopo::detail::BySource;
using distopo::detail::EdgeInbox;
using distopo::detail::EdgeOutbox;
using distopo::detail::InputExtent;
using distopo::detail::MessageKind;
using distopo::detail::OwnOutEnds;

constexpr int kSize = 16;

class EdgeOutboxTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!Kokkos::is_initialized()) Kokkos::initialize();
  }
};

using Edge = std::tuple<int, int, int>;  // source, destination, weight

// `n` edges of random sources among kSize ranks and destinations among the
// first `destination_ranks` (each of them named once at least), in source
// entries of `per_entry` edges (the last may hold fewer), weights distinct
// (no end repeats, so no tally).
struct Scattered {
  std::vector<int> sources, degrees, destinations, weights;
  Scattered(int n, unsigned seed, int per_entry = 1, int destination_ranks = kSize) {
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> any_rank(0, kSize - 1);
    std::uniform_int_distribution<int> any_destination(0, destination_ranks - 1);
    for (int i = 0; i < n; ++i) {
      if (i % per_entry == 0) {
        sources.push_back(any_rank(random));
        degrees.push_back(0);
      }
      ++degrees.back();
      destinations.push_back(i < destination_ranks ? i : any_destination(random));
      weights.push_back(static_cast<int>((static_cast<unsigned>(i) * 2654435761U) & 0x3fffffffU));
    }
  }
  [[nodiscard]] ArrayEdges input() const {
    return {
        static_cast<int>(sources.size()), sources.data(), degrees.data(), destinations.data(), weights.data(), true};
  }
  [[nodiscard]] std::vector<Edge> edges() const {
    std::vector<Edge> all;
    std::size_t j = 0;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      for (int k = 0; k < degrees[i]; ++k, ++j) all.emplace_back(sources[i], destinations[j], weights[j]);
    }
    std::sort(all.begin(), all.end());
    return all;
  }
};

template <class Input>
bool goes_by_source(int self, const Input& input, BySource by_source) {
  InputExtent extent;
  EXPECT_FALSE(input.validate(self, kSize, extent).has_value());
  EdgeInbox inbox(kSize, true, false);
  inbox.prepare();
  const EdgeOutbox outbox(self, true, input, extent, inbox, by_source);
  return outbox.went_by_source();
}

// By itself (when_large): from kMinEdgesPerRankBySource edges per rank of
// the communicator (kSize ranks here) in entries of
// kMinEdgesPerEntryBySource on average, whose edges meet each destination
// kMinEndsPerPairBySource times on average (entry degree against the
// destinations' range); an edge list (an entry per edge) stays in one round.
TEST_F(EdgeOutboxTest, ScatteredInputGoesBySourceWhenLargeWithLongEntries) {
  const auto threshold = static_cast<int>(EdgeOutbox::kMinEdgesPerRankBySource) * kSize;
  const auto per_entry = static_cast<int>(EdgeOutbox::kMinEdgesPerEntryBySource);
  const auto per_pair = static_cast<int>(EdgeOutbox::kMinEndsPerPairBySource);
  // Entries of 32 edges to one destination, then of 128 (and 112) to four.
  EXPECT_TRUE(goes_by_source(3, Scattered(threshold, 1, per_pair, 1).input(), BySource::when_large));
  EXPECT_FALSE(goes_by_source(3, Scattered(threshold - per_pair, 1, per_pair, 1).input(), BySource::when_large));
  EXPECT_TRUE(goes_by_source(3, Scattered(threshold, 1, 4 * per_pair, 4).input(), BySource::when_large));
  EXPECT_FALSE(goes_by_source(3, Scattered(threshold, 1, 4 * per_pair - 16, 4).input(), BySource::when_large));
  EXPECT_FALSE(goes_by_source(3, Scattered(threshold, 1, per_entry, kSize).input(), BySource::when_large));
  EXPECT_FALSE(goes_by_source(3, Scattered(threshold, 1, 1, 1).input(), BySource::when_large));
  EXPECT_FALSE(goes_by_source(3, Scattered(threshold, 1, per_pair, 1).input(), BySource::never));
  EXPECT_TRUE(goes_by_source(3, Scattered(20, 2).input(), BySource::always));
}

// A rank's own out-edges are sorted into its list in one round whatever is
// asked: that is what the second round makes of the others.
TEST_F(EdgeOutboxTest, OwnOutEdgesNeverGoBySource) {
  Scattered own(200, 3);
  std::fill(own.sources.begin(), own.sources.end(), 5);
  EXPECT_FALSE(goes_by_source(5, own.input(), BySource::always));
}

TEST_F(EdgeOutboxTest, BySourceSendsOnlyOutEndsEachToItsSource) {
  constexpr int self = 4;
  const Scattered given(500, 4, 3);
  InputExtent extent;
  ASSERT_FALSE(given.input().validate(self, kSize, extent).has_value());
  EdgeInbox inbox(kSize, true, false);
  inbox.prepare();
  const EdgeOutbox outbox(self, true, given.input(), extent, inbox, BySource::always);
  ASSERT_TRUE(outbox.went_by_source());

  std::vector<Edge> sent;
  const auto take = [&](int source, std::span<const EdgeKey> keys) {
    for (const EdgeKey key : keys) {
      EXPECT_EQ(distopo::edge_direction(key), EdgeDirection::out);
      sent.emplace_back(source, distopo::edge_rank(key), distopo::edge_weight(key));
    }
  };
  for (const auto& message : outbox.messages()) {
    EXPECT_EQ(message.kind, static_cast<int>(MessageKind::out_keys_by_source));
    EXPECT_NE(message.destination, self);
    ASSERT_EQ(message.payload.size() % 2, 0U);
    take(message.destination, {reinterpret_cast<const EdgeKey*>(message.payload.data()), message.payload.size() / 2});
  }
  take(self, inbox.by_source());
  std::sort(sent.begin(), sent.end());
  EXPECT_EQ(sent, given.edges());
}

// An entry without edges names no rank to send to, even where its source
// lies outside the range of the sources of edges: the owners' lookup is
// dense over that range when it is narrow (this rank 4: 2 ... 4) and hashed
// otherwise (this rank 10).
TEST_F(EdgeOutboxTest, BySourceSendsNothingForEntriesWithoutEdges) {
  const std::vector<int> sources{15, 2, 0};
  const std::vector<int> degrees{0, 3, 0};
  const std::vector<int> destinations{7, 8, 9};
  const std::vector<int> weights{1, 2, 3};
  const ArrayEdges input(3, sources.data(), degrees.data(), destinations.data(), weights.data(), true);
  for (const int self : {4, 10}) {
    InputExtent extent;
    ASSERT_FALSE(input.validate(self, kSize, extent).has_value());
    EdgeInbox inbox(kSize, true, false);
    inbox.prepare();
    const EdgeOutbox outbox(self, true, input, extent, inbox, BySource::always);
    ASSERT_EQ(outbox.messages().size(), 1U) << "rank " << self;
    EXPECT_EQ(outbox.messages()[0].destination, 2);
    EXPECT_EQ(outbox.messages()[0].payload.size(), 6U);
    EXPECT_TRUE(inbox.by_source().empty());
  }
}

// The second round at a source: what it holds becomes its out-list, sorted by
// (destination, weight), and every other destination gets its in-ends as one
// run from this rank, weights ascending.
TEST_F(EdgeOutboxTest, SecondRoundSendsEachDestinationItsRunInOrder) {
  constexpr int self = 6;
  const Scattered given(3000, 5);
  std::vector<EdgeKey> held;
  for (std::size_t i = 0; i < given.destinations.size(); ++i) {
    held.push_back(distopo::pack_edge(EdgeDirection::out, given.destinations[i], given.weights[i]));
  }
  const OwnOutEnds input(self, held, true);
  InputExtent extent;
  ASSERT_FALSE(input.validate(self, kSize, extent).has_value());
  EdgeInbox inbox(kSize, true, false);
  inbox.prepare();
  const EdgeOutbox outbox(self, true, input, extent, inbox);
  EXPECT_FALSE(outbox.went_by_source());

  std::vector<std::pair<int, int>> expected;  // (destination, weight)
  for (std::size_t i = 0; i < held.size(); ++i) expected.emplace_back(given.destinations[i], given.weights[i]);
  std::sort(expected.begin(), expected.end());
  std::vector<std::pair<int, int>> runs;
  for (const auto& message : outbox.messages()) {
    EXPECT_EQ(message.kind, static_cast<int>(MessageKind::in_run_from_sender));
    EXPECT_TRUE(std::is_sorted(message.payload.begin(), message.payload.end()));
    for (const int weight : message.payload) runs.emplace_back(message.destination, weight);
  }
  for (const auto& [destination, weight] : expected) {
    if (destination == self) runs.emplace_back(destination, weight);  // self-loops stay here
  }
  std::sort(runs.begin(), runs.end());
  EXPECT_EQ(runs, expected);

  const distopo::DistGraphTopology lists = std::move(inbox).lists();
  ASSERT_EQ(lists.destinations.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(lists.destinations[i], expected[i].first);
    EXPECT_EQ(lists.destination_weights[i], expected[i].second);
  }
}

// The second round's out-list sorted in the memory the keys arrived in
// (EdgeInbox::by_source_as_own_list) sends the same messages and makes the
// same lists as the same keys taken as an input of own out-edges: in every
// path of the key sort (few keys; distinct weights among few destinations,
// grouped; repeated ends, counted; unweighted), and with none.
TEST_F(EdgeOutboxTest, SecondRoundListInTheKeysMemoryAsFromItsOwnSort) {
  constexpr int self = 3;
  struct Case {
    const char* name;
    int n;
    int destination_ranks;
    int weight_modulus;  // 0: distinct weights
    bool weighted;
  };
  for (const Case& c :
       {Case{"few", 300, kSize, 0, true}, Case{"grouped", 20000, 6, 0, true}, Case{"counted", 20000, kSize, 5, true},
        Case{"unweighted", 9000, kSize, 0, false}, Case{"none", 0, kSize, 0, true}}) {
    SCOPED_TRACE(c.name);
    const Scattered given(c.n, 17, 1, c.destination_ranks);
    std::vector<EdgeKey> held;
    for (std::size_t i = 0; i < given.destinations.size(); ++i) {
      const int weight = !c.weighted            ? 1
                         : c.weight_modulus > 0 ? given.weights[i] % c.weight_modulus
                                                : given.weights[i];
      held.push_back(distopo::pack_edge(EdgeDirection::out, given.destinations[i], weight));
    }
    const auto receive = [&](EdgeInbox& inbox) {
      inbox.prepare();
      if (!held.empty()) std::copy(held.begin(), held.end(), inbox.by_source_keys().append(held.size()));
    };
    EdgeInbox sorted_apart(kSize, c.weighted, false);
    receive(sorted_apart);
    const OwnOutEnds input(self, sorted_apart.by_source(), c.weighted);
    InputExtent extent;
    ASSERT_FALSE(input.validate(self, kSize, extent).has_value());
    const EdgeOutbox apart(self, c.weighted, input, extent, sorted_apart);
    sorted_apart.release_by_source();

    EdgeInbox sorted_in_place(kSize, c.weighted, false);
    receive(sorted_in_place);
    const EdgeOutbox in_place(self, c.weighted, sorted_in_place.by_source_as_own_list(), sorted_in_place);
    EXPECT_TRUE(sorted_in_place.by_source().empty());
    EXPECT_EQ(in_place.own_verdict(), apart.own_verdict());

    ASSERT_EQ(in_place.messages().size(), apart.messages().size());
    for (std::size_t m = 0; m < apart.messages().size(); ++m) {
      const auto& expected = apart.messages()[m];
      const auto& got = in_place.messages()[m];
      EXPECT_EQ(got.destination, expected.destination);
      EXPECT_EQ(got.kind, expected.kind);
      EXPECT_TRUE(std::equal(got.payload.begin(), got.payload.end(), expected.payload.begin(), expected.payload.end()));
    }
    const distopo::DistGraphTopology expected = std::move(sorted_apart).lists();
    const distopo::DistGraphTopology got = std::move(sorted_in_place).lists();
    EXPECT_EQ(got.destinations, std::vector<int>(expected.destinations));
    EXPECT_EQ(got.destination_weights, std::vector<int>(expected.destination_weights));
    EXPECT_EQ(got.sources, std::vector<int>(expected.sources));
    EXPECT_EQ(got.destinations.size(), held.size());
  }
}

}  // namespace
