// dist_graph_create, in stages that each own their data: validate the input
// -> the outbox (every edge end packed and grouped by the rank that stores
// it, edge_outbox.hpp) -> one sparse exchange on the private channel (NBX,
// or on declared nodes the node-aware route: sparse_exchange.hpp), whose
// agreement step also decides every error and the weighted/reorder flags ->
// the inbox (the ends received, and the room of the lists, edge_inbox.hpp)
// -> the lists, sorted where the ends lie (edge_lists.hpp) -> the record.
// One collective round besides the duplication of the result (two where a
// rank gathers on the node-aware route).
#include <optional>
#include <string>

#include "creation_agreement.hpp"
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

// Validate -> outbox -> exchange on `channel` -> inbox -> lists of this rank,
// with the memory for MPICH's copy of them held since the exchange.
// `native_copy` (this rank's distopo_native_weights) is agreed in the exchange.
template <class Input>
detail::ReservedLists redistribute(MPI_Comm comm, MPI_Comm channel, const Input& input, const DistGraphOptions& options,
                                   detail::NativeCopy native_copy) {
  ensure_runtime();
  detail::ensure_kokkos();
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  detail::PhaseClock clock;

  // Validation and the outbox: what fails here fails on this rank only.
  detail::EdgeInbox inbox(size, options.weighted,
                          options.weighted && native_copy == detail::NativeCopy::kNeighborsAndWeights);
  std::optional<detail::EdgeOutbox> outbox;
  ExchangeRoute route;  // direct where the settings are unknown: the agreement tells every rank
  std::optional<LocalError> error =
      local_step(kCaller, rank, "the edge ends to send", [&]() -> std::optional<LocalError> {
        try {
          route = exchange_route(channel, options.info);
        } catch (const Error& unknown) {
          return rank_error(unknown.error_class(), kCaller, rank, unknown.what());
        }
        detail::InputExtent extent;
        if (auto invalid = input.validate(rank, size, extent)) return invalid;
        clock.mark("validate");
        inbox.prepare();
        outbox.emplace(rank, options.weighted, input, extent, inbox);
        if (const std::optional<int> peer = outbox->oversized_peer()) {
          return rank_error(MPI_ERR_ARG, kCaller, rank,
                            "more than INT_MAX ints of edge ends for rank " + std::to_string(*peer));
        }
        if (const detail::Rejection own = outbox->own_verdict(); own != detail::Rejection::none) {
          return rejection_error(own, rank, rank);
        }
        return std::nullopt;
      });
  clock.mark("outbox");
  if (error) {
    // Sends nothing, keeps nothing, but still takes part, so nobody hangs.
    outbox.reset();
    inbox.discard();
  }

  // The exchange: each message lands in the inbox, which accepts or rejects
  // it; a rejection reaches its sender, whose error then reaches everyone in
  // the agreement step.
  detail::CreationAgreement agreement(error, options, rank, size, "weights",
                                      {.native_weights = native_copy == detail::NativeCopy::kNeighborsAndWeights});
  const ExchangeVerdicts verdicts{.accept = [&](int, int, int) { return static_cast<int>(inbox.accept()); },
                                  .on_rejected =
                                      [&](int receiver, int verdict) {
                                        if (error) return;
                                        error =
                                            rejection_error(static_cast<detail::Rejection>(verdict), rank, receiver);
                                        agreement.record_error(rank);
                                      }};
  const std::span<const OutgoingMessage<int>> messages =
      outbox ? outbox->messages() : std::span<const OutgoingMessage<int>>();
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
  outbox.reset();
  clock.mark("exchange");

  // The lists, where the received ends are.
  NativeReservation mirror = inbox.take_mirror();
  DistGraphTopology lists = std::move(inbox).lists();
  clock.mark("lists");
  clock.print(rank);
  return {std::move(lists), std::move(mirror)};
}

template <class Input>
Comm create_from(MPI_Comm comm_old, const Input& input, const DistGraphOptions& options) {
  ensure_runtime();
  require_intracommunicator(comm_old, detail::kCreate);
  const PrivateChannel channel = private_channel(comm_old);
  const detail::NativeCopy native_copy = detail::requested_native_copy(options.info);
  detail::ReservedLists lists = redistribute(comm_old, channel.comm, input, options, native_copy);
  detail::PhaseClock clock;
  Comm result =
      detail::install_dist_graph(comm_old, std::move(lists.record), options, native_copy, std::move(lists.mirror));
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
  return redistribute(comm, channel, detail::ArrayEdges(n, sources, degrees, destinations, weights, options.weighted),
                      options, detail::requested_native_copy(options.info))
      .record;
}

}  // namespace distopo
