#include "host_choice.hpp"

#include <algorithm>
#include <map>
#include <new>
#include <tuple>

#include "distopo/core/comm.hpp"
#include "parallel_bisection.hpp"

namespace distopo::detail {
namespace {

// Parts -> machine nodes of the same capacity, most graph nodes already there
// first; then, inside each machine node, a graph node whose own process is
// there stays on it and the others fill the remaining processes in rank
// order. Moves as few lists as the partition allows.
std::vector<int> hosts_for(const WholeGraph& graph, const std::vector<int>& part) {
  const auto size = graph.node_of.size();
  std::vector<std::vector<int>> processes(static_cast<std::size_t>(graph.node_count));
  for (std::size_t p = 0; p < size; ++p)
    processes[static_cast<std::size_t>(graph.node_of[p])].push_back(static_cast<int>(p));

  std::map<std::pair<int, int>, int> overlap;  // (part, node) -> graph nodes of the part already on the node
  for (std::size_t v = 0; v < size; ++v) ++overlap[{part[v], graph.node_of[v]}];
  std::vector<std::tuple<int, int, int>> by_overlap;  // (-count, part, node)
  for (const auto& [key, count] : overlap) by_overlap.emplace_back(-count, key.first, key.second);
  std::sort(by_overlap.begin(), by_overlap.end());
  const auto capacity = [&](int node) { return processes[static_cast<std::size_t>(node)].size(); };
  std::vector<int> node_of_part(static_cast<std::size_t>(graph.node_count), -1);
  std::vector<char> taken(static_cast<std::size_t>(graph.node_count), 0);
  for (const auto& [count, p, node] : by_overlap) {
    if (node_of_part[static_cast<std::size_t>(p)] < 0 && !taken[static_cast<std::size_t>(node)] &&
        capacity(node) == capacity(p)) {
      node_of_part[static_cast<std::size_t>(p)] = node;
      taken[static_cast<std::size_t>(node)] = 1;
    }
  }
  for (int p = 0; p < graph.node_count; ++p) {
    if (node_of_part[static_cast<std::size_t>(p)] >= 0) continue;
    for (int node = 0; node < graph.node_count; ++node) {
      if (!taken[static_cast<std::size_t>(node)] && capacity(node) == capacity(p)) {
        node_of_part[static_cast<std::size_t>(p)] = node;
        taken[static_cast<std::size_t>(node)] = 1;
        break;
      }
    }
  }

  std::vector<int> host(size, -1);
  std::vector<char> busy(size, 0);
  for (std::size_t v = 0; v < size; ++v) {
    if (node_of_part[static_cast<std::size_t>(part[v])] == graph.node_of[v]) {
      host[v] = static_cast<int>(v);
      busy[v] = 1;
    }
  }
  std::vector<std::size_t> next_free(static_cast<std::size_t>(graph.node_count), 0);
  for (std::size_t v = 0; v < size; ++v) {
    if (host[v] >= 0) continue;
    const auto node = static_cast<std::size_t>(node_of_part[static_cast<std::size_t>(part[v])]);
    std::size_t& next = next_free[node];
    while (busy[static_cast<std::size_t>(processes[node][next])]) ++next;
    host[v] = processes[node][next];
    busy[static_cast<std::size_t>(host[v])] = 1;
  }
  return host;
}

}  // namespace

std::optional<std::vector<int>> choose_hosts(MPI_Comm channel, const WholeGraph& graph, PartitionEffort effort) {
  const bool root = comm_rank(channel) == 0;
  // Part i is sized for machine node i.
  std::vector<int> capacities;
  std::optional<UndirectedGraph> undirected;
  if (root) {
    try {
      capacities.assign(static_cast<std::size_t>(graph.node_count), 0);
      for (const int node : graph.node_of) ++capacities[static_cast<std::size_t>(node)];
      undirected = partitioner_graph(static_cast<int>(graph.node_of.size()), graph.edges);
    } catch (const std::bad_alloc&) {
      undirected.reset();  // the helpers hear of it and return
    }
  }
  std::optional<std::vector<int>> part =
      bisect_in_parallel(channel, undirected, capacities, cuts_per_bisection(effort));
  if (!root || !part) return std::nullopt;
  try {
    finish_exact(*undirected, capacities, *part, effort);
    return hosts_for(graph, *part);
  } catch (const std::bad_alloc&) {
    return std::nullopt;
  }
}

std::int64_t crossing_weight(const WholeGraph& graph, const std::vector<int>& host) {
  std::int64_t cut = 0;
  for (const DirectedEdge& edge : graph.edges) {
    const int from = graph.node_of[static_cast<std::size_t>(host[static_cast<std::size_t>(edge.source)])];
    const int to = graph.node_of[static_cast<std::size_t>(host[static_cast<std::size_t>(edge.destination)])];
    if (from != to) cut += edge.weight;
  }
  return cut;
}

}  // namespace distopo::detail
