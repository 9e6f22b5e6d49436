#pragma once
// Which parts the distributed reordering splits together, so that no rank
// ever splits more than kMaxPartsPerSplit of them: with more parts, they are
// split in nested groups, depth by depth. Depth 0 splits the one group of all
// parts into chunks; each chunk is a group of the next depth; at the last
// depth every group is split into its single parts. Groups and chunks are
// runs of consecutive parts; all groups of one depth split at once, and every
// rank computes them alike, from the part count alone.
#include <cstdint>

namespace distopo::detail {

// The most parts (or chunks) one rank splits a coarse graph into: its coarse
// graph and capacities stay this size whatever P is.
inline constexpr int kMaxPartsPerSplit = 256;

// Parts first .. last-1.
struct PartRun {
  int first = 0;
  int last = 0;
  [[nodiscard]] int count() const { return last - first; }
  bool operator==(const PartRun&) const = default;
};

class NestedSplits {
 public:
  // part_count >= 1.
  explicit NestedSplits(int part_count);

  // The number of depths: the least D with kMaxPartsPerSplit^D >= part_count.
  [[nodiscard]] int depths() const { return depths_; }
  [[nodiscard]] bool last(int depth) const { return depth == depths_ - 1; }
  [[nodiscard]] int part_count() const { return part_count_; }

  // The group of `depth` that holds `part`.
  [[nodiscard]] PartRun group_of(int part, int depth) const;

  // How many chunks `group` splits into at `depth` (at most
  // kMaxPartsPerSplit; its part count at the last depth), and chunk j of it.
  [[nodiscard]] int chunk_count(PartRun group, int depth) const;
  [[nodiscard]] PartRun chunk(PartRun group, int depth, int j) const;
  // The chunk of `group` that holds `part`.
  [[nodiscard]] int chunk_index(PartRun group, int depth, int part) const;

  // The fewest parts any chunk of `depth` has.
  [[nodiscard]] int fewest_parts_per_chunk(int depth) const;
  // The number of groups at `depth`.
  [[nodiscard]] std::int64_t group_count(int depth) const;

 private:
  int part_count_;
  int depths_ = 1;
  int fan_out_;  // chunks per group above the last depth: the least m with m^depths >= part_count
};

}  // namespace distopo::detail
