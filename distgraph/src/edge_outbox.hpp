#pragma once
// dist_graph_create's sending side: every edge end of this rank's input goes
// to the rank that stores it (end_messages.hpp), in the cheapest form the
// input allows:
// - only its own edges (every source, or every destination, is this rank):
//   sorted once (own_edges.hpp); the list is this rank's, and each neighbor
//   gets its slice of it, in order (runs of one weight where weights repeat);
// - repeated edges: each distinct one once, with its count (end_tally.hpp);
// - edges among few ranks: runs by (owner, direction, neighbor), counted by
//   (source, destination) in a table over the ranks named and filled in one
//   more pass;
// - otherwise: single ends as keys, by owner (peer_buckets.hpp);
// - or, for a large scattered input of long source entries (or where the
//   caller asks): only the out-ends, each to its source, which sorts its list
//   once and sends each destination its in-ends in order in a second round
//   (dist_graph_create.cpp): no rank then sorts in-ends.
// The outbox owns what its messages point to until the exchange is over
// (the own list's slices belong to the inbox); ends this rank stores itself
// go straight to its inbox.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "distopo/core/sparse_exchange.hpp"
#include "edge_inbox.hpp"
#include "edge_input.hpp"
#include "edge_keys.hpp"
#include "end_messages.hpp"
#include "end_tally.hpp"
#include "own_edges.hpp"
#include "peer_buckets.hpp"

namespace distopo::detail {

// When a rank sends its out-ends to their sources only (the first round of a
// create that goes by source).
enum class BySource { never, when_large, always };

class EdgeOutbox {
 public:
  // A scattered input goes by source (when_large) from this many edges per rank
  // of the communicator on (about what each rank's lists then hold: fewer save
  // less sorting than the second round's messages and agreement cost), when its
  // source entries hold at least this many edges on average: an entry's
  // out-ends then travel as one run, and the second round saves every rank the
  // sort of its in-ends. Edge lists (an entry per edge) pay a lookup per edge
  // in either round and touch more memory by source. And only where an entry's
  // edges meet each destination this many times on average (entry degree >=
  // this times the destinations' range): the second round sends a message per
  // (source, destination) pair, which costs more than the sort it saves when
  // the pairs carry a few ends each (simulated: 2.7x slower on 256 ranks at
  // 1000 edges each). docs/design/distgraph-create.md.
  static constexpr std::int64_t kMinEdgesPerRankBySource = std::int64_t{1} << 12;
  static constexpr std::int64_t kMinEdgesPerEntryBySource = 8;
  static constexpr std::int64_t kMinEndsPerPairBySource = 32;
  [[nodiscard]] static bool large_by_source(const InputExtent& extent, int size) {
    if (extent.edges / size < kMinEdgesPerRankBySource) return false;
    // Per entry, by division: edges * destinations * 32 can exceed 64 bits.
    const std::int64_t per_entry = extent.edges / extent.entries;
    const auto destinations = static_cast<std::int64_t>(extent.destinations->size());
    return per_entry >= kMinEdgesPerEntryBySource && per_entry >= kMinEndsPerPairBySource * destinations;
  }
  // Below this many edges the tally is not tried: a handful of ends costs
  // less to send one by one than to count.
  static constexpr std::int64_t kMinEdgesToTally = 256;
  // The tally is kept when the distinct edges are at most this share of the
  // edges (a tallied end is a run header, three ints) and at most this many.
  static constexpr std::int64_t kEdgesPerTalliedEdge = 8;
  static constexpr std::size_t kMaxTalliedEdges = std::size_t{1} << 16;
  // The edges the tally looks at before it gives up on an input that barely
  // repeats: a sixteenth of them, 256 to 4096 (enough to see a thousand
  // distinct edges repeat in large inputs, few insertions for small ones).
  static std::size_t tally_probe(std::int64_t edges) {
    return std::clamp<std::size_t>(static_cast<std::size_t>(edges / 16), 256, EndTally::kProbeEdges);
  }
  // Runs by (owner, direction, neighbor) when there can be at most this many
  // (two per pair of ranks) and at most one per four ends: counters stay in
  // the cache, and runs average enough ends to outweigh their headers.
  static constexpr std::size_t kMaxRunTable = std::size_t{1} << 16;
  static constexpr std::size_t kEndsPerRunEntry = 4;

  // The ends of `input` (validated, with `extent` from its validation);
  // this rank's own go to `inbox`, whose verdict on them is `own_verdict()`.
  // An inbox that holds an own list already takes no other. Throws
  // std::bad_alloc.
  template <class Input>
  EdgeOutbox(int self, bool weighted, const Input& input, const InputExtent& extent, EdgeInbox& inbox,
             BySource by_source = BySource::never) {
    if (extent.edges == 0) return;
    for (const bool out : {true, false}) {
      if (extent.all_edges_at(self, !out) && !inbox.has_own_list()) {
        send_own_list(self, weighted, sort_own_edges(input, extent, out, weighted), inbox);
        return;
      }
    }
    if (by_source == BySource::always) {
      send_by_source(self, input, extent, inbox);
      return;
    }
    if (extent.edges >= kMinEdgesToTally) {
      const auto limit = std::min(kMaxTalliedEdges, static_cast<std::size_t>(extent.edges / kEdgesPerTalliedEdge));
      if (std::optional<EndTally> tally = EndTally::of(input, limit, tally_probe(extent.edges))) {
        send_runs(self, tally->runs(weighted), inbox);
        return;
      }
    }
    if (by_source == BySource::when_large && large_by_source(extent, inbox.size())) {
      send_by_source(self, input, extent, inbox);
      return;
    }
    if (send_run_buckets(self, weighted, input, extent, inbox)) return;
    buckets_.emplace(self, edge_ends(input, extent), inbox.own_keys(), extent.ranks,
                     2 * static_cast<std::size_t>(extent.edges));
    add_key_messages(MessageKind::keys);
    own_verdict_ = inbox.accept_own_keys();
  }

  // This rank's own list, sorted already: each neighbor gets its slice, the
  // inbox the list. Throws std::bad_alloc.
  EdgeOutbox(int self, bool weighted, OwnList list, EdgeInbox& inbox) {
    if (list.ends() > 0) send_own_list(self, weighted, std::move(list), inbox);
  }

  // A peer whose message would exceed INT_MAX ints (the limit of one message).
  [[nodiscard]] std::optional<int> oversized_peer() const { return oversized_; }
  // The inbox's verdict on this rank's own ends.
  [[nodiscard]] Rejection own_verdict() const { return own_verdict_; }

  [[nodiscard]] std::span<const OutgoingMessage<int>> messages() const { return messages_; }
  // Whether the out-ends went to their sources only: their in-ends travel in
  // a second round.
  [[nodiscard]] bool went_by_source() const { return went_by_source_; }

 private:
  void add_message(int destination, std::span<const int> payload, MessageKind kind) {
    messages_.push_back({destination, payload, static_cast<int>(kind)});
  }

  // The own list's slices, each to its neighbor; the list to the inbox.
  void send_own_list(int self, bool weighted, OwnList list, EdgeInbox& inbox);
  // Runs by owner (consecutive), each owner's as one message.
  void send_runs(int self, const std::vector<OwnedRun>& runs, EdgeInbox& inbox);

  // The out-ends, each to its source; this rank's own to the inbox's.
  template <class Input>
  void send_by_source(int self, const Input& input, const InputExtent& extent, EdgeInbox& inbox) {
    buckets_.emplace(self, out_ends(input, extent), inbox.by_source_keys(), extent.sources,
                     static_cast<std::size_t>(extent.edges));
    add_key_messages(MessageKind::out_keys_by_source);
    went_by_source_ = true;
  }
  void add_key_messages(MessageKind kind) {
    for (const OutgoingMessage<EdgeKey>& keys : buckets_->messages()) {
      if (keys.payload.size() > INT_MAX / 2) oversized_ = keys.destination;
      messages_.push_back({keys.destination,
                           {reinterpret_cast<const int*>(keys.payload.data()), 2 * keys.payload.size()},
                           static_cast<int>(kind)});
    }
  }

  template <class Input>
  bool send_run_buckets(int self, bool weighted, const Input& input, const InputExtent& extent, EdgeInbox& inbox);

  std::vector<OutgoingMessage<int>> messages_;
  GrowingBuffer<int> runs_;  // runs messages, one after another
  std::vector<int> counts_;  // the ends of unweighted own slices
  std::optional<PeerBuckets> buckets_;
  std::optional<int> oversized_;
  Rejection own_verdict_ = Rejection::none;
  bool went_by_source_ = false;
};

// A table of (source, destination) pairs over the ranks named, [low, low +
// R): entry (source - low) * R + destination - low. A pair's edges make a run
// of out-ends for the source's owner and a run of in-ends for the
// destination's, of one length and, in input order, the same weights: the
// pairs are counted in one pass, the out-runs filled in another, and each
// in-run copied from its out-run. One message per owner: [runs, headers
// by (direction, neighbor), weights in the headers' order].
template <class Input>
bool EdgeOutbox::send_run_buckets(int self, bool weighted, const Input& input, const InputExtent& extent,
                                  EdgeInbox& inbox) {
  const std::size_t ranks = extent.ranks->size();
  const std::size_t pairs = ranks * ranks;
  if (ranks > kMaxRunTable || 2 * pairs > kMaxRunTable ||
      2 * pairs * kEndsPerRunEntry > 2 * static_cast<std::size_t>(extent.edges)) {
    return false;
  }
  const int low = extent.ranks->low;
  const auto index = [=](int rank) { return static_cast<std::size_t>(rank - low); };
  std::vector<std::uint32_t> counts(pairs, 0);
  input.for_each_edge(extent,
                      [&](int source, int destination, int) { ++counts[index(source) * ranks + index(destination)]; });
  // The runs of `owner` by (direction, neighbor): in-runs (pair neighbor ->
  // owner), then out-runs (pair owner -> neighbor).
  const auto pair_of_run = [=](std::size_t owner, std::size_t within) {
    return within < ranks ? within * ranks + owner : owner * ranks + within - ranks;
  };
  std::vector<std::size_t> message_ints(ranks, 0);
  for (std::size_t owner = 0; owner < ranks; ++owner) {
    std::size_t runs = 0;
    std::size_t ends = 0;
    for (std::size_t within = 0; within < 2 * ranks; ++within) {
      const std::uint32_t count = counts[pair_of_run(owner, within)];
      runs += static_cast<std::size_t>(count > 0);
      ends += count;
    }
    if (runs > 0) message_ints[owner] = 1 + kRunHeaderInts * runs + (weighted ? ends : 0);
  }
  const std::size_t self_index = index(self);
  std::size_t peer_ints = 0;
  for (std::size_t owner = 0; owner < ranks; ++owner) {
    if (owner == self_index) continue;
    if (message_ints[owner] > INT_MAX) oversized_ = low + static_cast<int>(owner);
    peer_ints += message_ints[owner];
  }
  if (oversized_) return true;
  int* const peers = runs_.append(peer_ints);
  int* const own = self_index < ranks && message_ints[self_index] > 0
                       ? inbox.place(self, MessageKind::runs, static_cast<int>(message_ints[self_index]))
                       : nullptr;
  // Headers now; per pair, where its out-run's and its in-run's weights go.
  std::vector<int*> out_run(weighted ? pairs : 0, nullptr);
  std::vector<int*> in_run(weighted ? pairs : 0, nullptr);
  std::size_t next = 0;
  for (std::size_t owner = 0; owner < ranks; ++owner) {
    if (message_ints[owner] == 0) continue;
    int* const message = owner == self_index ? own : peers + next;
    if (owner != self_index) {
      add_message(low + static_cast<int>(owner), {message, message_ints[owner]}, MessageKind::runs);
      next += message_ints[owner];
    }
    int runs = 0;
    int* header = message + 1;
    for (std::size_t within = 0; within < 2 * ranks; ++within) {
      const std::uint32_t count = counts[pair_of_run(owner, within)];
      if (count == 0) continue;
      const bool out = within >= ranks;
      const int neighbor = low + static_cast<int>(within % ranks);
      write_run_header(
          header, {direction_rank(out, neighbor), static_cast<std::int32_t>(count), weighted ? kWeightsFollow : 0});
      header += kRunHeaderInts;
      ++runs;
    }
    message[0] = runs;
    if (!weighted) continue;
    for (std::size_t within = 0; within < 2 * ranks; ++within) {
      const std::size_t pair = pair_of_run(owner, within);
      if (counts[pair] == 0) continue;
      (within >= ranks ? out_run : in_run)[pair] = header;
      header += counts[pair];
    }
  }
  if (weighted) {
    std::vector<int*> cursor = out_run;
    input.for_each_edge(extent, [&](int source, int destination, int weight) {
      *cursor[index(source) * ranks + index(destination)]++ = weight;
    });
    for (std::size_t pair = 0; pair < pairs; ++pair) {
      if (counts[pair] > 0) std::copy_n(out_run[pair], counts[pair], in_run[pair]);
    }
  }
  if (own != nullptr) own_verdict_ = inbox.accept();
  return true;
}

}  // namespace distopo::detail
