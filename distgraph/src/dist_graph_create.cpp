// dist_graph_create: validate -> tally repeated edges (end_tally.hpp) or
// bucket the edge ends by owner -> one NBX exchange on the private channel,
// whose agreement step also decides every error and the weighted/reorder
// flags -> the lists, from ends counted, grouped by neighbor or sorted with
// Kokkos (edge_lists.hpp) -> record. One collective round besides the
// duplication of the result.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "creation_agreement.hpp"
#include "distopo/core/private_channel.hpp"
#include "distopo/core/runtime.hpp"
#include "distopo/core/sparse_exchange.hpp"
#include "distopo/distgraph.hpp"
#include "distopo/distgraph/edge_key.hpp"
#include "distopo/distgraph/edge_redistribution.hpp"
#include "distopo/distgraph/key_sort.hpp"
#include "edge_input.hpp"
#include "edge_keys.hpp"
#include "edge_lists.hpp"
#include "end_tally.hpp"
#include "install_topology.hpp"
#include "kokkos_runtime.hpp"
#include "peer_buckets.hpp"

namespace distopo {
namespace {

// Below this many edges the tally is not tried: a handful of ends costs
// less to send one by one than to count.
constexpr std::int64_t kMinEdgesToTally = 256;
// The tally is kept when the distinct edges are at most this share of the
// edges (a tallied end is two words, a single end one) and at most this many
// (the table then stays within a few MiB, and giving up costs at most this
// many insertions).
constexpr std::int64_t kEdgesPerTalliedEdge = 8;
constexpr std::size_t kMaxTalliedEdges = std::size_t{1} << 16;

std::size_t max_tallied_edges(std::int64_t edges) {
  if (edges < kMinEdgesToTally) return 0;
  return std::min(kMaxTalliedEdges, static_cast<std::size_t>(edges / kEdgesPerTalliedEdge));
}

// Validate -> tally or bucket -> exchange on `channel` -> lists of this rank,
// with the memory for MPICH's copy of them held since the exchange.
// `native_copy` (this rank's distopo_native_weights) is agreed in the exchange.
template <class Input>
detail::ReservedLists redistribute(MPI_Comm comm, MPI_Comm channel, const Input& input, const DistGraphOptions& options,
                                   detail::NativeCopy native_copy) {
  constexpr const char* kCaller = detail::kCreate;
  ensure_runtime();
  detail::ensure_kokkos();
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);

  detail::KeyBuffer own;                              // the ends this rank stores: its own, then those received
  detail::GrowingBuffer<detail::TalliedEnd> tallied;  // those that came with a count, moved out of `own`
  std::vector<OutgoingMessage<EdgeKey>> messages;
  std::optional<detail::EndTally> tally;
  std::optional<detail::PeerBuckets> buckets;
  std::optional<LocalError> error =
      local_step(kCaller, rank, "the edge ends to send", [&]() -> std::optional<LocalError> {
        detail::InputExtent extent;
        if (auto invalid = input.validate(rank, size, extent)) return invalid;
        tally = detail::EndTally::of(rank, input, max_tallied_edges(extent.edges), own);
        if (tally) {
          messages = tally->messages();
          return std::nullopt;
        }
        // A dense owner lookup when the input's ranks span no more than its ends.
        buckets.emplace(rank, detail::edge_ends(input), own, extent.ranks, 2 * static_cast<std::size_t>(extent.edges));
        if (const std::optional<int> peer = buckets->oversized_peer()) {
          return rank_error(MPI_ERR_ARG, kCaller, rank,
                            "more than INT_MAX edge ends for rank " + std::to_string(*peer));
        }
        messages = buckets->messages();
        return std::nullopt;
      });
  if (error) {
    // Sends nothing, keeps nothing, but still takes part, so nobody hangs.
    messages.clear();
    tally.reset();
    buckets.reset();
    own.release();
  }
  detail::CreationAgreement agreement(error, options, rank, size, "weights",
                                      {.native_weights = native_copy == detail::NativeCopy::kNeighborsAndWeights});
  detail::ListRoom room(options.weighted, options.weighted && native_copy == detail::NativeCopy::kNeighborsAndWeights);
  // The words of `own` from `received_until` on (this rank's own ends, then
  // each message as it arrives): single ends stay, a tally moves on to
  // `tallied`; both are counted into the room. Returns the verdict.
  std::size_t received_until = 0;
  const auto take_ends = [&]() -> int {
    const std::span<const EdgeKey> message = own.items().subspan(received_until);
    if (!detail::is_tally_message(message)) {
      received_until = own.size();
      return room.add(message);
    }
    const std::size_t first = tallied.size();
    int verdict = 0;
    try {
      detail::TalliedEnd* end = tallied.append(detail::tallied_end_count(message));
      for (std::size_t i = 0; i < detail::tallied_end_count(message); ++i) *end++ = detail::tallied_end(message, i);
    } catch (const std::bad_alloc&) {
      verdict = detail::ListRoom::kNoMemory;
    }
    own.truncate(received_until);
    if (verdict != 0) return verdict;
    return room.add(std::span<const detail::TalliedEnd>(tallied.items().subspan(first)));
  };
  if (!error) {
    if (const int verdict = take_ends(); verdict != 0) {
      error = verdict == detail::ListRoom::kNoMemory
                  ? out_of_memory(kCaller, rank, "its neighbor lists")
                  : rank_error(MPI_ERR_ARG, kCaller, rank, "its own edges give it an in- or out-degree above INT_MAX");
      agreement.record_error(rank);
    }
  }
  const ExchangeVerdicts verdicts{
      .accept = [&](int, int) { return take_ends(); },
      .on_rejected =
          [&](int destination, int verdict) {
            if (error) return;
            error = verdict == detail::ListRoom::kNoMemory
                        ? rank_error(MPI_ERR_NO_MEM, kCaller, rank,
                                     "rank " + std::to_string(destination) + " has no memory for its neighbor lists")
                        : rank_error(MPI_ERR_ARG, kCaller, rank,
                                     "its edges would give rank " + std::to_string(destination) +
                                         " an in- or out-degree above INT_MAX");
            agreement.record_error(rank);
          }};
  try {
    sparse_exchange_into<EdgeKey>(
        channel, messages, [&own](int, int count) { return own.append(static_cast<std::size_t>(count)); },
        agreement.values(), verdicts);
  } catch (const DroppedMessages&) {
    agreement.throw_if_failed(channel, error, kCaller);  // an input error, if any, is what the user needs
    throw;
  }
  agreement.throw_if_failed(channel, error, kCaller);
  tally.reset();
  buckets.reset();
  return {detail::write_lists(own.items(), room.bits(), tallied.items(), options.weighted, room.take()),
          room.take_mirror()};
}

template <class Input>
Comm create_from(MPI_Comm comm_old, const Input& input, const DistGraphOptions& options) {
  ensure_runtime();
  require_intracommunicator(comm_old, detail::kCreate);
  const PrivateChannel channel = private_channel(comm_old);
  const detail::NativeCopy native_copy = detail::requested_native_copy(options.info);
  detail::ReservedLists lists = redistribute(comm_old, channel.comm, input, options, native_copy);
  return detail::install_dist_graph(comm_old, std::move(lists.record), options, native_copy, std::move(lists.mirror));
}

}  // namespace

Comm dist_graph_create(MPI_Comm comm_old, std::span<const Edge> edges, const DistGraphOptions& options) {
  return create_from(comm_old, detail::ListEdges(edges, options.weighted), options);
}

Comm dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
                       const int weights[], const DistGraphOptions& options) {
  return create_from(comm_old, detail::ArrayEdges(n, sources, degrees, destinations, weights, options.weighted),
                     options);
}

DistGraphTopology redistribute_edges(MPI_Comm comm, MPI_Comm channel, int n, const int sources[], const int degrees[],
                                     const int destinations[], const int weights[], const DistGraphOptions& options) {
  return redistribute(comm, channel, detail::ArrayEdges(n, sources, degrees, destinations, weights, options.weighted),
                      options, detail::requested_native_copy(options.info))
      .record;
}

}  // namespace distopo
