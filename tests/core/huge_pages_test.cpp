// A block advised for huge pages keeps its pages when it grows: glibc maps a
// large block on its own and grows it with mremap, which fails, so that
// realloc copies the whole block to fresh pages, when the advice covers only
// part of the mapping (two kinds of pages, two mappings). The hub of a
// distributed graph grows its received ends that way, message by message.
#include "distopo/core/huge_pages.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>

namespace {

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Above glibc's largest mmap threshold (32 MiB on 64-bit), so mapped on its
// own whatever the process freed before.
constexpr std::size_t kBytes = std::size_t{64} << 20;
constexpr std::size_t kMore = std::size_t{8} << 20;

TEST(HugePages, AdvisedBlockGrowsWithoutCopying) {
  auto* block = static_cast<unsigned char*>(std::malloc(kBytes));
  ASSERT_NE(block, nullptr);
  std::memset(block, 7, kBytes);
  distopo::advise_huge_pages(block, kBytes);

  const long before = minor_faults();
  auto* grown = static_cast<unsigned char*>(std::realloc(block, kBytes + kMore));
  const long faults = minor_faults() - before;
  ASSERT_NE(grown, nullptr);
  // Remapped, not copied: a copy faults in every page of the new block
  // (18432 of 4 KiB, or 36 of 2 MiB where all memory is huge pages).
  EXPECT_LT(faults, 8);
  EXPECT_EQ(grown[0], 7);
  EXPECT_EQ(grown[kBytes - 1], 7);
  std::free(grown);
}

TEST(HugePages, SmallAndOddBlocksStayUsable) {
  for (const std::size_t bytes : {std::size_t{1}, std::size_t{4096}, (std::size_t{5} << 20) + 3}) {
    auto* block = static_cast<unsigned char*>(std::malloc(bytes));
    ASSERT_NE(block, nullptr);
    distopo::advise_huge_pages(block, bytes);
    std::memset(block, 1, bytes);
    EXPECT_EQ(block[bytes - 1], 1);
    std::free(block);
  }
}

}  // namespace
