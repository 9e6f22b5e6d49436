#include <memory>
#include <optional>
#include <string>

#include "distopo/core/comm.hpp"
#include "distopo/core/comm_cache.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/info.hpp"
#include "distopo/core/node_layout.hpp"
#include "distopo/core/runtime.hpp"
#include "distopo/core/sparse_exchange.hpp"

namespace distopo {
namespace {

// What a channel's nodes are, once found (MPI_Comm_split_type): the size of
// its blocks of consecutive ranks, 0 when the nodes are not such blocks.
struct FoundNodes {
  int ranks_per_node = 0;
};

// The channel of a node-aware exchange's relayed messages, one per channel.
struct RelayChannel {
  Comm comm;
};

constinit const RuntimeKeyval found_nodes_keyval{MPI_COMM_NULL_COPY_FN, detail::delete_cached<FoundNodes>};
constinit const RuntimeKeyval relay_keyval{MPI_COMM_NULL_COPY_FN, detail::delete_cached<RelayChannel>};

// Collective over `channel`: its nodes (discover_nodes), kept when they are
// blocks of k consecutive ranks from rank 0 on, the last possibly smaller:
// when every rank r is local rank r mod k of node r / k.
std::unique_ptr<FoundNodes> find_nodes(MPI_Comm channel) {
  const NodeLayout layout = discover_nodes(channel, 0);
  const int k = layout.largest_node;
  int misfit = comm_rank(channel) != layout.node * k + layout.local_rank ? 1 : 0;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &misfit, 1, MPI_INT, MPI_MAX, channel), "MPI_Allreduce");
  auto found = std::make_unique<FoundNodes>();
  found->ranks_per_node = misfit != 0 ? 0 : k;
  return found;
}

}  // namespace

ExchangeRoute exchange_route(MPI_Comm channel, MPI_Info info) {
  const std::string choice = info_or_environment(info, kExchangeInfoKey, kExchangeEnv).value_or("auto");
  if (choice != "auto" && choice != "direct" && choice != "node_aware") {
    throw Error(MPI_ERR_ARG, std::string(kExchangeInfoKey) + " (or " + kExchangeEnv + ") = " + choice +
                                 ": expected auto, direct or node_aware");
  }
  // auto: node-aware where the nodes are declared (distopo_ranks_per_node or
  // DISTOPO_RANKS_PER_NODE), as finding them costs MPICH O(P) per rank
  // (MPI_Comm_split_type).
  const int declared = emulated_ranks_per_node(info);
  if (choice == "direct" || (choice == "auto" && declared <= 0)) return {};
  ExchangeRoute route;
  int k = declared;
  if (k <= 0) {
    const FoundNodes* found = detail::find_cached<FoundNodes>(channel, found_nodes_keyval);
    if (found == nullptr) {
      // Finding them is collective: it waits for the exchange's agreement,
      // which tells whether every rank asked for it.
      route.find_nodes = [channel] {
        detail::cached_on<FoundNodes>(channel, found_nodes_keyval, [&] { return find_nodes(channel); });
      };
      return route;
    }
    k = found->ranks_per_node;
  }
  // One rank per node, or one node: nothing to gather.
  if (k <= 1 || k >= comm_size(channel)) return {};
  route.ranks_per_node = k;
  // The cache entry now, the copy in round 2: what can fail on one rank
  // alone (memory) fails before the exchange, where the agreement reports it.
  RelayChannel& relay =
      detail::cached_on<RelayChannel>(channel, relay_keyval, [] { return std::make_unique<RelayChannel>(); });
  route.relay_channel = [&relay, channel] {
    if (!relay.comm) relay.comm = private_copy(channel);
    return relay.comm.get();
  };
  if (const std::optional<std::string> gather_min = info_or_environment(info, kGatherMinInfoKey, kGatherMinEnv)) {
    if (const int value = parse_positive(gather_min->c_str()); value > 0) {
      route.gather_min = static_cast<std::size_t>(value);
    }
  }
  return route;
}

}  // namespace distopo
