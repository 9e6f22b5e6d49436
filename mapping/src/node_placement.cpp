#include "node_placement.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <new>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/info.hpp"
#include "distopo/core/private_channel.hpp"
#include "host_choice.hpp"
#include "multilevel_partition.hpp"
#include "record_exchange.hpp"

namespace distopo::detail {
namespace {

constexpr int kRoot = 0;

// The whole graph on rank 0 (an empty one elsewhere), or nullopt on every
// rank when rank 0 has no memory for it: rank 0 allocates it all before the
// edges travel and says whether it could (one broadcast), so nobody waits.
std::optional<WholeGraph> gather_whole_graph(MPI_Comm comm, const DistGraphTopology& own, const NodeLayout& layout) {
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  const int outdegree = static_cast<int>(own.destinations.size());
  const std::array<int, 2> mine{outdegree, layout.node};
  std::vector<int> gathered(rank == kRoot ? 2 * static_cast<std::size_t>(size) : 0);
  check_mpi(MPI_Gather(mine.data(), 2, MPI_INT, gathered.data(), 2, MPI_INT, kRoot, comm), "MPI_Gather");

  std::vector<int> counts;
  std::vector<int> displacements;
  std::vector<int> destinations;
  std::vector<int> weights;
  WholeGraph graph;
  int allocated = 1;
  if (rank == kRoot) {
    try {
      counts.resize(static_cast<std::size_t>(size));
      displacements.resize(static_cast<std::size_t>(size));
      for (int p = 0; p < size; ++p) counts[static_cast<std::size_t>(p)] = gathered[2 * static_cast<std::size_t>(p)];
      std::exclusive_scan(counts.begin(), counts.end(), displacements.begin(), 0);
      const auto total = static_cast<std::size_t>(displacements.back() + counts.back());
      destinations.resize(total);
      weights.resize(own.weighted ? total : 0);
      graph.node_of.resize(static_cast<std::size_t>(size));
      graph.edges.reserve(total);
    } catch (const std::bad_alloc&) {
      allocated = 0;
    }
  }
  check_mpi(MPI_Bcast(&allocated, 1, MPI_INT, kRoot, comm), "MPI_Bcast");
  if (allocated == 0) return std::nullopt;
  check_mpi(MPI_Gatherv(own.destinations.data(), outdegree, MPI_INT, destinations.data(), counts.data(),
                        displacements.data(), MPI_INT, kRoot, comm),
            "MPI_Gatherv");
  if (own.weighted) {
    check_mpi(MPI_Gatherv(own.destination_weights.data(), outdegree, MPI_INT, weights.data(), counts.data(),
                          displacements.data(), MPI_INT, kRoot, comm),
              "MPI_Gatherv");
  }

  if (rank != kRoot) return graph;
  graph.node_count = layout.node_count;
  for (int p = 0; p < size; ++p) {
    graph.node_of[static_cast<std::size_t>(p)] = gathered[2 * static_cast<std::size_t>(p) + 1];
    const auto first = static_cast<std::size_t>(displacements[static_cast<std::size_t>(p)]);
    for (std::size_t e = first; e < first + static_cast<std::size_t>(counts[static_cast<std::size_t>(p)]); ++e) {
      graph.edges.push_back({p, destinations[e], own.weighted ? weights[e] : 1});
    }
  }
  return graph;
}

// Graph node `rank`'s neighbors, both directions merged (weight 1 each when
// unweighted): the partitioner's view, one vertex held per rank.
HeldGraph own_vertex(const DistGraphTopology& own, int rank, int size) {
  HeldGraph graph;
  graph.blocks = {size, 1};
  graph.ids = {rank};
  graph.offsets = {0};
  const auto add = [&](const std::vector<int>& ranks, const std::vector<int>& weights) {
    for (std::size_t e = 0; e < ranks.size(); ++e) {
      graph.targets.push_back(ranks[e]);
      graph.weights.push_back(own.weighted ? weights[e] : 1);
    }
  };
  add(own.sources, own.source_weights);
  add(own.destinations, own.destination_weights);
  graph.offsets.push_back(graph.targets.size());
  return graph;
}

// The crossing weight of the identity and of the mapping to `part`, on the
// exact directed edges: each graph node tells its in-neighbors its machine
// node and its part, and each sums its out-edges. Collective.
std::array<std::int64_t, 2> crossing_weights(RecordExchange& exchange, const DistGraphTopology& own,
                                             const NodeLayout& layout, int part) {
  const int rank = comm_rank(exchange.comm());
  std::vector<int> told = own.sources;
  std::sort(told.begin(), told.end());
  told.erase(std::unique(told.begin(), told.end()), told.end());
  for (const int source : told) exchange.post(source, {rank, layout.node, part});
  std::vector<std::array<int, 3>> heard;  // (graph node, machine node, part)
  exchange.deliver([&](std::span<const Word> words) {
    for (RecordReader in(words); in.more();) {
      const int v = in.next_int();
      const int node = in.next_int();
      heard.push_back({v, node, in.next_int()});
    }
  });
  std::sort(heard.begin(), heard.end());
  std::array<std::int64_t, 2> crossing{0, 0};
  for (std::size_t e = 0; e < own.destinations.size(); ++e) {
    const int d = own.destinations[e];
    if (d == rank) continue;  // a self-loop never crosses
    const std::int64_t w = own.weighted ? own.destination_weights[e] : 1;
    const auto it = std::lower_bound(heard.begin(), heard.end(), std::array<int, 3>{d, INT_MIN, INT_MIN});
    // A destination that did not name this rank as a source (inconsistent
    // adjacent lists) counts as crossing for both.
    const bool known = it != heard.end() && (*it)[0] == d;
    if (!known || (*it)[1] != layout.node) crossing[0] += w;
    if (!known || (*it)[2] != part) crossing[1] += w;
  }
  exchange.sum(crossing);
  return crossing;
}

// Above the gather limit: the multilevel partition (multilevel_partition.hpp)
// over one graph node per rank. Rank i coordinates machine node i: it learns
// the node's processes and the graph nodes of part i, and places them (those
// already on the node stay). The last round's handler takes no memory, so a
// rank that runs out of it always finds the others in a round to abandon.
std::optional<Placement> map_distributed(RecordExchange& exchange, const DistGraphTopology& own,
                                         const NodeLayout& layout, const ReorderSettings& settings) {
  const MPI_Comm comm = exchange.comm();
  const int rank = comm_rank(comm);
  exchange.post(layout.node, {rank});
  std::vector<int> processes;  // of the machine node this rank coordinates
  exchange.deliver([&](std::span<const Word> words) {
    for (RecordReader in(words); in.more();) processes.push_back(in.next_int());
  });
  std::sort(processes.begin(), processes.end());
  std::vector<PartCapacity> coordinated;
  if (!processes.empty()) coordinated.push_back({rank, static_cast<int>(processes.size())});

  const auto parts = multilevel_partition(exchange, own_vertex(own, rank, comm_size(comm)), coordinated,
                                          layout.node_count, settings.gather_limit, settings.effort);
  if (!parts) return std::nullopt;
  const int part = parts->front();
  const auto [identity, mapped] = crossing_weights(exchange, own, layout, part);
  if (mapped >= identity) return std::nullopt;

  // Part i goes to machine node i, whose capacity it has.
  exchange.post(part, {rank, layout.node});
  std::vector<std::array<int, 2>> members;  // (graph node, its process's machine node)
  exchange.deliver([&](std::span<const Word> words) {
    for (RecordReader in(words); in.more();) {
      const int v = in.next_int();
      members.push_back({v, in.next_int()});
    }
  });
  std::sort(members.begin(), members.end());
  enum Kind : Word { kHost, kGraphNode };
  std::vector<char> busy(processes.size(), 0);
  const auto slot = [&](int process) {
    return static_cast<std::size_t>(std::lower_bound(processes.begin(), processes.end(), process) - processes.begin());
  };
  const auto place = [&](int v, int host) {
    exchange.post(v, {kHost, host});
    exchange.post(host, {kGraphNode, v});
    busy[slot(host)] = 1;
  };
  for (const auto& [v, node] : members) {
    if (node == rank) place(v, v);  // part `rank` is machine node `rank`: already there
  }
  std::size_t next = 0;
  for (const auto& [v, node] : members) {
    if (node == rank) continue;
    while (busy[next]) ++next;
    place(v, processes[next]);
  }
  Placement placement;
  exchange.deliver([&](std::span<const Word> words) {
    for (RecordReader in(words); in.more();) {
      const Word kind = in.next();
      (kind == kHost ? placement.lists_to : placement.rank) = in.next_int();
    }
  });
  return placement;
}

// Reordering is a hint: where a rank runs out of memory on the way, every
// rank keeps the identity, all after the same round (record_exchange.hpp).
std::optional<Placement> place_distributed(MPI_Comm comm, const DistGraphTopology& own, const NodeLayout& layout,
                                           const ReorderSettings& settings) {
  RecordExchange exchange(comm);
  try {
    return map_distributed(exchange, own, layout, settings);
  } catch (const ReorderAbandoned&) {
    return std::nullopt;
  } catch (const std::bad_alloc&) {
    exchange.abandon();
    return std::nullopt;
  }
}

}  // namespace

ReorderSettings agreed_reorder_settings(MPI_Comm comm, MPI_Info info) {
  ReorderSettings settings;
  int effort = static_cast<int>(settings.effort);
  if (comm_rank(comm) == kRoot) {
    if (const auto limit = info_value(info, kReorderGatherLimitKey)) {
      if (const int parsed = parse_positive(limit->c_str()); parsed > 0) settings.gather_limit = parsed;
    }
    if (const auto name = info_value(info, kReorderEffortKey)) {
      if (*name == "fast") effort = static_cast<int>(PartitionEffort::fast);
      if (*name == "balanced") effort = static_cast<int>(PartitionEffort::balanced);
      if (*name == "thorough") effort = static_cast<int>(PartitionEffort::thorough);
    }
  }
  // One reduction: rank 0's hints (every other rank contributes 0), and the
  // emulated ranks per node, which must agree (max of k and of -k).
  const int k = emulated_ranks_per_node(info);
  const bool root = comm_rank(comm) == kRoot;
  std::array<int, 4> values{root ? settings.gather_limit : 0, root ? effort + 1 : 0, k, -k};
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), 4, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (values[2] != -values[3]) {
    throw Error(MPI_ERR_ARG,
                std::string("MPI_Dist_graph_create with reorder: the ranks differ in ") + kRanksPerNodeSetting);
  }
  settings.gather_limit = values[0];
  settings.effort = static_cast<PartitionEffort>(values[1] - 1);
  settings.ranks_per_node = values[2];
  return settings;
}

std::optional<Placement> place_on_nodes(MPI_Comm comm, const DistGraphTopology& own, const NodeLayout& layout,
                                        const ReorderSettings& settings) {
  const int size = comm_size(comm);
  // One machine node, or one process per node: every mapping crosses the same.
  if (layout.node_count <= 1 || layout.node_count == size) return std::nullopt;
  auto edges = static_cast<std::int64_t>(own.destinations.size());
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &edges, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Allreduce");
  if (edges > settings.gather_limit) return place_distributed(comm, own, layout, settings);

  // Reordering is a hint: where rank 0 or a helper runs out of memory on the
  // way, every rank keeps the identity instead of failing.
  const std::optional<WholeGraph> graph = gather_whole_graph(comm, own, layout);
  if (!graph) return std::nullopt;
  int moved = 0;
  const std::optional<std::vector<int>> host = choose_hosts(private_channel(comm).comm, *graph, settings.effort);
  // Each process learns the graph node it hosts and the host of its own.
  std::vector<int> pairs;
  if (comm_rank(comm) == kRoot && host) {
    try {
      std::vector<int> identity(static_cast<std::size_t>(size));
      std::iota(identity.begin(), identity.end(), 0);
      if (crossing_weight(*graph, *host) < crossing_weight(*graph, identity)) {
        pairs.resize(2 * static_cast<std::size_t>(size));
        for (int v = 0; v < size; ++v) {
          pairs[2 * static_cast<std::size_t>((*host)[static_cast<std::size_t>(v)])] = v;
          pairs[2 * static_cast<std::size_t>(v) + 1] = (*host)[static_cast<std::size_t>(v)];
        }
        moved = 1;
      }
    } catch (const std::bad_alloc&) {
      moved = 0;
    }
  }
  check_mpi(MPI_Bcast(&moved, 1, MPI_INT, kRoot, comm), "MPI_Bcast");
  if (moved == 0) return std::nullopt;
  std::array<int, 2> mine{};
  check_mpi(MPI_Scatter(pairs.data(), 2, MPI_INT, mine.data(), 2, MPI_INT, kRoot, comm), "MPI_Scatter");
  return Placement{mine[0], mine[1], false};
}

}  // namespace distopo::detail
