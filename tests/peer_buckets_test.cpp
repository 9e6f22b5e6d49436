// The bucketing of dist_graph_create: every key lands in its owner's message,
// in input order, the keys of this rank in its own buffer; peers in order of
// first appearance. Hundreds of owners make the owner table grow several
// times while slots are handed out.
#include "peer_buckets.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

namespace {

using distopo::EdgeKey;
using distopo::detail::KeyBuffer;
using distopo::detail::PeerBuckets;

struct OwnedKey {
  int owner;
  EdgeKey key;
};

// Emits the input key by key, or (`as_runs`) each stretch of keys with one
// owner as a run: the buckets must be the same.
void expect_grouped_by_owner(int self, const std::vector<OwnedKey>& input, bool as_runs = false) {
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
      own);

  std::map<int, std::vector<EdgeKey>> expected;
  std::vector<int> first_seen;
  for (const OwnedKey& item : input) {
    if (item.owner != self && !expected.contains(item.owner)) first_seen.push_back(item.owner);
    expected[item.owner].push_back(item.key);
  }
  std::vector<EdgeKey> expected_own = {42};
  expected_own.insert(expected_own.end(), expected[self].begin(), expected[self].end());
  EXPECT_EQ(std::vector<EdgeKey>(own.items().begin(), own.items().end()), expected_own);

  const auto messages = buckets.messages();
  ASSERT_EQ(messages.size(), first_seen.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    EXPECT_EQ(messages[i].destination, first_seen[i]);
    EXPECT_EQ(std::vector<EdgeKey>(messages[i].payload.begin(), messages[i].payload.end()), expected[first_seen[i]]);
  }
  EXPECT_FALSE(buckets.oversized_peer().has_value());
}

TEST(PeerBuckets, NoKeys) { expect_grouped_by_owner(0, {}); }

TEST(PeerBuckets, OnlyOwnKeys) { expect_grouped_by_owner(5, {{5, 1}, {5, 2}, {5, 3}}); }

TEST(PeerBuckets, ManyOwnersInRandomOrder) {
  std::mt19937 random(1);
  for (int owners : {3, 17, 300, 5000}) {
    std::vector<OwnedKey> input;
    for (EdgeKey key = 0; key < 20000; ++key) {
      // Sparse, large rank numbers: the table must not be indexed by rank.
      input.push_back({static_cast<int>(random() % static_cast<unsigned>(owners)) * 40009 % 2000003, key});
    }
    expect_grouped_by_owner(input[7].owner, input);
  }
}

TEST(PeerBuckets, RunsOfOneOwnerGoLikeSingleKeys) {
  std::mt19937 random(2);
  std::vector<OwnedKey> input;
  for (EdgeKey key = 0; key < 20000;) {
    const int owner = static_cast<int>(random() % 37U) * 1009;
    // Runs of 1 to 300 keys, the same owner often in several runs.
    for (std::size_t n = 1 + random() % 300; n > 0 && key < 20000; --n) input.push_back({owner, key++});
  }
  expect_grouped_by_owner(input[0].owner, input, true);
  expect_grouped_by_owner(1009 * 36 + 1, input, true);  // an owner that has no keys
}

}  // namespace
