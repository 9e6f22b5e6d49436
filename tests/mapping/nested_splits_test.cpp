// The nesting of the distributed reordering's splits: at every depth the
// groups cover the parts once, in runs; a group's chunks cover it; a part's
// group at the next depth is its chunk; nobody splits more than
// kMaxPartsPerSplit; and the depth count is the least that allows it.
#include "nested_splits.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>

namespace {

using distopo::detail::kMaxPartsPerSplit;
using distopo::detail::NestedSplits;
using distopo::detail::PartRun;

void expect_consistent(int part_count) {
  SCOPED_TRACE(part_count);
  const NestedSplits splits(part_count);
  std::int64_t reach = kMaxPartsPerSplit;
  for (int d = 1; d < splits.depths(); ++d) reach *= kMaxPartsPerSplit;
  EXPECT_GE(reach, part_count);
  if (splits.depths() > 1) {
    EXPECT_LT(reach / kMaxPartsPerSplit, part_count);
  }

  for (int depth = 0; depth < splits.depths(); ++depth) {
    SCOPED_TRACE(depth);
    std::int64_t groups = 0;
    int fewest = INT_MAX;
    for (int first = 0; first < part_count; ++groups) {
      const PartRun group = splits.group_of(first, depth);
      ASSERT_EQ(group.first, first);
      ASSERT_GT(group.count(), 0);
      const int chunks = splits.chunk_count(group, depth);
      ASSERT_LE(chunks, kMaxPartsPerSplit);
      if (splits.last(depth)) {
        ASSERT_EQ(chunks, group.count());
      }
      int at = group.first;
      for (int j = 0; j < chunks; ++j) {
        const PartRun chunk = splits.chunk(group, depth, j);
        ASSERT_EQ(chunk.first, at);
        ASSERT_GT(chunk.count(), 0);
        fewest = std::min(fewest, chunk.count());
        for (const int part : {chunk.first, chunk.last - 1}) {
          ASSERT_EQ(splits.chunk_index(group, depth, part), j);
          ASSERT_EQ(splits.group_of(part, depth), group);
          if (!splits.last(depth)) {
            ASSERT_EQ(splits.group_of(part, depth + 1), chunk);
          }
        }
        at = chunk.last;
      }
      ASSERT_EQ(at, group.last);
      first = group.last;
    }
    EXPECT_EQ(groups, splits.group_count(depth));
    EXPECT_LE(splits.fewest_parts_per_chunk(depth), fewest);
  }
}

TEST(NestedSplits, OneDepthUpToTheLimit) {
  for (const int k : {1, 2, 3, 64, 255, kMaxPartsPerSplit}) {
    EXPECT_EQ(NestedSplits(k).depths(), 1);
    expect_consistent(k);
  }
}

TEST(NestedSplits, DeeperAboveIt) {
  EXPECT_EQ(NestedSplits(kMaxPartsPerSplit + 1).depths(), 2);
  EXPECT_EQ(NestedSplits(kMaxPartsPerSplit * kMaxPartsPerSplit).depths(), 2);
  EXPECT_EQ(NestedSplits(kMaxPartsPerSplit * kMaxPartsPerSplit + 1).depths(), 3);
  for (const int k : {kMaxPartsPerSplit + 1, 1000, 1024, 4096, 16383, 65536, 65537, 100003}) expect_consistent(k);
}

}  // namespace
