#pragma once
// Sparse data exchange with the NBX algorithm (Hoefler, Siebert, Lumsdaine,
// PPoPP'10): every rank knows whom it sends to, nobody knows who sends to it.
// Sends + probe loop + a non-blocking agreement that a rank enters once all of
// its messages were received (confirmed by an acknowledgement per message).
// O(peers) messages, O(log P) agreement, and no array of size P anywhere.
//
// The exchange owns its communicator while it runs: the loop probes for any
// source and any tag, so the communicator must carry no other point-to-point
// traffic meanwhile (collectives on it are fine: they never match
// point-to-point messages). private_channel() hands out such communicators.
// Back-to-back exchanges must alternate between two communicators: a rank
// whose agreement completes first may send its next-round message while a
// peer is still draining this round. No rank gets two rounds ahead (that needs
// every rank in the next agreement), so two are enough.
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <span>
#include <type_traits>
#include <vector>

#include "distopo/core/error.hpp"

namespace distopo {

template <class T>
struct OutgoingMessage {
  int destination;
  std::span<const T> payload;  // at most INT_MAX elements
  // What the payload is, for receivers that take several formats: it travels
  // as the message's tag, so the receiver knows it before placing the message.
  int kind = 0;
};

// Kinds are 0 ... kMaxMessageKinds - 1.
inline constexpr int kMaxMessageKinds = 8;

// How an exchange's messages travel. Direct: each straight to its receiver
// (NBX). Node-aware: a rank with many messages for other machine nodes
// gathers them on its node first: one rank of the node sends them on as one
// message per pair of nodes, handed out on arrival (node_aware_exchange.cpp).
// Nodes are blocks of `ranks_per_node` consecutive ranks (the last may be
// smaller).
struct ExchangeRoute {
  int ranks_per_node = 0;  // 0: direct
  // A rank gathers its messages for other nodes when it has at least this
  // many; else they go directly.
  std::size_t gather_min = 32;
  // The channel of the relayed messages, made (collectively) the first time
  // a node-aware exchange has something to relay: only once the exchange's
  // agreement has shown every rank on the same route.
  std::function<MPI_Comm()> relay_channel;
  // Set where node-aware was asked for but the nodes are still to be found:
  // this exchange goes direct, and if every rank asked the same, each calls
  // this (collective) after it, so that the next exchange on the channel
  // knows the nodes. Ranks that did not ask all fail with RouteMismatch.
  std::function<void()> find_nodes;
  [[nodiscard]] bool node_aware() const { return ranks_per_node > 0; }
};

// What selects the route of dist_graph_create's exchange: "auto" (the
// default), "direct" or "node_aware"; the info key wins over the variable.
inline constexpr const char* kExchangeInfoKey = "distopo_exchange";
inline constexpr const char* kExchangeEnv = "DISTOPO_EXCHANGE";
// The node-aware route's gather_min (a positive integer), to tune it.
inline constexpr const char* kGatherMinInfoKey = "distopo_exchange_gather_min";
inline constexpr const char* kGatherMinEnv = "DISTOPO_EXCHANGE_GATHER_MIN";

// The route that `info` (distopo_exchange, distopo_ranks_per_node, may be
// MPI_INFO_NULL) or else the environment (DISTOPO_EXCHANGE,
// DISTOPO_RANKS_PER_NODE) selects for exchanges on `channel`. Node-aware
// needs nodes of consecutive ranks: declared (what Slurm's block
// distribution gives, or an emulation on one machine), or, with node_aware
// alone, found with MPI_Comm_split_type (shared memory) during the first
// exchange on the channel, which goes direct (ExchangeRoute::find_nodes),
// and kept only when they are consecutive blocks of one size. "auto" is
// node-aware where the nodes are declared, else direct; so is node_aware
// where the nodes are not such blocks, or with one rank per node, or one
// node. Local: ranks given different settings find out in the exchange
// (RouteMismatch, on every rank). Throws MPI_ERR_ARG for a value it does not
// know.
ExchangeRoute exchange_route(MPI_Comm channel, MPI_Info info = MPI_INFO_NULL);

namespace detail {
struct RawMessage {
  int destination;
  const void* data;
  int count;
  int kind;
};
// Returns where a message of `count` elements and `kind` from `source` is to
// be received.
using PlaceFn = std::function<void*(int source, int kind, int count)>;
// Called once the message is in place; returns the verdict sent back to the
// sender with the acknowledgement (0: accepted; never INT_MIN, which the
// exchange reserves for a dropped message).
using DoneFn = std::function<int(int source, int kind, int count, const void* data)>;
// Called on the sender for every message whose receiver returned a nonzero
// verdict, before this rank contributes to the agreement.
using VerdictFn = std::function<void(int destination, int verdict)>;

void sparse_exchange_raw(MPI_Comm comm, std::size_t element_size, const std::vector<RawMessage>& outgoing,
                         const PlaceFn& place, const DoneFn& done, const VerdictFn& on_verdict,
                         std::span<int> agreement_max, const ExchangeRoute& route = {});

template <class T>
std::vector<RawMessage> raw_messages(std::span<const OutgoingMessage<T>> outgoing) {
  std::vector<RawMessage> raw;
  raw.reserve(outgoing.size());
  for (const auto& message : outgoing) {
    raw.push_back(
        {message.destination, message.payload.data(), static_cast<int>(message.payload.size()), message.kind});
  }
  return raw;
}
}  // namespace detail

// Collective over `comm`. Sends every outgoing message and receives every
// message addressed to this rank, a message to itself included (copied locally,
// never through MPI); returns when every message of every rank was received.
//
// `place(source, count)` (or `place(source, kind, count)`) returns a T* with
// room for `count` elements where the message is received, so the caller can
// receive straight into its own arrays (for each kind where it belongs).
// `accept(source, kind, count)` (optional, may be nullptr) then looks at it and
// returns a verdict: nonzero rejects it, and `on_rejected(destination,
// verdict)` runs on the sender before the sender joins the agreement, so a
// receiver's objection reaches every rank through `agreement_max` in the same
// round.
//
// `agreement_max` (may be empty) is reduced with MPI_MAX over all ranks as the
// termination step, so flags such as errors ride along for free. It is
// contributed once this rank's sends are done, so it must not depend on
// received data.
//
// A receiver without memory for a message (`place` throws std::bad_alloc)
// drops it and tells the sender, whose agreement step carries it: then, once
// every message is through and `agreement_max` holds the reduced values,
// every rank throws the same DroppedMessages (MPI_ERR_NO_MEM) naming the
// lowest such receiver. A caller whose own flags say something else failed
// may catch it and report that instead, the same way on every rank. Apart
// from what the callbacks throw, the exchange throws std::bad_alloc only
// before its first send: nothing is in flight then, and the rank may still
// join the same round.
//
// `route` (the same on every rank): direct, or node-aware (see
// ExchangeRoute), with the same contract; there a message that a rank
// relaying it had no room for counts as dropped by that rank.
class DroppedMessages : public Error {
 public:
  using Error::Error;
};
// Thrown on every rank when ranks were given different routes (MPI_ERR_ARG).
class RouteMismatch : public Error {
 public:
  using Error::Error;
};

struct ExchangeVerdicts {
  std::function<int(int source, int kind, int count)> accept;
  std::function<void(int destination, int verdict)> on_rejected;
};

template <class T, class Place>
void sparse_exchange_into(MPI_Comm comm, std::span<const OutgoingMessage<T>> outgoing, Place&& place,
                          std::span<int> agreement_max = {}, const ExchangeVerdicts& verdicts = {},
                          const ExchangeRoute& route = {}) {
  static_assert(std::is_trivially_copyable_v<T>, "sparse_exchange moves raw bytes");
  detail::sparse_exchange_raw(
      comm, sizeof(T), detail::raw_messages(outgoing),
      [&](int source, int kind, int count) -> void* {
        if constexpr (std::is_invocable_v<Place&, int, int, int>) {
          return place(source, kind, count);
        } else {
          return place(source, count);
        }
      },
      [&](int source, int kind, int count, const void*) {
        return verdicts.accept ? verdicts.accept(source, kind, count) : 0;
      },
      [&](int destination, int verdict) {
        if (verdicts.on_rejected) verdicts.on_rejected(destination, verdict);
      },
      agreement_max, route);
}

// As above, but hands each message to `on_receive(source, std::span<const T>)`.
template <class T, class OnReceive>
void sparse_exchange(MPI_Comm comm, std::span<const OutgoingMessage<T>> outgoing, OnReceive&& on_receive,
                     std::span<int> agreement_max = {}, const ExchangeRoute& route = {}) {
  static_assert(std::is_trivially_copyable_v<T>, "sparse_exchange moves raw bytes");
  std::vector<T> scratch;
  detail::sparse_exchange_raw(
      comm, sizeof(T), detail::raw_messages(outgoing),
      [&](int, int, int count) -> void* {
        scratch.resize(static_cast<std::size_t>(count));
        return scratch.data();
      },
      [&](int source, int, int count, const void* data) {
        on_receive(source, std::span<const T>(static_cast<const T*>(data), static_cast<std::size_t>(count)));
        return 0;
      },
      [](int, int) {}, agreement_max, route);
}

}  // namespace distopo
