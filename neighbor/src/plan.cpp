// The plan's local parts: the neighbor sequence of a topology record and the
// direct messages that carry its blocks.
#include "plan.hpp"

#include <cstddef>
#include <type_traits>
#include <unordered_map>
#include <variant>

#include "distopo/core/grid.hpp"

namespace distopo::detail {

MessagePlan::MessagePlan(std::span<const int> order, std::span<const int> ranks) {
  std::unordered_map<int, std::vector<int>> by_peer;  // each peer's slots, in order
  for (int slot : order) by_peer[ranks[static_cast<std::size_t>(slot)]].push_back(slot);
  slots_.reserve(order.size());
  for (int slot : order) {
    const int peer = ranks[static_cast<std::size_t>(slot)];
    auto& group = by_peer[peer];
    if (group.size() < kCoalesceSlots) {
      slots_.push_back(slot);
    } else if (group.front() == slot) {  // the peer's first slot: the whole group goes here
      slots_.insert(slots_.end(), group.begin(), group.end());
    } else {
      continue;  // already in the peer's message
    }
    peers_.push_back(peer);
    first_.push_back(slots_.size());
  }
}

namespace {

NeighborSequence cartesian_sequence(const CartesianTopology& cart) {
  NeighborSequence s;
  const std::size_t ndims = cart.dims.size();
  s.sources.reserve(2 * ndims);
  for (std::size_t d = 0; d < ndims; ++d) {
    for (int step : {-1, +1}) s.sources.push_back(shifted_rank(cart, d, step));
  }
  s.destinations = s.sources;
  for (std::size_t d = 0; d < ndims; ++d) {
    const int lower = static_cast<int>(2 * d);
    const int upper = lower + 1;
    // Receives (-1, +1), sends (+1, -1): see the pairing rule in the header.
    if (s.sources[static_cast<std::size_t>(lower)] != MPI_PROC_NULL) s.recv_order.push_back(lower);
    if (s.sources[static_cast<std::size_t>(upper)] != MPI_PROC_NULL) s.recv_order.push_back(upper);
    if (s.destinations[static_cast<std::size_t>(upper)] != MPI_PROC_NULL) s.send_order.push_back(upper);
    if (s.destinations[static_cast<std::size_t>(lower)] != MPI_PROC_NULL) s.send_order.push_back(lower);
  }
  return s;
}

std::vector<int> identity(std::size_t n) {
  std::vector<int> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<int>(i);
  return order;
}

NeighborSequence graph_sequence(const GraphTopology& graph, int rank) {
  NeighborSequence s;
  const auto r = static_cast<std::size_t>(rank);
  if (r < graph.index.size()) {
    const int begin = r == 0 ? 0 : graph.index[r - 1];
    const int end = graph.index[r];
    s.sources.assign(graph.edges.begin() + begin, graph.edges.begin() + end);
  }
  s.destinations = s.sources;
  s.recv_order = identity(s.sources.size());
  s.send_order = s.recv_order;
  return s;
}

NeighborSequence dist_graph_sequence(const DistGraphTopology& graph) {
  NeighborSequence s;
  s.sources = graph.sources;
  s.destinations = graph.destinations;
  s.recv_order = identity(s.sources.size());
  s.send_order = identity(s.destinations.size());
  return s;
}

}  // namespace

NeighborSequence neighbor_sequence(const TopologyRecord& record, int rank) {
  return std::visit(
      [rank](const auto& topology) -> NeighborSequence {
        using T = std::decay_t<decltype(topology)>;
        if constexpr (std::is_same_v<T, CartesianTopology>)
          return cartesian_sequence(topology);
        else if constexpr (std::is_same_v<T, GraphTopology>)
          return graph_sequence(topology, rank);
        else
          return dist_graph_sequence(topology);
      },
      record);
}

}  // namespace distopo::detail
