#pragma once
// Edge keys grouped by the rank that stores them, as the messages of one
// sparse exchange: one contiguous run per peer (peers in order of first
// appearance), the keys for this rank kept apart. dist_graph_create sends
// every edge end to its owner this way (edge_ends); dist_graph_create_adjacent's
// consistency check sends every out-edge to its destination.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "distopo/core/sparse_exchange.hpp"
#include "distopo/distgraph/edge_key.hpp"
#include "edge_input.hpp"
#include "edge_keys.hpp"

namespace distopo::detail {

// Slot of each owner, in order of first appearance: an open-addressing table
// of (owner, slot) sized by the owners seen, probed linearly. Bucketing looks
// up every key, often of a random owner: std::unordered_map's node walk was
// the largest part of bucketing a million edges, and remembering the last
// owner only added a mispredicted branch where owners alternate (the two ends
// of each edge).
class HashedSlots {
 public:
  // Inlined: it runs once or twice per edge.
  [[gnu::always_inline]] std::uint32_t slot(int owner) {
    Entry* entry = find(owner);
    if (entry->owner < 0) [[unlikely]]
      entry = insert(owner);
    return entry->slot;
  }
  std::vector<int> take_owners() { return std::move(owners_); }

 private:
  struct Entry {
    int owner = -1;          // -1: free
    std::uint32_t slot = 0;  // below the number of ranks
  };

  // The entry of `owner`, or the free entry where it belongs.
  [[gnu::always_inline]] Entry* find(int owner) {
    const std::size_t mask = table_.size() - 1;
    // Fibonacci hashing: ranks are often consecutive, their products are not.
    std::size_t i = (static_cast<std::size_t>(static_cast<unsigned>(owner)) * 0x9E3779B97F4A7C15ULL) >> shift_;
    while (table_[i].owner != owner && table_[i].owner >= 0) i = (i + 1) & mask;
    return &table_[i];
  }

  Entry* insert(int owner) {
    if (2 * (owners_.size() + 1) > table_.size()) {
      std::vector<Entry> old = std::exchange(table_, std::vector<Entry>(2 * table_.size()));
      shift_ -= 1;
      for (const Entry& entry : old) {
        if (entry.owner >= 0) *find(entry.owner) = entry;
      }
    }
    Entry* entry = find(owner);
    *entry = {owner, static_cast<std::uint32_t>(owners_.size())};
    owners_.push_back(owner);
    return entry;
  }

  static constexpr unsigned kInitialBits = 4;
  std::vector<Entry> table_ = std::vector<Entry>(std::size_t{1} << kInitialBits);
  unsigned shift_ = 64 - kInitialBits;
  std::vector<int> owners_;
};

// The same as an array indexed by owner - low: for a range of owners no wider
// than the keys are many (memory O(input), never O(P)), a lookup is one load
// where hashing costs a multiplication and a probe loop.
class DenseSlots {
 public:
  explicit DenseSlots(RankRange range) : low_(range.low), slots_(range.size(), kNoSlot) {}

  [[gnu::always_inline]] std::uint32_t slot(int owner) {
    std::uint32_t& slot = slots_[static_cast<std::size_t>(owner - low_)];
    if (slot == kNoSlot) [[unlikely]] {
      slot = static_cast<std::uint32_t>(owners_.size());
      owners_.push_back(owner);
    }
    return slot;
  }
  std::vector<int> take_owners() { return std::move(owners_); }

 private:
  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
  int low_;
  std::vector<std::uint32_t> slots_;
  std::vector<int> owners_;
};

class PeerBuckets {
 public:
  // `for_each_key(emit)` calls emit(owner, key) for every key, or
  // emit.run(owner, n, key_at) for n keys key_at(0 ... n-1) of one owner
  // (its slot looked up once). It runs twice (count, then fill) and must
  // emit the same keys both times. Keys whose owner is `self` are appended
  // to `own`: `self` takes slot 0 and is filled like any peer, so the
  // per-key loops have no branch on the owner.
  // `owners`, when known, bounds the owners of the keys: a range no wider
  // than `max_dense` is looked up densely.
  template <class ForEachKey>
  PeerBuckets(int self, const ForEachKey& for_each_key, KeyBuffer& own, std::optional<RankRange> owners = std::nullopt,
              std::size_t max_dense = 0) {
    // The lookup lives only while bucketing: its memory is gone before the
    // exchange, whose peak heap per rank is what dist_graph_create is judged by.
    if (owners) owners = owners->with({self, self});
    dense_lookup_ = owners && owners->size() <= std::min(max_dense, kMaxDenseOwners);
    if (dense_lookup_) {
      DenseSlots slots(*owners);
      bucket(self, for_each_key, own, slots);
    } else {
      HashedSlots slots;
      bucket(self, for_each_key, own, slots);
    }
  }

  // Whether owners were looked up in a dense array (or hashed).
  [[nodiscard]] bool dense_lookup() const { return dense_lookup_; }

  // A peer whose message would exceed INT_MAX keys (the limit of one message).
  [[nodiscard]] std::optional<int> oversized_peer() const {
    for (std::size_t peer = 0; peer < peers_.size(); ++peer) {
      if (offsets_[peer + 1] - offsets_[peer] > static_cast<std::size_t>(INT_MAX)) return peers_[peer];
    }
    return std::nullopt;
  }

  [[nodiscard]] std::vector<OutgoingMessage<EdgeKey>> messages() const {
    std::vector<OutgoingMessage<EdgeKey>> messages;
    messages.reserve(peers_.size());
    for (std::size_t peer = 0; peer < peers_.size(); ++peer) {
      messages.push_back({peers_[peer], keys_.items().subspan(offsets_[peer], offsets_[peer + 1] - offsets_[peer])});
    }
    return messages;
  }

 private:
  // Dense lookups take at most 256 KiB, which stays in the cache.
  static constexpr std::size_t kMaxDenseOwners = std::size_t{1} << 16;

  template <class ForEachKey, class Slots>
  void bucket(int self, const ForEachKey& for_each_key, KeyBuffer& own, Slots& slots) {
    slots.slot(self);
    Counting<Slots> counting{slots, {0}};
    for_each_key(counting);
    const std::vector<std::size_t>& counts = counting.counts;
    std::vector<int> owners = slots.take_owners();
    peers_.assign(owners.begin() + 1, owners.end());
    offsets_.assign(peers_.size() + 1, 0);
    for (std::size_t peer = 0; peer < peers_.size(); ++peer) offsets_[peer + 1] = offsets_[peer] + counts[peer + 1];
    Filling<Slots> filling{slots, std::vector<EdgeKey*>(counts.size())};
    filling.cursor[0] = own.append(counts[0]);
    EdgeKey* const first = keys_.append(offsets_.back());
    for (std::size_t peer = 0; peer < peers_.size(); ++peer) filling.cursor[peer + 1] = first + offsets_[peer];
    for_each_key(filling);
  }

  // The first pass: how many keys each slot gets.
  template <class Slots>
  struct Counting {
    Slots& slots;
    std::vector<std::size_t> counts;
    [[gnu::always_inline]] void run(int owner, std::size_t n, const auto&) {
      const std::uint32_t slot = slots.slot(owner);
      if (slot == counts.size()) [[unlikely]]
        counts.push_back(0);
      counts[slot] += n;
    }
    [[gnu::always_inline]] void operator()(int owner, EdgeKey) { run(owner, 1, 0); }
  };
  // The second pass: each key to its slot's next place.
  template <class Slots>
  struct Filling {
    Slots& slots;
    std::vector<EdgeKey*> cursor;
    [[gnu::always_inline]] void run(int owner, std::size_t n, const auto& key_at) {
      EdgeKey*& next = cursor[slots.slot(owner)];
      for (std::size_t k = 0; k < n; ++k) next[k] = key_at(k);
      next += n;
    }
    [[gnu::always_inline]] void operator()(int owner, EdgeKey key) { *cursor[slots.slot(owner)]++ = key; }
  };

  bool dense_lookup_ = false;
  std::vector<int> peers_;
  std::vector<std::size_t> offsets_;
  KeyBuffer keys_;
};

// Every edge (s, d, w) has two ends: (out, d, w) stored by rank s and
// (in, s, w) stored by rank d. The out-ends of one source entry share their
// owner, so they go as one run (one owner lookup, not one per edge); entries
// of one edge each (`extent`: every edge of a ListEdges, or degrees all 1)
// are walked in one loop over the edges. The visit of a source entry is
// inlined: called for each of a million entries of one edge, it was 15 % of
// bucketing them, and the run's loop 20 %. An entry without edges names no
// owner (its source may lie outside the range of the sources of edges, which
// a dense lookup covers). Without `kInEnds`, the out-ends alone (the first
// round of a create that goes by source).
template <bool kInEnds, class Input>
auto ends_of(const Input& input, const InputExtent& extent) {
  return [&input, &extent](auto&& emit) {
    if (extent.single_edge_entries) {
      input.for_each_edge(
          extent, [&](int source, int destination, int weight) __attribute__((always_inline)) {
            emit(source, pack_edge(EdgeDirection::out, destination, weight));
            if constexpr (kInEnds) emit(destination, pack_edge(EdgeDirection::in, source, weight));
          });
      return;
    }
    input.for_each_source([&](int source, std::span<const int> destinations,
                              const int* weights) __attribute__((always_inline)) {
      const auto weight = [weights](std::size_t k) { return weights != nullptr ? weights[k] : 1; };
      if (destinations.empty()) return;
      if (destinations.size() == 1) {
        emit(source, pack_edge(EdgeDirection::out, destinations[0], weight(0)));
        if constexpr (kInEnds) emit(destinations[0], pack_edge(EdgeDirection::in, source, weight(0)));
        return;
      }
      emit.run(source, destinations.size(),
               [&](std::size_t k) { return pack_edge(EdgeDirection::out, destinations[k], weight(k)); });
      if constexpr (kInEnds) {
        for (std::size_t k = 0; k < destinations.size(); ++k) {
          emit(destinations[k], pack_edge(EdgeDirection::in, source, weight(k)));
        }
      }
    });
  };
}

// The edge ends of `input`, validated into `extent`.
template <class Input>
auto edge_ends(const Input& input, const InputExtent& extent) {
  return ends_of<true>(input, extent);
}
template <class Input>
auto out_ends(const Input& input, const InputExtent& extent) {
  return ends_of<false>(input, extent);
}

}  // namespace distopo::detail
