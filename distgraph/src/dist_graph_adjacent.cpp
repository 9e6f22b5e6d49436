// dist_graph_create_adjacent: every rank already knows its lists, so only the
// agreement step is collective (plus, on request, one sparse exchange that
// checks the two sides of every edge against each other).
#include <algorithm>
#include <string>
#include <vector>

#include "creation_agreement.hpp"
#include "distopo/core/info.hpp"
#include "distopo/core/private_channel.hpp"
#include "distopo/core/runtime.hpp"
#include "distopo/core/sparse_exchange.hpp"
#include "distopo/distgraph.hpp"
#include "distopo/distgraph/edge_key.hpp"
#include "distopo/distgraph/key_sort.hpp"
#include "edge_input.hpp"
#include "edge_keys.hpp"
#include "install_topology.hpp"
#include "kokkos_runtime.hpp"
#include "peer_buckets.hpp"

namespace distopo {
namespace {

using detail::AdjacentSide;
using detail::kCheckAdjacentKey;
using detail::kCreateAdjacent;

// The in-end (source, weight) of the i-th edge of one side.
EdgeKey in_end(int source, std::span<const int> weights, bool weighted, std::size_t i) {
  return pack_edge(EdgeDirection::in, source, weighted ? weights[i] : 1);
}

// Every out-edge a->b (weight w) is sent to b as the in-end (a, w); b compares
// the multiset it receives with the in-list it was given. Collective over
// `channel`, which it owns meanwhile; the verdict is this rank's.
std::optional<LocalError> check_both_sides(MPI_Comm channel, const DistGraphTopology& record, int rank) {
  detail::KeyBuffer received;
  detail::EdgeKeys declared;
  std::optional<detail::PeerBuckets> buckets;
  std::vector<OutgoingMessage<EdgeKey>> messages;
  std::optional<LocalError> error = local_step(kCreateAdjacent, rank, "the edges to check", [&] {
    buckets.emplace(
        rank,
        [&](auto&& emit) {
          for (std::size_t i = 0; i < record.destinations.size(); ++i) {
            emit(record.destinations[i], in_end(rank, record.destination_weights, record.weighted, i));
          }
        },
        received);
    messages = buckets->messages();
    declared.reserve(record.sources.size());
    return std::optional<LocalError>{};
  });
  if (error) messages.clear();  // still takes part, so nobody hangs
  // A receiver without room drops what it gets; the exchange then fails the
  // same way on every rank.
  sparse_exchange_into<EdgeKey>(
      channel, messages, [&received](int, int count) { return received.append(static_cast<std::size_t>(count)); });
  if (error) return error;

  for (std::size_t i = 0; i < record.sources.size(); ++i) {
    declared.push_back(in_end(record.sources[i], record.source_weights, record.weighted, i));
  }
  sort_keys(received.items());
  sort_keys(declared);
  const std::span<const EdgeKey> got = received.items();
  if (std::ranges::equal(got, declared)) return std::nullopt;
  // Name the first edge that differs.
  const auto [r, d] = std::ranges::mismatch(got, declared);
  const bool missing_here = d == declared.end() || (r != got.end() && *r < *d);
  const EdgeKey key = missing_here ? *r : *d;
  const std::string edge = std::to_string(edge_rank(key)) + "->" + std::to_string(rank) + " (weight " +
                           std::to_string(edge_weight(key)) + ")";
  return rank_error(MPI_ERR_TOPOLOGY, kCreateAdjacent, rank,
                    missing_here ? "edge " + edge + " is a destination of rank " + std::to_string(edge_rank(key)) +
                                       " but not among this rank's sources"
                                 : "edge " + edge + " is among this rank's sources but not a destination of rank " +
                                       std::to_string(edge_rank(key)));
}

// This rank's lists as given (copied before the agreement, so that a rank
// that cannot hold them fails in the agreement, not alone afterwards).
DistGraphTopology record_of(const AdjacentSide& in, const AdjacentSide& out, bool weighted) {
  const auto list = [](const int* values, int degree) {
    return std::span<const int>(values, degree > 0 ? static_cast<std::size_t>(degree) : 0);
  };
  return DistGraphTopology::copy_of(
      list(in.ranks, in.degree), list(weighted ? in.weights : nullptr, weighted ? in.degree : 0),
      list(out.ranks, out.degree), list(weighted ? out.weights : nullptr, weighted ? out.degree : 0), weighted);
}

// `misuse`: a local error of the C++ overload (weights that do not match
// their ranks), reported through the agreement so no rank hangs.
Comm create_adjacent(MPI_Comm comm_old, const AdjacentSide& in, const AdjacentSide& out,
                     const DistGraphOptions& options, const std::string& misuse) {
  ensure_runtime();
  detail::ensure_kokkos();
  require_intracommunicator(comm_old, kCreateAdjacent);
  const int rank = comm_rank(comm_old);
  const int size = comm_size(comm_old);
  const bool check = info_flag(options.info, kCheckAdjacentKey);
  const detail::NativeCopy native_copy = detail::requested_native_copy(options.info);
  DistGraphTopology record;
  NativeReservation mirror;
  const std::optional<LocalError> error =
      local_step(kCreateAdjacent, rank, "a copy of the lists", [&]() -> std::optional<LocalError> {
        if (!misuse.empty()) return rank_error(MPI_ERR_ARG, kCreateAdjacent, rank, misuse);
        if (auto invalid = AdjacentSide::validate_pair(in, out, options.weighted, rank, size)) return invalid;
        record = record_of(in, out, options.weighted);
        const bool mirror_weights = options.weighted && native_copy == detail::NativeCopy::kNeighborsAndWeights;
        mirror.reserve((record.sources.size() + record.destinations.size()) * (mirror_weights ? 2 : 1));
        return std::nullopt;
      });
  const detail::InfoFlags flags{.check_adjacent = check,
                                .native_weights = native_copy == detail::NativeCopy::kNeighborsAndWeights};
  // MPICH's copy is made while the agreement is in flight: the call costs
  // one round's time, not two. A rank with an input error makes an empty one,
  // freed with the others' when the agreement reports the error. Under
  // MPI_THREAD_MULTIPLE the agreement is waited for first (the copy is still
  // made on every rank, so the calls match): there, with threads contending
  // for MPICH's lock, the overlap made the call slower.
  detail::CreationAgreement agreement(error, options, rank, size, "sourceweights and destweights", flags,
                                      LeaseOffer(comm_old));
  agreement.start_reduction(comm_old);
  if (mpi_thread_level() == MPI_THREAD_MULTIPLE) agreement.wait_for_reduction();
  const DistGraphTopology none;
  Comm made = detail::copy_before_agreement(comm_old, error ? none : record, native_copy, std::move(mirror));
  agreement.finish_and_throw(comm_old, error, kCreateAdjacent);
  if (check) agree_on_error(comm_old, check_both_sides(private_channel(comm_old).comm, record, rank));
  return detail::install_made(comm_old, std::move(made), std::move(record), options, native_copy,
                              agreement.agreed_lease());
}

AdjacentSide in_side(int degree, const int* sources, const int* weights) {
  return {"indegree", "sources", "sourceweights", degree, sources, weights};
}
AdjacentSide out_side(int degree, const int* destinations, const int* weights) {
  return {"outdegree", "destinations", "destweights", degree, destinations, weights};
}

std::string weights_mismatch(const char* weights_name, std::size_t weights, const char* ranks_name, std::size_t ranks) {
  return std::string(weights_name) + " has " + std::to_string(weights) + " entries for " + std::to_string(ranks) + " " +
         ranks_name;
}

}  // namespace

Comm dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int source_weights[],
                                int outdegree, const int destinations[], const int destination_weights[],
                                const DistGraphOptions& options) {
  return create_adjacent(comm_old, in_side(indegree, sources, source_weights),
                         out_side(outdegree, destinations, destination_weights), options, {});
}

Comm dist_graph_create_adjacent(MPI_Comm comm_old, std::span<const int> sources, std::span<const int> source_weights,
                                std::span<const int> destinations, std::span<const int> destination_weights,
                                const DistGraphOptions& options) {
  std::string misuse;
  if (options.weighted && source_weights.size() != sources.size()) {
    misuse = weights_mismatch("source_weights", source_weights.size(), "sources", sources.size());
  } else if (options.weighted && destination_weights.size() != destinations.size()) {
    misuse = weights_mismatch("destination_weights", destination_weights.size(), "destinations", destinations.size());
  }
  return create_adjacent(
      comm_old, in_side(static_cast<int>(sources.size()), sources.data(), source_weights.data()),
      out_side(static_cast<int>(destinations.size()), destinations.data(), destination_weights.data()), options,
      misuse);
}

}  // namespace distopo
