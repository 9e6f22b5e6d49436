#include "distopo/mapping/placement.hpp"

#include <cstddef>
#include <optional>
#include <vector>

#include "cartesian_blocks.hpp"
#include "distopo/core/comm.hpp"
#include "graph_blocks.hpp"
#include "list_shipping.hpp"
#include "node_placement.hpp"

namespace distopo::detail {

Placement identity_placement(MPI_Comm comm, std::int64_t size) {
  const int rank = comm_rank(comm);
  return {rank < size ? rank : MPI_UNDEFINED, rank, size == comm_size(comm)};
}

Placement place(MPI_Comm comm, std::span<const int> dims, std::span<const Periodicity> periods,
                const NodeLayout& layout) {
  std::int64_t size = 1;
  for (const int d : dims) size *= d;
  const Placement identity = identity_placement(comm, size);
  const int k = layout.ranks_per_node;
  if (k <= 1) return identity;  // non-uniform nodes, or nothing to group
  const auto inner = plan_node_block(dims, periods, k);
  if (!inner) return identity;
  if (layout.node >= size / k) return {MPI_UNDEFINED, identity.lists_to, false};
  return {node_block_rank(dims, *inner, layout.node, layout.local_rank), identity.lists_to, false};
}

Placement place(MPI_Comm comm, const GraphTopology& graph, const NodeLayout& layout) {
  const auto nnodes = static_cast<int>(graph.index.size());
  const Placement identity = identity_placement(comm, nnodes);
  const int k = layout.ranks_per_node;
  if (k <= 1 || nnodes == 0) return identity;
  const auto blocks = graph_node_blocks(nnodes, graph.index, graph.edges, k);
  bool consecutive = true;
  for (std::size_t b = 0; b < blocks.size() && consecutive; ++b) {
    for (std::size_t i = 0; i < blocks[b].size() && consecutive; ++i) {
      consecutive = blocks[b][i] == static_cast<int>(b * static_cast<std::size_t>(k) + i);
    }
  }
  const auto node = static_cast<std::size_t>(layout.node);
  const auto local = static_cast<std::size_t>(layout.local_rank);
  if (node >= blocks.size() || local >= blocks[node].size()) return {MPI_UNDEFINED, identity.lists_to, false};
  return {blocks[node][local], identity.lists_to, consecutive && identity.same_order};
}

Placement place(MPI_Comm comm, const DistGraphTopology& own, const NodeLayout& layout,
                const ReorderSettings& settings) {
  const std::optional<Placement> moved = place_on_nodes(comm, own, layout, settings);
  return moved ? *moved : identity_placement(comm, comm_size(comm));
}

DistGraphTopology move_lists(MPI_Comm channel, DistGraphTopology own, const Placement& placement) {
  if (placement.same_order) return own;
  return ship_lists(channel, std::move(own), placement);
}

}  // namespace distopo::detail
