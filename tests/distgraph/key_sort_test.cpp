#include "distopo/distgraph/key_sort.hpp"

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "distopo/distgraph/edge_key.hpp"

namespace {

class KeySort : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!Kokkos::is_initialized()) Kokkos::initialize();
  }
};

void expect_sorted_like_std(std::vector<std::uint64_t> keys) {
  std::vector<std::uint64_t> expected = keys;
  std::sort(expected.begin(), expected.end());
  distopo::sort_keys(keys);
  EXPECT_EQ(keys, expected);
}

TEST_F(KeySort, EmptyAndSingle) {
  expect_sorted_like_std({});
  expect_sorted_like_std({42});
}

// Small inputs take the comparison sort, larger ones the radix passes: both
// sides of the switch (4096 keys) must agree with std::sort.
TEST_F(KeySort, SizesOnBothSidesOfTheComparisonSortLimit) {
  std::mt19937_64 random(1);
  for (std::size_t n = 0; n < 5000; n += (n < 200 || (n > 4080 && n < 4110)) ? 1 : 97) {
    std::vector<std::uint64_t> keys(n);
    for (auto& key : keys) key = random() % 17 + (random() % 3) * (std::uint64_t{1} << 40);
    expect_sorted_like_std(keys);
  }
}

TEST_F(KeySort, AllEqualKeys) { expect_sorted_like_std(std::vector<std::uint64_t>(5000, 0x1234567890ULL)); }

TEST_F(KeySort, FullWidthRandomKeys) {
  std::mt19937_64 random(2);
  for (std::size_t n : {64UL, 1000UL, 65536UL, 300001UL}) {
    std::vector<std::uint64_t> keys(n);
    for (auto& key : keys) key = random();
    expect_sorted_like_std(keys);
  }
}

// The radix digits are the bits in which keys differ, taken 8 at a time
// wherever they sit: single bits scattered over the word, runs that cross a
// digit's end and the top bit must all sort like std::sort.
TEST_F(KeySort, ScatteredVaryingBits) {
  std::mt19937_64 random(4);
  const std::vector<unsigned> bits = {0, 3, 7, 8, 9, 15, 16, 30, 31, 32, 40, 47, 48, 55, 61, 62, 63};
  for (const std::uint64_t fixed : {std::uint64_t{0}, ~std::uint64_t{0}}) {
    std::vector<std::uint64_t> keys(20000);
    for (auto& key : keys) {
      key = fixed;
      for (unsigned bit : bits) {
        if (random() & 1U) key ^= std::uint64_t{1} << bit;
      }
    }
    expect_sorted_like_std(keys);
  }
  std::vector<std::uint64_t> keys(20000);  // a 12-bit run across bytes, and bit 63
  for (auto& key : keys) key = ((random() & 0xfffU) << 27) | ((random() & 1U) << 63) | 0x5a5a;
  expect_sorted_like_std(keys);
}

TEST_F(KeySort, PackedEdgesWithHubAndOutlierRank) {
  // Skewed input: most ends name a few ranks, one names a huge rank. A
  // range-binned sort degenerates here; the radix sort must not care.
  std::mt19937_64 random(3);
  std::vector<std::uint64_t> keys;
  for (int i = 0; i < 100000; ++i) {
    const auto direction = (i % 2) ? distopo::EdgeDirection::out : distopo::EdgeDirection::in;
    keys.push_back(distopo::pack_edge(direction, static_cast<int>(random() % 8), static_cast<int>(random() % 3)));
  }
  keys.push_back(distopo::pack_edge(distopo::EdgeDirection::in, 2147483647, 2147483647));
  expect_sorted_like_std(keys);
}

// Keys that differ in few bits are counted and rebuilt, not moved. Bits that
// vary in runs apart from each other (here bits 0-1, 7, 33-35 and 63) must be
// packed and unpacked exactly: a wrong mask or offset changes the keys.
TEST_F(KeySort, FewVaryingBitsInScatteredRuns) {
  std::mt19937_64 random(4);
  const std::uint64_t common = 0x00f0'0000'0a00'0000ULL;
  for (std::size_t n : {4097UL, 5000UL, 100000UL}) {
    std::vector<std::uint64_t> keys(n);
    for (auto& key : keys) {
      key = common | (random() & 0x3U) | ((random() & 1U) << 7) | ((random() & 0x7U) << 33) | ((random() & 1U) << 63);
    }
    expect_sorted_like_std(keys);
  }
}

// Packed edges as a rank holds them after the exchange: ranks below 16 and
// weights below 8 (8 varying bits, one counting pass), and the same keys
// already sorted and reversed.
TEST_F(KeySort, PackedEdgesOfSixteenRanks) {
  std::mt19937_64 random(5);
  std::vector<std::uint64_t> keys;
  for (int i = 0; i < 200000; ++i) {
    const auto direction = (random() % 2) ? distopo::EdgeDirection::out : distopo::EdgeDirection::in;
    keys.push_back(distopo::pack_edge(direction, static_cast<int>(random() % 16), static_cast<int>(random() % 8)));
  }
  expect_sorted_like_std(keys);
  std::sort(keys.begin(), keys.end());
  expect_sorted_like_std(keys);
  std::reverse(keys.begin(), keys.end());
  expect_sorted_like_std(keys);
}

// The counting sort takes at most as many counters as keys: 2^13 possible
// values need 8192 keys. Just below, the radix passes run instead; both
// sides must agree with std::sort.
TEST_F(KeySort, BothSidesOfTheCountingSortLimit) {
  std::mt19937_64 random(6);
  for (std::size_t n : {8191UL, 8192UL}) {
    std::vector<std::uint64_t> keys(n);
    for (auto& key : keys) key = (random() & 0x1fffU) << 20;
    keys[0] = 0;
    keys[1] = std::uint64_t{0x1fff} << 20;  // all 13 bits vary
    expect_sorted_like_std(keys);
  }
}

// More varying bits than one digit: 2, 3 and 4 radix passes (an odd count
// leaves the result in the scratch copy, which is copied back).
TEST_F(KeySort, SeveralRadixPassesOverPackedBits) {
  std::mt19937_64 random(7);
  for (unsigned width : {20U, 30U, 40U}) {
    std::vector<std::uint64_t> keys(50000);
    for (auto& key : keys) {
      const std::uint64_t value = random() & ((std::uint64_t{1} << width) - 1);
      key = ((value >> 10) << 24) | (value & 0x3ffU);  // two runs of bits, apart
    }
    expect_sorted_like_std(keys);
  }
}

// for_each_counted_key: the runs of equal keys of the sorted keys where the
// keys take few values (read, never written); nothing where they do not
// (comparison sort below 4096 keys, radix passes for wide keys).
std::vector<std::pair<std::uint64_t, std::size_t>> runs_of(std::vector<std::uint64_t> keys) {
  std::sort(keys.begin(), keys.end());
  std::vector<std::pair<std::uint64_t, std::size_t>> runs;
  for (const std::uint64_t key : keys) {
    if (runs.empty() || runs.back().first != key) runs.emplace_back(key, 0);
    ++runs.back().second;
  }
  return runs;
}

void expect_counted(const std::vector<std::uint64_t>& keys, bool counted) {
  distopo::KeyBits bits;
  for (const std::uint64_t key : keys) bits.add(key);
  std::vector<std::pair<std::uint64_t, std::size_t>> runs;
  const bool visited = distopo::for_each_counted_key(
      keys, bits, [&](std::uint64_t key, std::size_t count) { runs.emplace_back(key, count); });
  EXPECT_EQ(visited, counted) << keys.size() << " keys";
  EXPECT_EQ(runs, counted ? runs_of(keys) : decltype(runs){}) << keys.size() << " keys";
}

TEST_F(KeySort, CountedKeysInOrderWhereTheyTakeFewValues) {
  std::mt19937_64 random(8);
  expect_counted({}, false);
  for (std::size_t n : {100UL, 4096UL, 4097UL, 60000UL}) {
    std::vector<std::uint64_t> edges(n);
    for (auto& key : edges) {
      key = distopo::pack_edge((random() % 2) ? distopo::EdgeDirection::out : distopo::EdgeDirection::in,
                               static_cast<int>(random() % 16), static_cast<int>(1 + random() % 4));
    }
    expect_counted(edges, n > 4096);  // counted above 4096 keys
    std::vector<std::uint64_t> wide(n);
    for (auto& key : wide) key = random() >> 20;  // 44 varying bits: radix passes
    expect_counted(wide, false);
  }
  std::vector<std::uint64_t> singletons(5000);  // 4096 possible values: most occur once or twice
  for (auto& key : singletons) key = (random() & 0xfffU) << 8;
  expect_counted(singletons, true);
  expect_counted(std::vector<std::uint64_t>(10000, 77), true);
}

TEST(EdgeKey, PackingRoundTripsAndOrders) {
  using distopo::EdgeDirection;
  const auto key = distopo::pack_edge(EdgeDirection::out, 2147483647, 2147483647);
  EXPECT_EQ(distopo::edge_direction(key), EdgeDirection::out);
  EXPECT_EQ(distopo::edge_rank(key), 2147483647);
  EXPECT_EQ(distopo::edge_weight(key), 2147483647);
  EXPECT_LT(distopo::pack_edge(EdgeDirection::in, 5, 100), distopo::pack_edge(EdgeDirection::in, 6, 0));
  EXPECT_LT(distopo::pack_edge(EdgeDirection::in, 5, 1), distopo::pack_edge(EdgeDirection::in, 5, 2));
  EXPECT_LT(distopo::pack_edge(EdgeDirection::in, 2147483647, 2147483647),
            distopo::pack_edge(EdgeDirection::out, 0, 0));
}

}  // namespace
