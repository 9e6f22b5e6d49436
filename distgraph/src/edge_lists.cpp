#include "edge_lists.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <memory>
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
  ListWriter(int* lists, std::size_t ends, bool weighted)
      : ranks_(lists), weights_(weighted ? lists + ends : nullptr) {}

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

// Groups smaller than this sort their weights with std::sort.
constexpr std::size_t kMinWeightsToRadix = 256;
using Counters = std::array<std::uint32_t, std::size_t{1} << kMaxDigitBits>;

// One neighbor's weights sorted by LSD passes over the bits [low, low +
// width), the only bits in which weights differ at all.
struct WeightSort {
  unsigned low = 0;
  unsigned width = 0;

  // Passes for a group of `m` weights (0: std::sort, or nothing to do).
  [[nodiscard]] unsigned passes(std::size_t m) const {
    if (m < kMinWeightsToRadix || width == 0) return 0;
    return (width + digit_bits() - 1) / digit_bits();
  }
  [[nodiscard]] unsigned digit_bits() const { return digit_bits_for(width); }

  // The m weights at `from` sorted into `into`; `from` is the scratch of
  // the passes after the first (they alternate), and a result that ends
  // there is copied over.
  void operator()(int* from, int* into, std::size_t m) const {
    const unsigned count = passes(m);
    if (count == 0) {
      std::copy_n(from, m, into);
      std::sort(into, into + m);
      return;
    }
    const unsigned bits = digit_bits();
    const std::uint32_t mask = (std::uint32_t{1} << bits) - 1;
    int* const scratch = from;
    int* to = into;
    Counters offsets;
    for (unsigned pass = 0; pass < count; ++pass) {
      const unsigned shift = low + pass * bits;
      const auto digit = [=](int weight) { return (static_cast<std::uint32_t>(weight) >> shift) & mask; };
      std::fill_n(offsets.begin(), std::size_t{1} << bits, 0);
      for (std::size_t i = 0; i < m; ++i) ++offsets[digit(from[i])];
      std::uint32_t running = 0;
      for (std::size_t d = 0; d < (std::size_t{1} << bits); ++d) running += std::exchange(offsets[d], running);
      for (std::size_t i = 0; i < m; ++i) to[offsets[digit(from[i])]++] = from[i];
      from = to;
      to = to == into ? scratch : into;
    }
    if (from != into) std::copy_n(from, m, into);
  }
};

// The weighted single ends `keys` made into their lists in their own memory
// (`lists`, the same bytes), with `groups` (two words per (direction, rank)
// value and one more) as the only room: the keys are grouped by neighbor in
// place (counted, then each moved to its group's next place, swapping out
// the key there: the high digit of the sort, needing no scratch), their
// weights packed towards the front (weight i lands at or before key i,
// already read), and each group's weights sorted on their own, in cache,
// from the front half into the back half, the weights' list, the front
// half being the scratch. The ranks fill the front half last. A group
// already in order, or of one end, is copied, not sorted.
void write_grouped(std::span<EdgeKey> keys, const KeyBits& bits, std::span<std::uint32_t> groups_room, int* lists) {
  const std::size_t n = keys.size();
  const EdgeKey varying = bits.any() ^ bits.all();
  const VaryingBits neighbor_bits(bits.all() & kNeighborBits, varying & kNeighborBits);
  const std::size_t groups = std::size_t{1} << neighbor_bits.width();
  std::uint32_t* const start = groups_room.data();  // groups + 1
  std::uint32_t* const next = start + groups + 1;   // groups
  const auto group = [=](EdgeKey key) { return static_cast<std::size_t>(neighbor_bits.pack(key)); };
  std::fill_n(start, groups + 1, 0);
  for (const EdgeKey key : keys) ++start[group(key) + 1];
  for (std::size_t g = 0; g < groups; ++g) {
    start[g + 1] += start[g];
    next[g] = start[g];
  }
  for (std::size_t g = 0; g < groups; ++g) {
    while (next[g] < start[g + 1]) {
      EdgeKey key = keys[next[g]];
      for (std::size_t to = group(key); to != g; to = group(key)) std::swap(key, keys[next[to]++]);
      keys[next[g]++] = key;
    }
  }
  int* const front = lists;
  int* const back = lists + n;
  for (std::size_t i = 0; i < n; ++i) front[i] = edge_weight(keys[i]);

  WeightSort sort;
  if (const EdgeKey weight_varying = varying & kWeightBits; weight_varying != 0) {
    sort.low = static_cast<unsigned>(std::countr_zero(weight_varying));
    sort.width = static_cast<unsigned>(std::bit_width(weight_varying)) - sort.low;
  }
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t first = start[g];
    const std::size_t m = start[g + 1] - first;
    if (std::is_sorted(front + first, front + first + m)) {
      std::copy_n(front + first, m, back + first);
    } else {
      sort(front + first, back + first, m);
    }
  }
  for (std::size_t g = 0; g < groups; ++g) {
    std::fill_n(front + start[g], start[g + 1] - start[g], edge_rank(neighbor_bits.unpack(g)));
  }
}

// Sorted keys turned into the lists in the same memory: the weights go to
// `weights` first (room for one int per key; unweighted: null), then the
// ranks are packed towards the front (rank i lands at or before key i, which
// has been read), then the weights follow them.
void lists_in_place(std::span<const EdgeKey> keys, int* weights) {
  const std::size_t n = keys.size();
  if (weights != nullptr) {
    for (std::size_t i = 0; i < n; ++i) weights[i] = edge_weight(keys[i]);
  }
  auto* const ranks = reinterpret_cast<int*>(const_cast<EdgeKey*>(keys.data()));
  for (std::size_t i = 0; i < n; ++i) ranks[i] = edge_rank(keys[i]);
  if (weights != nullptr) std::copy_n(weights, n, ranks + n);
}

struct Free {
  void operator()(int* block) const { std::free(block); }
};

}  // namespace

// With tallied ends, the lists are written into the room (they can hold far
// more ends than were received) and the tallies merged in: equal keys are
// the same end, so their order does not matter. With single ends only, the
// lists take the keys' memory: weighted ends are grouped by neighbor with
// their weights sorted per group (or the keys sorted whole and rewritten in
// place where there are too many neighbors to count); ends of few distinct
// values, weighted or not, are counted (never moved) and written over the
// keys.
DistGraphTopology write_lists(KeyBuffer keys, std::span<TalliedEnd> tallied, ListRoom room) {
  const bool weighted = room.weighted();
  const std::size_t in = room.indegree();
  const std::size_t out = room.outdegree();
  const std::size_t ends = in + out;
  const KeyBits bits = room.bits();
  DistGraphBuffer buffer = room.take();
  std::span<EdgeKey> single = keys.items();
  if (!tallied.empty()) {
    ListWriter writer(buffer.data(), ends, weighted);
    std::sort(tallied.begin(), tallied.end(), [](const TalliedEnd& a, const TalliedEnd& b) { return a.key < b.key; });
    auto next = tallied.begin();
    const bool counted = for_each_counted_key(single, bits, [&](EdgeKey key, std::size_t count) {
      for (; next != tallied.end() && next->key <= key; ++next) writer.append(next->key, next->count);
      writer.append(key, count);
    });
    if (!counted) {
      sort_keys(single);
      std::size_t first = 0;
      for (; next != tallied.end(); ++next) {
        const auto until = static_cast<std::size_t>(
            std::upper_bound(single.begin() + static_cast<std::ptrdiff_t>(first), single.end(), next->key) -
            single.begin());
        writer.append_sorted(single.subspan(first, until - first));
        first = until;
        writer.append(next->key, next->count);
      }
      writer.append_sorted(single.subspan(first));
    }
    for (; next != tallied.end(); ++next) writer.append(next->key, next->count);
    return std::move(buffer).finish(in, out, weighted);
  }

  // Single ends only: the keys' block becomes the lists', and the room (if
  // any) is scratch.
  const bool grouped = room.grouped();
  std::vector<std::uint32_t> group_starts = room.take_group_starts();
  const std::unique_ptr<int, Free> weights(buffer.release());
  const std::size_t capacity = keys.capacity();
  buffer.adopt(keys.take_block(), capacity * 2);
  int* const lists = buffer.data();
  if (grouped) {
    write_grouped(single, bits, group_starts, lists);
  } else {
    ListWriter writer(lists, ends, weighted);
    // Counting reads every key before the first value is written.
    if (!for_each_counted_key(single, bits, [&](EdgeKey key, std::size_t count) { writer.append(key, count); })) {
      sort_keys(single);
      lists_in_place(single, weights.get());
    }
  }
  buffer.shrink_to((weighted ? 2 : 1) * ends);
  return std::move(buffer).finish(in, out, weighted);
}

}  // namespace distopo::detail
