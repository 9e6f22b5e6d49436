#include <cstdlib>
#include <memory>
#include <string>

#include "comm_cache.hpp"
#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/info.hpp"
#include "distopo/core/node_layout.hpp"
#include "distopo/core/runtime.hpp"
#include "distopo/core/sparse_exchange.hpp"

namespace distopo {
namespace {

// What a channel learnt about its nodes, the first time a node-aware
// exchange ran on it.
struct NodeBlocks {
  int ranks_per_node = 0;  // 0: the nodes are not consecutive blocks of one size
  Comm relay_channel;
};

constinit const RuntimeKeyval blocks_keyval{MPI_COMM_NULL_COPY_FN, detail::delete_cached<NodeBlocks>};

// Collective over `channel`: its nodes (discover_nodes), kept when they are
// blocks of k consecutive ranks from rank 0 on, the last possibly smaller:
// when every rank r is local rank r mod k of node r / k.
std::unique_ptr<NodeBlocks> find_blocks(MPI_Comm channel) {
  auto blocks = std::make_unique<NodeBlocks>();
  const NodeLayout layout = discover_nodes(channel, parse_positive(std::getenv(kRanksPerNodeEnv)));
  const int k = layout.largest_node;
  int misfit = comm_rank(channel) != layout.node * k + layout.local_rank ? 1 : 0;
  if (!layout.emulated) {
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &misfit, 1, MPI_INT, MPI_MAX, channel), "MPI_Allreduce");
  }
  blocks->ranks_per_node = misfit != 0 ? 0 : k;
  return blocks;
}

}  // namespace

ExchangeRoute exchange_route(MPI_Comm channel) {
  const char* asked = std::getenv(kExchangeEnv);
  const std::string choice = asked == nullptr || *asked == '\0' ? "auto" : asked;
  if (choice != "auto" && choice != "direct" && choice != "node_aware") {
    throw Error(MPI_ERR_ARG, std::string(kExchangeEnv) + "=" + choice + ": expected auto, direct or node_aware");
  }
  // auto: node-aware where the nodes are declared (DISTOPO_RANKS_PER_NODE),
  // as finding them costs MPICH O(P) per rank (MPI_Comm_split_type).
  if (choice == "direct" || (choice == "auto" && parse_positive(std::getenv(kRanksPerNodeEnv)) <= 0)) return {};
  NodeBlocks& blocks = detail::cached_on<NodeBlocks>(channel, blocks_keyval, [&] { return find_blocks(channel); });
  const int k = blocks.ranks_per_node;
  // One rank per node, or one node: nothing to gather.
  if (k <= 1 || k >= comm_size(channel)) return {};
  if (!blocks.relay_channel) blocks.relay_channel = private_copy(channel);
  ExchangeRoute route{.ranks_per_node = k, .relay_channel = blocks.relay_channel.get()};
  if (const int gather_min = parse_positive(std::getenv(kGatherMinEnv)); gather_min > 0) {
    route.gather_min = static_cast<std::size_t>(gather_min);
  }
  return route;
}

}  // namespace distopo
