#pragma once
// dist_graph_create's sending side: every edge end of this rank's input,
// packed as an edge key and grouped by the rank that stores it, one message
// per peer. Repeated edges go once with their count (end_tally.hpp) when the
// input repeats; otherwise each end goes alone (peer_buckets.hpp). The outbox
// owns the messages' storage until the exchange is over; ends this rank
// stores itself go straight to its inbox.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "distopo/core/sparse_exchange.hpp"
#include "distopo/distgraph/edge_key.hpp"
#include "edge_input.hpp"
#include "edge_keys.hpp"
#include "end_tally.hpp"
#include "peer_buckets.hpp"

namespace distopo::detail {

class EdgeOutbox {
 public:
  // Below this many edges the tally is not tried: a handful of ends costs
  // less to send one by one than to count.
  static constexpr std::int64_t kMinEdgesToTally = 256;
  // The tally is kept when the distinct edges are at most this share of the
  // edges (a tallied end is two words, a single end one) and at most this
  // many (the table then stays within a few MiB, and giving up costs at most
  // this many insertions).
  static constexpr std::int64_t kEdgesPerTalliedEdge = 8;
  static constexpr std::size_t kMaxTalliedEdges = std::size_t{1} << 16;

  // The ends of `input` (validated, with `extent` from its validation); this
  // rank's own are appended to `own`. Throws std::bad_alloc.
  template <class Input>
  EdgeOutbox(int rank, const Input& input, const InputExtent& extent, KeyBuffer& own)
      : tally_(EndTally::of(rank, input, max_tallied_edges(extent.edges), own)) {
    if (tally_) {
      messages_ = tally_->messages();
      return;
    }
    // A dense owner lookup when the input's ranks span no more than its ends.
    buckets_.emplace(rank, edge_ends(input), own, extent.ranks, 2 * static_cast<std::size_t>(extent.edges));
    messages_ = buckets_->messages();
  }

  // A peer whose message would exceed INT_MAX keys (the limit of one message).
  [[nodiscard]] std::optional<int> oversized_peer() const {
    return buckets_ ? buckets_->oversized_peer() : std::nullopt;
  }

  [[nodiscard]] std::span<const OutgoingMessage<EdgeKey>> messages() const { return messages_; }

 private:
  static std::size_t max_tallied_edges(std::int64_t edges) {
    if (edges < kMinEdgesToTally) return 0;
    return std::min(kMaxTalliedEdges, static_cast<std::size_t>(edges / kEdgesPerTalliedEdge));
  }

  std::optional<EndTally> tally_;
  std::optional<PeerBuckets> buckets_;
  std::vector<OutgoingMessage<EdgeKey>> messages_;  // views into the tally's or the buckets' keys
};

}  // namespace distopo::detail
