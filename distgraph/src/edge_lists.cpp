#include "edge_lists.hpp"

#include <algorithm>
#include <array>
#include <bit>

#include "radix_parts.hpp"

namespace distopo::detail {
namespace {

// The lists in the buffer's order, [ranks of every end | their weights]: in
// list order the sources come first and the destinations next (the direction
// is a key's highest bit), so position p of the sorted ends is rank p and
// weight ends + p, whatever the direction. Nothing branches on it.
class ListWriter {
 public:
  ListWriter(int* lists, std::size_t ends, bool weighted) : ranks_(lists), weights_(weighted ? lists + ends : nullptr) {}

  // `count` copies of the end `key`, after those written so far.
  void append(EdgeKey key, std::size_t count) {
    std::fill_n(ranks_ + next_, count, edge_rank(key));
    if (weights_ != nullptr) std::fill_n(weights_ + next_, count, edge_weight(key));
    next_ += count;
  }
  // Sorted keys, one by one (no call per key).
  void append_sorted(std::span<const EdgeKey> keys) {
    int* const ranks = ranks_ + next_;
    for (std::size_t i = 0; i < keys.size(); ++i) ranks[i] = edge_rank(keys[i]);
    if (weights_ != nullptr) {
      int* const weights = weights_ + next_;
      for (std::size_t i = 0; i < keys.size(); ++i) weights[i] = edge_weight(keys[i]);
    }
    next_ += keys.size();
  }

 private:
  int* ranks_;
  int* weights_;
  std::size_t next_ = 0;
};

// Widest digit of a radix pass here: 4096 counters of 4 bytes, twice (this
// pass's offsets and the next pass's counts), stay in L1.
constexpr unsigned kMaxListDigitBits = 12;
using Counters = std::array<std::uint32_t, std::size_t{1} << kMaxListDigitBits>;

// The LSD passes over `width` packed bits: an odd number, because they
// alternate between the keys and the list buffer and the last one (which
// writes the lists) must read the keys; each at most kMaxListDigitBits wide
// and as few as that allows.
struct RadixPlan {
  unsigned passes = 0;
  unsigned digit_bits = 0;
  explicit RadixPlan(unsigned width) {
    if (width == 0) return;
    const auto passes_of = [width](unsigned digit) { return (width + digit - 1) / digit; };
    passes = passes_of(kMaxDigitBits);
    if (passes % 2 == 0) passes = passes_of(kMaxListDigitBits) % 2 == 1 ? passes_of(kMaxListDigitBits) : passes + 1;
    digit_bits = (width + passes - 1) / passes;
  }
};

// Exclusive prefix sums of `counts`' first `radix` entries, in place.
void to_offsets(Counters& counts, std::size_t radix) {
  std::uint32_t running = 0;
  for (std::size_t d = 0; d < radix; ++d) running += std::exchange(counts[d], running);
}

// Sorts the single ends `keys` by (direction, rank, weight) into the lists at
// `lists` (room for 2 ints per key: ranks then weights), using the lists'
// memory as 8-byte scratch: an LSD radix sort of only the bits in which the
// keys differ, whose first pass reads the keys, whose passes alternate
// between the list buffer and the keys, and whose last pass writes each
// end's rank and weight to their places in the lists. There is no separate
// grouping pass (the neighbor bits are the high digits of the same sort), no
// copy back, and keys that arrived in order are written in one pass.
void radix_into_lists(std::span<EdgeKey> keys, const KeyBits& bits, int* lists) {
  const std::size_t n = keys.size();
  const VaryingBits packing(bits.all(), bits.any() ^ bits.all());
  const RadixPlan plan(packing.width());
  ListWriter writer(lists, n, true);
  if (plan.passes == 0) {
    writer.append_sorted(keys);
    return;
  }
  const std::uint64_t mask = (std::uint64_t{1} << plan.digit_bits) - 1;
  const std::size_t radix = std::size_t{1} << plan.digit_bits;
  Counters offsets{};
  Counters next_counts{};
  // The first digit's counts, and whether the keys are sorted already (one
  // sender's ends in order): then no pass moves them.
  bool sorted = true;
  EdgeKey previous = 0;
  for (const EdgeKey key : keys) {
    ++offsets[packing.pack(key) & mask];
    sorted = sorted && previous <= key;
    previous = key;
  }
  if (sorted) {
    writer.append_sorted(keys);
    return;
  }
  auto* const scratch = reinterpret_cast<std::uint64_t*>(lists);
  int* const ranks = lists;
  int* const weights = lists + n;
  for (unsigned pass = 0; pass < plan.passes; ++pass) {
    const unsigned shift = pass * plan.digit_bits;
    const bool first = pass == 0;
    const bool last = pass + 1 == plan.passes;
    to_offsets(offsets, radix);
    std::fill_n(next_counts.begin(), radix, 0);
    // Odd passes read the scratch, even ones the keys (packed after the first).
    const std::uint64_t* from = pass % 2 == 0 ? keys.data() : scratch;
    std::uint64_t* to = pass % 2 == 0 ? scratch : keys.data();
    if (last) {
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t packed = first ? packing.pack(from[i]) : from[i];
        const std::uint32_t place = offsets[(packed >> shift) & mask]++;
        const EdgeKey key = packing.unpack(packed);
        ranks[place] = edge_rank(key);
        weights[place] = edge_weight(key);
      }
      return;
    }
    const unsigned next_shift = shift + plan.digit_bits;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t packed = first ? packing.pack(from[i]) : from[i];
      to[offsets[(packed >> shift) & mask]++] = packed;
      ++next_counts[(packed >> next_shift) & mask];
    }
    std::swap(offsets, next_counts);
  }
}

}  // namespace

// Weighted single ends alone take the radix sort into the lists' buffer.
// Otherwise single ends are counted when they take few distinct values
// (never rewritten) and sorted in place when not; tallied ends are merged in:
// equal keys are the same end, so their order does not matter.
DistGraphTopology write_lists(std::span<EdgeKey> keys, std::span<TalliedEnd> tallied, ListRoom room) {
  const bool weighted = room.weighted();
  const std::size_t in = room.indegree();
  const std::size_t out = room.outdegree();
  const KeyBits bits = room.bits();
  DistGraphBuffer buffer = room.take();
  if (tallied.empty() && weighted && keys.size() > kComparisonSortLimit) {
    radix_into_lists(keys, bits, buffer.data());
    return std::move(buffer).finish(in, out, weighted);
  }
  ListWriter writer(buffer.data(), in + out, weighted);
  std::sort(tallied.begin(), tallied.end(), [](const TalliedEnd& a, const TalliedEnd& b) { return a.key < b.key; });
  auto next = tallied.begin();
  const bool counted = for_each_counted_key(keys, bits, [&](EdgeKey key, std::size_t count) {
    for (; next != tallied.end() && next->key <= key; ++next) writer.append(next->key, next->count);
    writer.append(key, count);
  });
  if (!counted) {
    sort_keys(keys);
    std::size_t first = 0;
    for (; next != tallied.end(); ++next) {
      const auto until = static_cast<std::size_t>(
          std::upper_bound(keys.begin() + static_cast<std::ptrdiff_t>(first), keys.end(), next->key) - keys.begin());
      writer.append_sorted(keys.subspan(first, until - first));
      first = until;
      writer.append(next->key, next->count);
    }
    writer.append_sorted(keys.subspan(first));
  }
  for (; next != tallied.end(); ++next) writer.append(next->key, next->count);
  return std::move(buffer).finish(in, out, weighted);
}

}  // namespace distopo::detail
