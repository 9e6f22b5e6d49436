// The bucketing of dist_graph_create: every key lands in its owner's message,
// in input order, the keys of this rank in its own buffer; peers in order of
// first appearance. Hundreds of owners make the owner table grow several
// times while slots are handed out.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "peer_buckets.hpp"

namespace {

using distopo::EdgeKey;
using distopo::detail::KeyBuffer;
using distopo::detail::PeerBuckets;

struct OwnedKey {
  int owner;
  EdgeKey key;
};

void expect_grouped_by_owner(int self, const std::vector<OwnedKey>& input) {
  KeyBuffer own;
  own.push_back(42);  // what was there before stays first
  const PeerBuckets buckets(self, [&](auto&& emit) {
    for (const OwnedKey& item : input) emit(item.owner, item.key);
  }, own);

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
    EXPECT_EQ(std::vector<EdgeKey>(messages[i].payload.begin(), messages[i].payload.end()),
              expected[first_seen[i]]);
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

}  // namespace
