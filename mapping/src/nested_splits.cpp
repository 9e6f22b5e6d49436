#include "nested_splits.hpp"

#include <algorithm>

namespace distopo::detail {
namespace {

// base^exponent, saturating above `limit`.
std::int64_t power_up_to(std::int64_t base, int exponent, std::int64_t limit) {
  std::int64_t result = 1;
  for (int i = 0; i < exponent && result <= limit; ++i) result *= base;
  return result;
}

}  // namespace

NestedSplits::NestedSplits(int part_count) : part_count_(part_count) {
  while (power_up_to(kMaxPartsPerSplit, depths_, part_count_) < part_count_) ++depths_;
  // Equal fan-outs keep the groups of every depth about the same size, so
  // each depth's coarse graphs are about equally fine.
  fan_out_ = 1;
  while (power_up_to(fan_out_, depths_, part_count_) < part_count_) ++fan_out_;
}

int NestedSplits::chunk_count(PartRun group, int depth) const {
  return last(depth) ? group.count() : std::min(fan_out_, group.count());
}

PartRun NestedSplits::chunk(PartRun group, int depth, int j) const {
  const std::int64_t n = group.count();
  const std::int64_t m = chunk_count(group, depth);
  return {group.first + static_cast<int>(j * n / m), group.first + static_cast<int>((j + 1) * n / m)};
}

int NestedSplits::chunk_index(PartRun group, int depth, int part) const {
  // The last j with floor(j n / m) <= part - first.
  const std::int64_t n = group.count();
  const std::int64_t m = chunk_count(group, depth);
  return static_cast<int>(((part - group.first + 1) * m + n - 1) / n - 1);
}

PartRun NestedSplits::group_of(int part, int depth) const {
  PartRun group{0, part_count_};
  for (int d = 0; d < depth; ++d) group = chunk(group, d, chunk_index(group, d, part));
  return group;
}

int NestedSplits::fewest_parts_per_chunk(int depth) const {
  if (last(depth)) return 1;
  // Chunks of chunks of n parts have at least floor(n / m^(depth+1)) parts.
  return static_cast<int>(std::max<std::int64_t>(1, part_count_ / power_up_to(fan_out_, depth + 1, part_count_)));
}

std::int64_t NestedSplits::group_count(int depth) const {
  return std::min<std::int64_t>(part_count_, power_up_to(fan_out_, depth, part_count_));
}

}  // namespace distopo::detail
