#include <cstdlib>
#include <memory>
#include <string>

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

int delete_blocks(MPI_Comm, int, void* attribute, void*) {
  delete static_cast<NodeBlocks*>(attribute);
  return MPI_SUCCESS;
}

constinit const RuntimeKeyval blocks_keyval{MPI_COMM_NULL_COPY_FN, delete_blocks};

// The channel rank of `local` on `node_comm`.
int channel_rank(MPI_Comm node_comm, MPI_Comm channel, int local) {
  MPI_Group node_group = MPI_GROUP_NULL;
  MPI_Group channel_group = MPI_GROUP_NULL;
  check_mpi(MPI_Comm_group(node_comm, &node_group), "MPI_Comm_group");
  check_mpi(MPI_Comm_group(channel, &channel_group), "MPI_Comm_group");
  int rank = MPI_UNDEFINED;
  check_mpi(MPI_Group_translate_ranks(node_group, 1, &local, channel_group, &rank), "MPI_Group_translate_ranks");
  MPI_Group_free(&node_group);
  MPI_Group_free(&channel_group);
  return rank;
}

// Collective over `channel`: its nodes, as blocks of consecutive ranks.
std::unique_ptr<NodeBlocks> find_blocks(MPI_Comm channel) {
  auto blocks = std::make_unique<NodeBlocks>();
  const int rank = comm_rank(channel);
  const int size = comm_size(channel);
  if (const int emulated = parse_positive(std::getenv(kRanksPerNodeEnv)); emulated > 0) {
    blocks->ranks_per_node = emulated;
    return blocks;
  }
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(channel, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  const Comm node_comm = Comm::adopt(node);
  const int local = node_comm.rank();
  const int local_size = node_comm.size();
  // Consecutive: the node's first and last ranks enclose exactly its ranks.
  const int first = rank - local;
  const bool consecutive =
      channel_rank(node, channel, 0) == first && channel_rank(node, channel, local_size - 1) == first + local_size - 1;
  int largest[2] = {local_size, consecutive ? 0 : 1};
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, largest, 2, MPI_INT, MPI_MAX, channel), "MPI_Allreduce");
  const int k = largest[0];
  // Blocks of k from rank 0 on: each node starts at a multiple of k and is
  // full, but the last.
  int misfit = largest[1] != 0 || first % k != 0 || (local_size != k && first + local_size != size) ? 1 : 0;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &misfit, 1, MPI_INT, MPI_MAX, channel), "MPI_Allreduce");
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
  const int keyval = blocks_keyval.get();
  void* attribute = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(channel, keyval, &attribute, &found), "MPI_Comm_get_attr");
  auto* blocks = static_cast<NodeBlocks*>(attribute);
  if (!found) {
    std::unique_ptr<NodeBlocks> owned = find_blocks(channel);
    check_mpi(MPI_Comm_set_attr(channel, keyval, owned.get()), "MPI_Comm_set_attr");
    blocks = owned.release();
  }
  const int k = blocks->ranks_per_node;
  // One rank per node, or one node: nothing to gather.
  if (k <= 1 || k >= comm_size(channel)) return {};
  if (!blocks->relay_channel) blocks->relay_channel = private_copy(channel);
  ExchangeRoute route{.ranks_per_node = k, .relay_channel = blocks->relay_channel.get()};
  if (const int gather_min = parse_positive(std::getenv(kGatherMinEnv)); gather_min > 0) {
    route.gather_min = static_cast<std::size_t>(gather_min);
  }
  return route;
}

}  // namespace distopo
