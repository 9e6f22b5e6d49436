#pragma once
// A rank that gives only edges of its own (every source is itself: its
// out-edges; or every destination is: its in-edges) sorts them once by
// (neighbor, weight). That is its list of that direction, final. And each
// neighbor's slice of it is exactly that neighbor's run of ends from this
// rank, in order: the out-edge (self, d, w) is the in-end (self, w) at d. One
// sort serves both ends of every edge, and the receivers sort nothing.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>
#include <utility>
#include <vector>

#include "edge_input.hpp"
#include "edge_lists.hpp"
#include "radix_sort.hpp"

namespace distopo::detail {

// One direction of this rank's lists, sorted by (rank, weight), in a block of
// its own: [ranks | weights] (weights only when weighted).
class OwnList {
 public:
  OwnList() = default;
  OwnList(bool out, std::size_t ends, bool weighted) : out_(out), ends_(ends), weighted_(weighted) {
    if (ends == 0) return;
    block_ = static_cast<int*>(std::malloc((weighted ? 2 : 1) * ends * sizeof(int)));
    if (block_ == nullptr) throw std::bad_alloc();
  }
  // Adopts `block` (std::malloc'ed), which holds the list already.
  OwnList(bool out, std::size_t ends, bool weighted, int* block) noexcept
      : out_(out), ends_(ends), weighted_(weighted), block_(block) {}
  OwnList(OwnList&& other) noexcept
      : out_(other.out_),
        ends_(std::exchange(other.ends_, 0)),
        weighted_(other.weighted_),
        block_(std::exchange(other.block_, nullptr)) {}
  OwnList& operator=(OwnList&& other) noexcept {
    std::swap(out_, other.out_);
    std::swap(ends_, other.ends_);
    std::swap(weighted_, other.weighted_);
    std::swap(block_, other.block_);
    return *this;
  }
  ~OwnList() { std::free(block_); }

  [[nodiscard]] bool out() const { return out_; }  // destinations (else sources)
  [[nodiscard]] std::size_t ends() const { return ends_; }
  [[nodiscard]] int* ranks() const { return block_; }
  [[nodiscard]] int* weights() const { return weighted_ ? block_ + ends_ : nullptr; }
  // Hands the block (std::malloc'ed) to the caller.
  [[nodiscard]] int* take_block() { return std::exchange(block_, nullptr); }

 private:
  bool out_ = true;
  std::size_t ends_ = 0;
  bool weighted_ = false;
  int* block_ = nullptr;
};

namespace own_edges {

// visit(neighbor, weight) for every edge of `input` (validated into
// `extent`), whose other end is always this rank (out: the neighbor is the
// destination); weight 0 unless `weighted`.
template <class Input, class Visit>
void for_each_end(const Input& input, const InputExtent& extent, bool out, bool weighted, const Visit& visit) {
  input.for_each_edge(extent, [&](int source, int destination, int weight) {
    visit(out ? destination : source, weighted ? weight : 0);
  });
}

// Sorts (neighbor, weight) keys, packed in as few bits as their ranges need,
// and writes the list in the last pass. `counts`: RadixPlan::counters_for.
template <class Key, class Input>
void sort_into(OwnList& list, const Input& input, const InputExtent& extent, RankRange neighbors, unsigned rank_bits,
               unsigned weight_bits, bool weighted, std::uint32_t* counts) {
  const std::size_t n = list.ends();
  const std::unique_ptr<Key, decltype(&std::free)> keys(static_cast<Key*>(std::malloc(n * sizeof(Key))), &std::free);
  if (!keys) throw std::bad_alloc();
  const int low = neighbors.low;
  const int least_weight = extent.weights.first;
  const Key weight_mask = (Key{1} << weight_bits) - 1;
  const auto each_key = [&](auto&& visit) {
    for_each_end(input, extent, list.out(), weighted, [&](int neighbor, int weight) {
      visit(static_cast<Key>(static_cast<Key>(neighbor - low) << weight_bits) |
            static_cast<Key>(weight - least_weight));
    });
  };
  int* const ranks = list.ranks();
  int* const weights_out = list.weights();
  const auto sink = [&](std::size_t position, Key key) {
    ranks[position] = low + static_cast<int>(key >> weight_bits);
    if (weighted) weights_out[position] = least_weight + static_cast<int>(key & weight_mask);
  };
  // The list's block holds n keys (two ints each when weighted; keys of one
  // int otherwise) and is written only by the last pass.
  radix_sort<Key>(n, rank_bits + weight_bits, each_key, reinterpret_cast<Key*>(list.ranks()), keys.get(), sink, counts);
}

// Groups the edges by neighbor (counted in a table over the neighbors'
// range, then each weight written to its group's next place), then sorts
// each group's weights on its own, in the caches (on Kokkos' threads where
// it has several), with the list's ranks as scratch; the ranks are written
// last.
template <class Input>
void group_then_sort(OwnList& list, const Input& input, const InputExtent& extent, RankRange neighbors, bool weighted) {
  const int low = neighbors.low;
  std::vector<std::uint32_t> start(neighbors.size() + 1, 0);
  for_each_end(input, extent, list.out(), false,
               [&](int neighbor, int) { ++start[static_cast<std::size_t>(neighbor - low) + 1]; });
  for (std::size_t g = 0; g < neighbors.size(); ++g) start[g + 1] += start[g];
  int* const ranks = list.ranks();
  if (weighted) {
    int* const weights = list.weights();
    std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
    for_each_end(input, extent, list.out(), true,
                 [&](int neighbor, int weight) { weights[next[static_cast<std::size_t>(neighbor - low)]++] = weight; });
    std::size_t largest = 0;
    for (std::size_t g = 0; g < neighbors.size(); ++g)
      largest = std::max<std::size_t>(largest, start[g + 1] - start[g]);
    sort_groups(neighbors.size(), largest, [&](std::size_t g, std::uint32_t* counters) {
      const std::size_t first = start[g];
      const std::size_t count = start[g + 1] - first;
      std::uint32_t any = 0;
      std::uint32_t all = ~std::uint32_t{0};
      for (std::size_t i = first; i < first + count; ++i) {
        any |= static_cast<std::uint32_t>(weights[i]);
        all &= static_cast<std::uint32_t>(weights[i]);
      }
      sort_weights(weights + first, ranks + first, count, any, all, counters);
    });
  }
  for (std::size_t g = 0; g < neighbors.size(); ++g) {
    std::fill(ranks + start[g], ranks + start[g + 1], low + static_cast<int>(g));
  }
}

// A few edges: (neighbor, weight) pairs sorted on the stack.
inline constexpr std::size_t kMaxEdgesOnStack = 64;
template <class Input>
void sort_few(OwnList& list, const Input& input, const InputExtent& extent, bool weighted) {
  std::array<std::uint64_t, kMaxEdgesOnStack> keys;
  std::size_t n = 0;
  for_each_end(input, extent, list.out(), weighted, [&](int neighbor, int weight) {
    keys[n++] =
        static_cast<std::uint64_t>(static_cast<std::uint32_t>(neighbor)) << 32 | static_cast<std::uint32_t>(weight);
  });
  std::sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n));
  for (std::size_t i = 0; i < n; ++i) {
    list.ranks()[i] = static_cast<int>(keys[i] >> 32);
    if (weighted) list.weights()[i] = static_cast<int>(keys[i] & 0xffffffffU);
  }
}

}  // namespace own_edges

// The list of the edges of `input` (validated; every one has this rank as
// its source when `out`, as its destination otherwise), sorted by (neighbor,
// weight): grouped by neighbor first when the neighbors' range is no wider
// than the edges are many (memory O(input)), else sorted as (neighbor,
// weight) keys; a few edges on the stack. Throws std::bad_alloc.
template <class Input>
OwnList sort_own_edges(const Input& input, const InputExtent& extent, bool out, bool weighted) {
  OwnList list(out, static_cast<std::size_t>(extent.edges), weighted);
  if (list.ends() == 0) return list;
  if (list.ends() <= own_edges::kMaxEdgesOnStack) {
    own_edges::sort_few(list, input, extent, weighted);
    return list;
  }
  const RankRange neighbors = out ? *extent.destinations : *extent.sources;
  if (neighbors.size() <= list.ends()) {
    own_edges::group_then_sort(list, input, extent, neighbors, weighted);
    return list;
  }
  const auto rank_bits = static_cast<unsigned>(std::bit_width(static_cast<unsigned>(neighbors.high - neighbors.low)));
  const auto weight_bits =
      weighted
          ? static_cast<unsigned>(std::bit_width(static_cast<unsigned>(extent.weights.second - extent.weights.first)))
          : 0U;
  std::vector<std::uint32_t> counts(RadixPlan::counters_for(list.ends(), rank_bits + weight_bits));
  if (rank_bits + weight_bits <= 32) {
    own_edges::sort_into<std::uint32_t>(list, input, extent, neighbors, rank_bits, weight_bits, weighted,
                                        counts.data());
  } else {
    own_edges::sort_into<std::uint64_t>(list, input, extent, neighbors, rank_bits, weight_bits, weighted,
                                        counts.data());
  }
  return list;
}

}  // namespace distopo::detail
