// dist_graph_create_adjacent: every rank already knows its lists, so only the
// agreement step is collective (plus, on request, one sparse exchange that
// checks the two sides of every edge against each other).
#include <algorithm>
#include <string>
#include <vector>

#include "creation_agreement.hpp"
#include "distopo/distgraph/edge_key.hpp"
#include "distopo/distgraph/key_sort.hpp"
#include "distopo/core/info.hpp"
#include "distopo/core/private_channel.hpp"
#include "distopo/core/runtime.hpp"
#include "distopo/core/sparse_exchange.hpp"
#include "distopo/distgraph.hpp"
#include "edge_input.hpp"
#include "install_topology.hpp"
#include "kokkos_runtime.hpp"

namespace distopo {
namespace {

constexpr const char* kCaller = "dist_graph_create_adjacent";

LocalError adjacent_error(int error_class, int rank, const std::string& what) {
  return {error_class, std::string(kCaller) + ": rank " + std::to_string(rank) + ": " + what};
}

// One direction of the adjacency: degree, ranks and weights as given.
struct Side {
  const char* degree_name;
  const char* ranks_name;
  const char* weights_name;
  int degree;
  const int* ranks;
  const int* weights;
};

std::optional<LocalError> validate(const Side& side, bool weighted, int rank, int size) {
  if (side.degree < 0) {
    return adjacent_error(MPI_ERR_ARG, rank,
                          std::string(side.degree_name) + " = " + std::to_string(side.degree) + " is negative");
  }
  if (side.degree > 0 && (side.ranks == nullptr || (weighted && side.weights == nullptr))) {
    return adjacent_error(MPI_ERR_ARG, rank,
                          std::string(side.ranks_name) + " or " + side.weights_name + " is NULL with " +
                              side.degree_name + " = " + std::to_string(side.degree));
  }
  for (int i = 0; i < side.degree; ++i) {
    if (side.ranks[i] < 0 || side.ranks[i] >= size) {
      return adjacent_error(MPI_ERR_RANK, rank,
                            std::string(side.ranks_name) + "[" + std::to_string(i) +
                                "] = " + std::to_string(side.ranks[i]) + " is not a rank of the communicator (size " +
                                std::to_string(size) + ")");
    }
    if (weighted && side.weights[i] < 0) {
      return adjacent_error(MPI_ERR_ARG, rank,
                            std::string(side.weights_name) + "[" + std::to_string(i) + "] = " +
                                std::to_string(side.weights[i]) + " is negative; weights must be non-negative");
    }
  }
  return std::nullopt;
}

// Every out-edge a->b (weight w) is sent to b as the in-end (a, w); b compares
// the multiset it receives with the in-list it was given.
std::optional<LocalError> check_both_sides(const PrivateChannel& channel, const DistGraphTopology& record, int rank) {
  std::vector<EdgeKey> sent;
  sent.reserve(record.destinations.size());
  for (std::size_t i = 0; i < record.destinations.size(); ++i) {
    sent.push_back(pack_edge(EdgeDirection::in, rank, record.weighted ? record.destination_weights[i] : 1));
  }
  // One message per destination: sort the (destination, key) pairs by destination.
  std::vector<std::size_t> order(sent.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return record.destinations[a] < record.destinations[b]; });
  std::vector<EdgeKey> packed;
  packed.reserve(sent.size());
  for (std::size_t i : order) packed.push_back(sent[i]);
  std::vector<OutgoingMessage<EdgeKey>> messages;
  for (std::size_t begin = 0; begin < order.size();) {
    std::size_t end = begin;
    while (end < order.size() && record.destinations[order[end]] == record.destinations[order[begin]]) ++end;
    messages.push_back(
        {record.destinations[order[begin]], std::span<const EdgeKey>(packed).subspan(begin, end - begin)});
    begin = end;
  }

  std::vector<EdgeKey> received;
  sparse_exchange_into<EdgeKey>(
      channel.comm, messages,
      [&received](int, int count) {
        const std::size_t old_size = received.size();
        received.resize(old_size + static_cast<std::size_t>(count));
        return received.data() + old_size;
      },
      {});

  std::vector<EdgeKey> declared;
  declared.reserve(record.sources.size());
  for (std::size_t i = 0; i < record.sources.size(); ++i) {
    declared.push_back(pack_edge(EdgeDirection::in, record.sources[i], record.weighted ? record.source_weights[i] : 1));
  }
  sort_keys(received);
  sort_keys(declared);
  if (received == declared) return std::nullopt;
  // Name the first edge that differs.
  const auto [r, d] = std::mismatch(received.begin(), received.end(), declared.begin(), declared.end());
  const bool missing_here = d == declared.end() || (r != received.end() && *r < *d);
  const EdgeKey key = missing_here ? *r : *d;
  const std::string edge = std::to_string(edge_rank(key)) + "->" + std::to_string(rank) + " (weight " +
                           std::to_string(edge_weight(key)) + ")";
  return adjacent_error(MPI_ERR_TOPOLOGY, rank,
                        missing_here ? "edge " + edge + " is a destination of rank " + std::to_string(edge_rank(key)) +
                                           " but not among this rank's sources"
                                     : "edge " + edge + " is among this rank's sources but not a destination of rank " +
                                           std::to_string(edge_rank(key)));
}

}  // namespace

Comm dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int source_weights[],
                                int outdegree, const int destinations[], const int destination_weights[],
                                const DistGraphOptions& options) {
  ensure_runtime();
  detail::ensure_kokkos();
  require_intracommunicator(comm_old, kCaller);
  const int rank = comm_rank(comm_old);
  const int size = comm_size(comm_old);
  const Side in{"indegree", "sources", "sourceweights", indegree, sources, source_weights};
  const Side out{"outdegree", "destinations", "destweights", outdegree, destinations, destination_weights};
  std::optional<LocalError> error = validate(in, options.weighted, rank, size);
  if (!error) error = validate(out, options.weighted, rank, size);

  const PrivateChannel channel = private_channel(comm_old);
  detail::CreationAgreement(error, options, rank, size).reduce_and_throw(channel.comm, error, kCaller);

  DistGraphTopology record;
  record.weighted = options.weighted;
  record.sources.assign(sources, sources + indegree);
  record.destinations.assign(destinations, destinations + outdegree);
  if (options.weighted) {
    record.source_weights.assign(source_weights, source_weights + indegree);
    record.destination_weights.assign(destination_weights, destination_weights + outdegree);
  }
  if (const auto check = info_value(options.info, "distopo_check_adjacent"); check && parse_flag(*check)) {
    agree_on_error(channel.comm, check_both_sides(channel, record, rank));
  }
  return detail::install_dist_graph(comm_old, std::move(record));
}

Comm dist_graph_create_adjacent(MPI_Comm comm_old, std::span<const int> sources, std::span<const int> source_weights,
                                std::span<const int> destinations, std::span<const int> destination_weights,
                                const DistGraphOptions& options) {
  if (options.weighted &&
      (source_weights.size() != sources.size() || destination_weights.size() != destinations.size())) {
    // Local misuse of the C++ overload; reported through the agreement so no rank hangs.
    const int bad_degree = -1;
    return dist_graph_create_adjacent(comm_old, bad_degree, nullptr, nullptr, 0, nullptr, nullptr, options);
  }
  return dist_graph_create_adjacent(comm_old, static_cast<int>(sources.size()), sources.data(), source_weights.data(),
                                    static_cast<int>(destinations.size()), destinations.data(),
                                    destination_weights.data(), options);
}

}  // namespace distopo
