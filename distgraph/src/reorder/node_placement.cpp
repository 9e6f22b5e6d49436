#include "node_placement.hpp"

#include <array>
#include <numeric>
#include <string>
#include <vector>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/info.hpp"
#include "host_choice.hpp"

namespace distopo::detail {
namespace {

constexpr int kRoot = 0;

WholeGraph gather_whole_graph(MPI_Comm comm, const DistGraphTopology& own, const NodeLayout& layout) {
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  const int outdegree = static_cast<int>(own.destinations.size());
  const std::array<int, 2> mine{outdegree, layout.node};
  std::vector<int> gathered(rank == kRoot ? 2 * static_cast<std::size_t>(size) : 0);
  check_mpi(MPI_Gather(mine.data(), 2, MPI_INT, gathered.data(), 2, MPI_INT, kRoot, comm), "MPI_Gather");

  std::vector<int> counts;
  std::vector<int> displacements;
  if (rank == kRoot) {
    counts.resize(static_cast<std::size_t>(size));
    displacements.resize(static_cast<std::size_t>(size));
    for (int p = 0; p < size; ++p) counts[static_cast<std::size_t>(p)] = gathered[2 * static_cast<std::size_t>(p)];
    std::exclusive_scan(counts.begin(), counts.end(), displacements.begin(), 0);
  }
  const std::size_t total = rank == kRoot ? static_cast<std::size_t>(displacements.back() + counts.back()) : 0;
  std::vector<int> destinations(total);
  check_mpi(MPI_Gatherv(own.destinations.data(), outdegree, MPI_INT, destinations.data(), counts.data(),
                        displacements.data(), MPI_INT, kRoot, comm),
            "MPI_Gatherv");
  std::vector<int> weights(own.weighted ? total : 0);
  if (own.weighted) {
    check_mpi(MPI_Gatherv(own.destination_weights.data(), outdegree, MPI_INT, weights.data(), counts.data(),
                          displacements.data(), MPI_INT, kRoot, comm),
              "MPI_Gatherv");
  }

  WholeGraph graph;
  if (rank != kRoot) return graph;
  graph.node_count = layout.node_count;
  graph.node_of.resize(static_cast<std::size_t>(size));
  graph.edges.reserve(total);
  for (int p = 0; p < size; ++p) {
    graph.node_of[static_cast<std::size_t>(p)] = gathered[2 * static_cast<std::size_t>(p) + 1];
    const auto first = static_cast<std::size_t>(displacements[static_cast<std::size_t>(p)]);
    for (std::size_t e = first; e < first + static_cast<std::size_t>(counts[static_cast<std::size_t>(p)]); ++e) {
      graph.edges.push_back({p, destinations[e], own.weighted ? weights[e] : 1});
    }
  }
  return graph;
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
  if (edges > settings.gather_limit) return std::nullopt;

  const WholeGraph graph = gather_whole_graph(comm, own, layout);
  int moved = 0;
  std::vector<int> host;
  if (comm_rank(comm) == kRoot) {
    host = choose_hosts(graph, settings.effort);
    std::vector<int> identity(static_cast<std::size_t>(size));
    std::iota(identity.begin(), identity.end(), 0);
    moved = crossing_weight(graph, host) < crossing_weight(graph, identity) ? 1 : 0;
  }
  check_mpi(MPI_Bcast(&moved, 1, MPI_INT, kRoot, comm), "MPI_Bcast");
  if (moved == 0) return std::nullopt;

  // Each process learns the graph node it hosts and the host of its own.
  std::vector<int> pairs;
  if (comm_rank(comm) == kRoot) {
    pairs.resize(2 * static_cast<std::size_t>(size));
    for (int v = 0; v < size; ++v) {
      pairs[2 * static_cast<std::size_t>(host[static_cast<std::size_t>(v)])] = v;
      pairs[2 * static_cast<std::size_t>(v) + 1] = host[static_cast<std::size_t>(v)];
    }
  }
  std::array<int, 2> mine{};
  check_mpi(MPI_Scatter(pairs.data(), 2, MPI_INT, mine.data(), 2, MPI_INT, kRoot, comm), "MPI_Scatter");
  return Placement{mine[0], mine[1]};
}

}  // namespace distopo::detail
