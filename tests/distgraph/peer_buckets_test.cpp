// The bucketing of dist_graph_create: every key lands in its owner's message,
// in input order, the keys of this rank in its own buffer; peers in order of
// first appearance. Hundreds of owners make the owner table grow several
// times while slots are handed out. Every case runs with hashed and with
// dense owner lookups (given the owners' range), which must agree.
#include "peer_buckets.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <vector>

namespace {

using distopo::EdgeKey;
using distopo::detail::KeyBuffer;
using distopo::detail::PeerBuckets;
using distopo::detail::RankRange;

enum class Lookup { hashed, dense };

struct OwnedKey {
  int owner;
  EdgeKey key;
};

// Emits the input key by key, or (`as_runs`) each stretch of keys with one
// owner as a run: the buckets must be the same.
void expect_grouped_by_owner(int self, const std::vector<OwnedKey>& input, Lookup lookup, bool as_runs = false) {
  SCOPED_TRACE(lookup == Lookup::dense ? "dense lookup" : "hashed lookup");
  std::optional<RankRange> owners;
  for (const OwnedKey& item : input) {
    owners = owners ? owners->with({item.owner, item.owner}) : RankRange{item.owner, item.owner};
  }
  const std::size_t max_dense = lookup == Lookup::dense ? std::size_t{1} << 20 : 0;
  KeyBuffer own;
  own.push_back(42);  // what was there before stays first
  const PeerBuckets buckets(
      self,
      [&](auto&& emit) {
        for (std::size_t i = 0; i < input.size();) {
          std::size_t end = i + 1;
          while (as_runs && end < input.size() && input[end].owner == input[i].owner) ++end;
          if (end - i == 1 && !as_runs) {
            emit(input[i].owner, input[i].key);
          } else {
            emit.run(input[i].owner, end - i, [&](std::size_t k) { return input[i + k].key; });
          }
          i = end;
        }
      },
      own, owners, max_dense);

  std::map<int, std::vector<EdgeKey>> expected;
  std::vector<int> first_seen;
  for (const OwnedKey& item : input) {
    if (item.owner != self && !expected.contains(item.owner)) first_seen.push_back(item.owner);
    expected[item.owner].push_back(item.key);
  }
  std::vector<EdgeKey> expected_own = {42};
  expected_own.insert(expected_own.end(), expected[self].begin(), expected[self].end());
  EXPECT_EQ(std::vector<EdgeKey>(own.items().begin(), own.items().end()), expected_own);

  // Dense where asked for and the owners span at most 2^16 ranks.
  const bool small_range = !owners || owners->with({self, self}).size() <= (std::size_t{1} << 16);
  EXPECT_EQ(buckets.dense_lookup(), lookup == Lookup::dense && owners.has_value() && small_range);

  const auto messages = buckets.messages();
  ASSERT_EQ(messages.size(), first_seen.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    EXPECT_EQ(messages[i].destination, first_seen[i]);
    EXPECT_EQ(std::vector<EdgeKey>(messages[i].payload.begin(), messages[i].payload.end()), expected[first_seen[i]]);
  }
  EXPECT_FALSE(buckets.oversized_peer().has_value());
}

class PeerBucketsTest : public testing::TestWithParam<Lookup> {};

TEST_P(PeerBucketsTest, NoKeys) { expect_grouped_by_owner(0, {}, GetParam()); }

TEST_P(PeerBucketsTest, OnlyOwnKeys) { expect_grouped_by_owner(5, {{5, 1}, {5, 2}, {5, 3}}, GetParam()); }

TEST_P(PeerBucketsTest, ManyOwnersInRandomOrder) {
  std::mt19937 random(1);
  for (int owners : {3, 17, 300, 5000}) {
    std::vector<OwnedKey> input;
    for (EdgeKey key = 0; key < 20000; ++key) {
      // Sparse, large rank numbers: the hashed table must not be indexed by
      // rank (the dense one spans them: up to 2 * 10^6 slots).
      input.push_back({static_cast<int>(random() % static_cast<unsigned>(owners)) * 40009 % 2000003, key});
    }
    expect_grouped_by_owner(input[7].owner, input, GetParam());
  }
}

TEST_P(PeerBucketsTest, ConsecutiveOwnersFarFromZero) {
  std::mt19937 random(3);
  std::vector<OwnedKey> input;
  for (EdgeKey key = 0; key < 5000; ++key) input.push_back({1000000 + static_cast<int>(random() % 64U), key});
  expect_grouped_by_owner(1000000 + 17, input, GetParam());
  expect_grouped_by_owner(999990, input, GetParam());   // this rank below the owners' range
  expect_grouped_by_owner(1000100, input, GetParam());  // and above it
}

TEST_P(PeerBucketsTest, RunsOfOneOwnerGoLikeSingleKeys) {
  std::mt19937 random(2);
  std::vector<OwnedKey> input;
  for (EdgeKey key = 0; key < 20000;) {
    const int owner = static_cast<int>(random() % 37U) * 1009;
    // Runs of 1 to 300 keys, the same owner often in several runs.
    for (std::size_t n = 1 + random() % 300; n > 0 && key < 20000; --n) input.push_back({owner, key++});
  }
  expect_grouped_by_owner(input[0].owner, input, GetParam(), true);
  expect_grouped_by_owner(1009 * 36 + 1, input, GetParam(), true);  // an owner that has no keys
}

INSTANTIATE_TEST_SUITE_P(Lookups, PeerBucketsTest, testing::Values(Lookup::hashed, Lookup::dense),
                         [](const testing::TestParamInfo<Lookup>& lookup) {
                           return lookup.param == Lookup::dense ? "Dense" : "Hashed";
                         });

}  // namespace

namespace {

using distopo::detail::ArrayEdges;
using distopo::detail::ListEdges;

// The owners' range and the edge count that dist_graph_create gives the
// bucketing and the tally come from validating the input: every rank named as
// a source or destination, every edge.
distopo::detail::InputExtent validated(const auto& input, int size) {
  distopo::detail::InputExtent extent;
  EXPECT_FALSE(input.validate(0, size, extent).has_value());
  return extent;
}
std::optional<RankRange> validated_ranks(const auto& input, int size) { return validated(input, size).ranks; }

TEST(ValidatedInput, NamesTheRanksOfItsSourcesAndDestinations) {
  const std::vector<int> sources = {5, 2, 7};
  const std::vector<int> degrees = {1, 0, 2};
  const std::vector<int> destinations = {9, 4, 3};
  const std::vector<int> weights = {1, 1, 1};
  const auto arrays =
      validated_ranks(ArrayEdges(3, sources.data(), degrees.data(), destinations.data(), weights.data(), true), 10);
  ASSERT_TRUE(arrays.has_value());
  EXPECT_EQ(arrays->low, 2);  // a source of no edges counts: its slot is looked up
  EXPECT_EQ(arrays->high, 9);
  EXPECT_EQ(arrays->size(), 8U);

  const std::vector<int> lone = {6};
  const std::vector<int> none = {0};
  const auto no_edges = validated_ranks(ArrayEdges(1, lone.data(), none.data(), nullptr, nullptr, false), 10);
  ASSERT_TRUE(no_edges.has_value());
  EXPECT_EQ(no_edges->low, 6);
  EXPECT_EQ(no_edges->high, 6);
  EXPECT_FALSE(validated_ranks(ArrayEdges(0, nullptr, nullptr, nullptr, nullptr, false), 10).has_value());

  const std::vector<distopo::Edge> edges = {{4, 8, 1}, {3, 4, 2}};
  const auto list = validated_ranks(ListEdges(edges, true), 10);
  ASSERT_TRUE(list.has_value());
  EXPECT_EQ(list->low, 3);
  EXPECT_EQ(list->high, 8);
  EXPECT_FALSE(validated_ranks(ListEdges({}, true), 10).has_value());
}

TEST(ValidatedInput, CountsItsEdges) {
  const std::vector<int> sources = {5, 2, 7};
  const std::vector<int> degrees = {1, 0, 2};
  const std::vector<int> destinations = {9, 4, 3};
  EXPECT_EQ(validated(ArrayEdges(3, sources.data(), degrees.data(), destinations.data(), nullptr, false), 10).edges, 3);
  EXPECT_EQ(validated(ArrayEdges(0, nullptr, nullptr, nullptr, nullptr, false), 10).edges, 0);
  const std::vector<distopo::Edge> edges = {{4, 8, 1}, {3, 4, 2}};
  EXPECT_EQ(validated(ListEdges(edges, true), 10).edges, 2);
  EXPECT_EQ(validated(ListEdges({}, true), 10).edges, 0);
}

}  // namespace
