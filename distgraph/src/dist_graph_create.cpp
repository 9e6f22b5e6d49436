// dist_graph_create, in stages that each own their data: validate the input
// -> the outbox (every edge end packed and grouped by the rank that stores
// it, edge_outbox.hpp) -> one sparse exchange on the private channel (NBX,
// or on declared nodes the node-aware route: sparse_exchange.hpp), whose
// agreement step also decides every error and the weighted/reorder flags ->
// the inbox (the ends received, and the room of the lists, edge_inbox.hpp)
// -> the lists, sorted where the ends lie (edge_lists.hpp) -> the record.
// One collective round besides the duplication of the result (two where a
// rank gathers on the node-aware route).
//
// A large scattered input of long source entries (sources other than the rank
// that gives them; edge_outbox.hpp) goes by source instead: the first round carries only out-ends, each to its
// source; a second round, taken when any rank went so (agreed in the first),
// has every source sort its list once and send each destination its in-ends
// as a run in order, as a rank that gives its own out-edges does. Every end
// is then sorted once, by its source, instead of once at each end's owner.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "creation_agreement.hpp"
#include "distopo/core/idle_backoff.hpp"
#include "distopo/core/info.hpp"
#include "distopo/core/private_channel.hpp"
#include "distopo/core/runtime.hpp"
#include "distopo/core/sparse_exchange.hpp"
#include "distopo/distgraph.hpp"
#include "distopo/distgraph/edge_redistribution.hpp"
#include "edge_inbox.hpp"
#include "edge_input.hpp"
#include "edge_outbox.hpp"
#include "install_topology.hpp"
#include "kokkos_runtime.hpp"
#include "phase_clock.hpp"

namespace distopo {
namespace {

constexpr const char* kCaller = detail::kCreate;

// The error of `rank` when `receiver` (this rank itself for its own ends)
// rejected the ends it sent: the one place a rejection becomes an error.
LocalError rejection_error(detail::Rejection rejection, int rank, int receiver) {
  const bool own = receiver == rank;
  if (rejection == detail::Rejection::no_memory) {
    return own ? out_of_memory(kCaller, rank, "its neighbor lists")
               : rank_error(MPI_ERR_NO_MEM, kCaller, rank,
                            "rank " + std::to_string(receiver) + " has no memory for its neighbor lists");
  }
  if (rejection == detail::Rejection::malformed) {
    return rank_error(MPI_ERR_INTERN, kCaller, rank,
                      "rank " + std::to_string(receiver) + " received a malformed message of edge ends from it");
  }
  return rank_error(
      MPI_ERR_ARG, kCaller, rank,
      own ? std::string("its own edges give it an in- or out-degree above INT_MAX")
          : "its edges would give rank " + std::to_string(receiver) + " an in- or out-degree above INT_MAX");
}

// Whether a scattered input may go by source; ranks may differ.
detail::BySource by_source_setting(MPI_Info info) {
  const std::optional<std::string> text = info_or_environment(info, kBySourceInfoKey, kBySourceEnv);
  if (!text || *text == "auto") return detail::BySource::when_large;
  if (*text == "true") return detail::BySource::always;
  if (*text == "false") return detail::BySource::never;
  throw Error(MPI_ERR_ARG, std::string(kBySourceInfoKey) + " (or " + kBySourceEnv + ") = " + *text +
                               " is not one of auto, true, false");
}

// Whether this rank sends one peer far more than each of the others (at
// least twice their average, and at least 2^12 ints): that peer, a hub, may
// take a millisecond and more longer than the others to write its lists
// where, if every rank of the `size` sends it as much, it receives at least
// 2^16 ints (a message's least keeps random graphs on many ranks, whose
// messages of a few ends often differ twofold, out of it). If any rank
// does, the ranks then meet in a barrier of their own, waiting politely
// (idle_backoff.hpp), before MPICH's copy, whose collective would poll and
// take the core of the hub still writing. Where no peer stands out the
// barrier is one more round for nothing (docs/design/sparse-exchange.md,
// "Waiting ranks sleep").
bool sends_to_a_hub(std::span<const OutgoingMessage<int>> messages, int size) {
  constexpr std::size_t kLeastMessage = std::size_t{1} << 12;
  constexpr std::size_t kLeastAtHub = std::size_t{1} << 16;
  if (messages.size() < 2) return false;
  std::size_t total = 0;
  std::size_t largest = 0;
  for (const OutgoingMessage<int>& message : messages) {
    total += message.payload.size();
    largest = std::max(largest, message.payload.size());
  }
  return largest >= kLeastMessage && largest * static_cast<std::size_t>(size) >= kLeastAtHub &&
         largest * (messages.size() - 1) >= 2 * (total - largest);
}

// The channel of each round: the user communicator's private channels (which
// alternate between consecutive exchanges), or one the caller gives.
using NextChannel = std::function<MPI_Comm()>;

// One exchange of `outbox`'s messages (none after a local error) into
// `inbox`: each message lands in the inbox, which accepts or rejects it; a
// rejection reaches its sender, whose error then reaches everyone in the
// agreement step. Throws the same error on every rank if any rank failed.
void exchange_round(MPI_Comm channel, const detail::EdgeOutbox* outbox, detail::EdgeInbox& inbox,
                    std::optional<LocalError>& error, detail::CreationAgreement& agreement, int rank,
                    const ExchangeRoute& route) {
  const ExchangeVerdicts verdicts{.accept = [&](int, int, int) { return static_cast<int>(inbox.accept()); },
                                  .on_rejected =
                                      [&](int receiver, int verdict) {
                                        if (error) return;
                                        error =
                                            rejection_error(static_cast<detail::Rejection>(verdict), rank, receiver);
                                        agreement.record_error(rank);
                                      }};
  const std::span<const OutgoingMessage<int>> messages =
      outbox != nullptr ? outbox->messages() : std::span<const OutgoingMessage<int>>();
  try {
    sparse_exchange_into<int>(
        channel, messages,
        [&inbox](int source, int kind, int count) {
          return inbox.place(source, static_cast<detail::MessageKind>(kind), count);
        },
        agreement.values(), verdicts, route);
  } catch (const DroppedMessages&) {
    agreement.throw_if_failed(channel, error, kCaller);  // an input error, if any, is what the user needs
    throw;
  } catch (const RouteMismatch& mismatch) {
    agreement.throw_if_failed(channel, error, kCaller);
    throw Error(mismatch.error_class(), std::string(kCaller) + ": " + mismatch.what());
  }
  agreement.throw_if_failed(channel, error, kCaller);
}

// Where `outbox` failed on this rank: the error that every rank will see.
std::optional<LocalError> outbox_error(const detail::EdgeOutbox& outbox, int rank) {
  if (const std::optional<int> peer = outbox.oversized_peer()) {
    return rank_error(MPI_ERR_ARG, kCaller, rank,
                      "more than INT_MAX ints of edge ends for rank " + std::to_string(*peer));
  }
  if (const detail::Rejection own = outbox.own_verdict(); own != detail::Rejection::none) {
    return rejection_error(own, rank, rank);
  }
  return std::nullopt;
}

// The second round of a create that went by source: this rank's out-ends
// (its own and those it received) are its input, all of them its own
// out-edges: sorted once into its out-list, in the memory they arrived in,
// each destination's slice sent as it lies (edge_outbox.hpp). Collective:
// every rank takes part.
void second_round_by_source(MPI_Comm channel, detail::EdgeInbox& inbox, const DistGraphOptions& options,
                            detail::NativeCopy native_copy, int rank, int size) {
  std::optional<detail::EdgeOutbox> outbox;
  std::optional<LocalError> error =
      local_step(kCaller, rank, "the edge ends to send on", [&]() -> std::optional<LocalError> {
        if (!inbox.has_own_list()) {
          outbox.emplace(rank, options.weighted, inbox.by_source_as_own_list(), inbox);
          return outbox_error(*outbox, rank);
        }
        // An own list came in the first round (this rank gave only edges
        // of its own): these out-ends go as any input (an inbox takes one).
        const detail::OwnOutEnds input(rank, inbox.by_source(), options.weighted);
        detail::InputExtent extent;
        if (auto invalid = input.validate(rank, size, extent)) return invalid;
        outbox.emplace(rank, options.weighted, input, extent, inbox);
        return outbox_error(*outbox, rank);
      });
  inbox.release_by_source();
  if (error) {
    outbox.reset();
    inbox.discard();
  }
  detail::CreationAgreement agreement(error, options, rank, size, "weights",
                                      {.native_weights = native_copy == detail::NativeCopy::kNeighborsAndWeights});
  exchange_round(channel, outbox ? &*outbox : nullptr, inbox, error, agreement, rank, ExchangeRoute{});
}

// Validate -> outbox -> exchange -> inbox -> lists of this rank (with a
// second exchange where a rank went by source), with the memory for MPICH's
// copy of them held since the exchange. `native_copy` (this rank's
// distopo_native_weights) and `lease` (the result's) are agreed in the exchange.
template <class Input>
detail::ReservedLists redistribute(MPI_Comm comm, const NextChannel& next_channel, const Input& input,
                                   const DistGraphOptions& options, detail::NativeCopy native_copy, LeaseOffer lease) {
  ensure_runtime();
  detail::ensure_kokkos();
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  const MPI_Comm channel = next_channel();
  detail::PhaseClock clock;

  // Validation and the outbox: what fails here fails on this rank only.
  detail::EdgeInbox inbox(size, options.weighted,
                          options.weighted && native_copy == detail::NativeCopy::kNeighborsAndWeights);
  std::optional<detail::EdgeOutbox> outbox;
  ExchangeRoute route;  // direct where the settings are unknown: the agreement tells every rank
  std::optional<LocalError> error =
      local_step(kCaller, rank, "the edge ends to send", [&]() -> std::optional<LocalError> {
        detail::BySource by_source = detail::BySource::when_large;
        try {
          route = exchange_route(channel, options.info);
          by_source = by_source_setting(options.info);
        } catch (const Error& unknown) {
          return rank_error(unknown.error_class(), kCaller, rank, unknown.what());
        }
        detail::InputExtent extent;
        if (auto invalid = input.validate(rank, size, extent)) return invalid;
        clock.mark("validate");
        inbox.prepare();
        outbox.emplace(rank, options.weighted, input, extent, inbox, by_source);
        return outbox_error(*outbox, rank);
      });
  clock.mark("outbox");
  if (error) {
    // Sends nothing, keeps nothing, but still takes part, so nobody hangs.
    outbox.reset();
    inbox.discard();
  }

  detail::CreationAgreement agreement(error, options, rank, size, "weights",
                                      {.native_weights = native_copy == detail::NativeCopy::kNeighborsAndWeights},
                                      std::move(lease));
  if (outbox && outbox->went_by_source()) agreement.note_by_source();
  if (outbox && sends_to_a_hub(outbox->messages(), size)) agreement.note_hub();
  exchange_round(channel, outbox ? &*outbox : nullptr, inbox, error, agreement, rank, route);
  outbox.reset();
  clock.mark("exchange");
  if (agreement.any_by_source()) {
    second_round_by_source(next_channel(), inbox, options, native_copy, rank, size);
    clock.mark("by_source");
  }

  // The lists, where the received ends are. Where a rank may be a hub, a rank
  // done early waits politely in a barrier entered after the lists: entered
  // before them, it would let go of any rank whose rounds need no message the
  // hub sends only once it polls again. Asleep there, the others leave a
  // core to the hub's sort.
  NativeReservation mirror = inbox.take_mirror();
  DistGraphTopology lists = std::move(inbox).lists(rank, agreement.any_hub());
  clock.mark("lists");
  if (agreement.any_hub()) {
    MPI_Request barrier = MPI_REQUEST_NULL;
    check_mpi(MPI_Ibarrier(channel, &barrier), "MPI_Ibarrier");
    wait_politely(barrier);
    clock.mark("wait");
  }
  clock.print(rank);
  return {std::move(lists), std::move(mirror), agreement.agreed_lease()};
}

template <class Input>
Comm create_from(MPI_Comm comm_old, const Input& input, const DistGraphOptions& options) {
  ensure_runtime();
  require_intracommunicator(comm_old, detail::kCreate);
  const detail::NativeCopy native_copy = detail::requested_native_copy(options.info);
  detail::ReservedLists lists = redistribute(
      comm_old, [comm_old] { return private_channel(comm_old).comm; }, input, options, native_copy,
      LeaseOffer(comm_old));
  detail::PhaseClock clock;
  Comm result = detail::install_dist_graph(comm_old, std::move(lists.record), options, native_copy,
                                           std::move(lists.mirror), lists.lease);
  clock.mark("install");
  clock.print(comm_rank(comm_old));
  return result;
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
  // A second round on the same channel waits until every rank is done with
  // the first (sparse_exchange.hpp).
  int rounds = 0;
  const NextChannel next_channel = [&] {
    if (rounds++ > 0) check_mpi(MPI_Barrier(channel), "MPI_Barrier");
    return channel;
  };
  return redistribute(comm, next_channel,
                      detail::ArrayEdges(n, sources, degrees, destinations, weights, options.weighted), options,
                      detail::requested_native_copy(options.info), LeaseOffer{})
      .record;
}

}  // namespace distopo
