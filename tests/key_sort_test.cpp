#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <random>
#include <vector>

#include "distopo/distgraph/edge_key.hpp"
#include "distopo/distgraph/key_sort.hpp"

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
