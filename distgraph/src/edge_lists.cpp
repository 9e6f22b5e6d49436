#include "edge_lists.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <new>
#include <vector>

#include "radix_parts.hpp"

namespace distopo::detail {
namespace {

// An edge key is direction | rank | weight (edge_key.hpp): the bits above the
// weight say which list and which neighbor.
constexpr EdgeKey kWeightBits = 0x7fffffffU;
constexpr EdgeKey kNeighborBits = ~kWeightBits;

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

// Whether `keys` are in ascending order (one sender's ends, in order).
bool ascending(std::span<const EdgeKey> keys) {
  bool sorted = true;
  for (std::size_t i = 1; i < keys.size(); ++i) sorted &= keys[i - 1] <= keys[i];
  return sorted;
}

// The weighted single ends `keys`, more neighbors than write_grouped counts:
// an LSD radix sort of whole keys on the bits in which they differ, into the
// lists at `lists` (room for 2 ints per key: ranks then weights), with the
// lists' memory as 8-byte scratch. Its passes alternate between the list
// buffer and the keys, and the last writes each end's rank and weight to
// their places, so nothing is allocated and nothing copied back.
void radix_into_lists(std::span<EdgeKey> keys, const KeyBits& bits, int* lists) {
  const std::size_t n = keys.size();
  const VaryingBits packing(bits.all(), bits.any() ^ bits.all());
  const RadixPlan plan(packing.width());
  ListWriter writer(lists, n, true);
  if (plan.passes == 0 || ascending(keys)) {
    writer.append_sorted(keys);
    return;
  }
  const std::uint64_t mask = (std::uint64_t{1} << plan.digit_bits) - 1;
  const std::size_t radix = std::size_t{1} << plan.digit_bits;
  Counters offsets{};
  Counters next_counts{};
  for (const EdgeKey key : keys) ++offsets[packing.pack(key) & mask];
  auto* const scratch = reinterpret_cast<std::uint64_t*>(lists);
  int* const ranks = lists;
  int* const weights = lists + n;
  for (unsigned pass = 0; pass < plan.passes; ++pass) {
    const unsigned shift = pass * plan.digit_bits;
    const bool first = pass == 0;
    to_offsets(offsets, radix);
    // Even passes read the keys (packed after the first), odd ones the scratch.
    const std::uint64_t* from = pass % 2 == 0 ? keys.data() : scratch;
    std::uint64_t* to = pass % 2 == 0 ? scratch : keys.data();
    if (pass + 1 == plan.passes) {
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t packed = first ? packing.pack(from[i]) : from[i];
        const std::uint32_t place = offsets[(packed >> shift) & mask]++;
        const EdgeKey key = packing.unpack(packed);
        ranks[place] = edge_rank(key);
        weights[place] = edge_weight(key);
      }
      return;
    }
    std::fill_n(next_counts.begin(), radix, 0);
    const unsigned next_shift = shift + plan.digit_bits;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t packed = first ? packing.pack(from[i]) : from[i];
      to[offsets[(packed >> shift) & mask]++] = packed;
      ++next_counts[(packed >> next_shift) & mask];
    }
    std::swap(offsets, next_counts);
  }
}

// Groups smaller than this sort their weights with std::sort.
constexpr std::size_t kMinWeightsToRadix = 256;

// How one neighbor's weights are sorted: LSD passes over the bits [low, low +
// width) in which weights differ at all.
struct WeightSort {
  unsigned low = 0;
  unsigned width = 0;
  // Passes a group of `m` weights takes (0: std::sort or nothing to do).
  [[nodiscard]] unsigned passes(std::size_t m) const {
    if (m < kMinWeightsToRadix || width == 0) return 0;
    const unsigned digit_bits = digit_bits_for(width);
    return (width + digit_bits - 1) / digit_bits;
  }
  // Sorts the m weights at `weights`, with room for m at `scratch`: the
  // passes alternate, so with passes(m) odd the result is at `scratch`,
  // otherwise at `weights`.
  void operator()(int* weights, int* scratch, std::size_t m) const {
    if (passes(m) == 0) {
      std::sort(weights, weights + m);
      return;
    }
    const unsigned digit_bits = digit_bits_for(width);
    const std::uint32_t mask = (std::uint32_t{1} << digit_bits) - 1;
    Counters offsets;
    int* from = weights;
    int* to = scratch;
    for (unsigned shift = low; shift < low + width; shift += digit_bits) {
      const auto digit = [=](int weight) { return (static_cast<std::uint32_t>(weight) >> shift) & mask; };
      std::fill_n(offsets.begin(), std::size_t{1} << digit_bits, 0);
      for (std::size_t i = 0; i < m; ++i) ++offsets[digit(from[i])];
      to_offsets(offsets, std::size_t{1} << digit_bits);
      for (std::size_t i = 0; i < m; ++i) to[offsets[digit(from[i])]++] = from[i];
      std::swap(from, to);
    }
  }
};

// The weighted single ends grouped by neighbor ((direction, rank): the
// first digit of the sort, counted in one pass), then each group's weights
// sorted on their own, in cache. The scatter writes each group's weights
// where its sort starts so that the sort ends in the weights' list: in the
// ranks' half of the buffer (free until the ranks are filled last) when the
// group takes an odd number of passes, in the weights' half otherwise. A
// group already in order, or of one weight, is not sorted. False (nothing
// written) where it does not apply: more (direction, rank) values than are
// counted.
bool write_grouped(std::span<const EdgeKey> keys, const KeyBits& bits, int* lists) {
  const std::size_t n = keys.size();
  const EdgeKey varying = bits.any() ^ bits.all();
  const VaryingBits neighbor_bits(bits.all() & kNeighborBits, varying & kNeighborBits);
  if (!countable(n, neighbor_bits.width())) return false;
  const std::size_t groups = std::size_t{1} << neighbor_bits.width();
  std::vector<std::size_t> start;
  std::vector<int*> cursor;
  try {
    start.assign(groups + 1, 0);
    cursor.resize(groups);
  } catch (const std::bad_alloc&) {
    return false;
  }
  const auto group = [=](EdgeKey key) { return static_cast<std::size_t>(neighbor_bits.pack(key)); };
  for (const EdgeKey key : keys) ++start[group(key) + 1];
  for (std::size_t g = 0; g < groups; ++g) start[g + 1] += start[g];
  const EdgeKey weight_varying = varying & kWeightBits;
  WeightSort sort;
  if (weight_varying != 0) {
    sort.low = static_cast<unsigned>(std::countr_zero(weight_varying));
    sort.width = static_cast<unsigned>(std::bit_width(weight_varying)) - sort.low;
  }
  int* const ranks = lists;
  int* const weights = lists + n;
  for (std::size_t g = 0; g < groups; ++g) {
    cursor[g] = (sort.passes(start[g + 1] - start[g]) % 2 == 1 ? ranks : weights) + start[g];
  }
  for (const EdgeKey key : keys) *cursor[group(key)]++ = edge_weight(key);
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t m = start[g + 1] - start[g];
    if (m < 2) continue;
    const bool odd = sort.passes(m) % 2 == 1;
    int* const placed = (odd ? ranks : weights) + start[g];
    if (std::is_sorted(placed, placed + m)) {
      if (odd) std::copy_n(placed, m, weights + start[g]);
      continue;
    }
    sort(placed, (odd ? weights : ranks) + start[g], m);
  }
  for (std::size_t g = 0; g < groups; ++g) {
    std::fill_n(ranks + start[g], start[g + 1] - start[g], edge_rank(neighbor_bits.unpack(g)));
  }
  return true;
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
    if (!write_grouped(keys, bits, buffer.data())) radix_into_lists(keys, bits, buffer.data());
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
