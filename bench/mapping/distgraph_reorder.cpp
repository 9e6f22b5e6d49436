// Quality and cost of the dist-graph reordering: the crossing weight (total
// weight of directed edges between machine nodes) of the identity, of
// distopo's mapping, of whole-graph METIS (k-way and recursive bisection with
// METIS' own balance, a reference that may overfill a node) and of the best
// block mapping (stencils), and what the mapping costs.
//
//   mpiexec -n P distgraph_reorder [--ranks-per-node 4,8] [--family ...] [--reps 5]
//       real runs on emulated nodes: time_s of "identity" is
//       dist_graph_create_adjacent without reorder, of "distopo" the time
//       reorder adds (medians over reps, max over ranks)
//   mpiexec -n R distgraph_reorder --mapping-only [--graph-nodes 4096,16384,65536] [--ranks-per-node 64]
//       the mapping below the gather limit, timed alone: rank 0 holds the
//       whole graph and the first min(R, 16) ranks (a power of two) bisect it
//   mpiexec -n R distgraph_reorder --mapping-only --path distributed ...
//       the multilevel mapping of the path above the gather limit, its
//       graph nodes spread in blocks over the R processes (1 is fine: the
//       mapping is the same for any R); time_s is the max over the R
//   --path distributed on real runs sets distopo_reorder_gather_limit to 1
// Prints one JSON object per line (rank 0):
//   {"impl","family","P","ranks_per_node","cut_weight","time_s","mode",...}
#include <metis.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "distopo/distgraph.hpp"
#include "host_choice.hpp"
#include "multilevel_partition.hpp"
#include "reorder_graphs.hpp"

namespace {

using distopo::detail::WholeGraph;

struct Settings {
  std::vector<std::string> families = bench::reorder_family_names();
  std::vector<int> ranks_per_node = {4, 8};
  std::vector<int> graph_nodes = {4096, 16384, 65536};
  int reps = 5;
  bool mapping_only = false;
  std::string effort = "balanced";  // info key distopo_reorder_effort
  std::string path = "gathered";    // or "distributed": the multilevel mapping above the gather limit
  std::int64_t gather_limit = 1;    // --mapping-only --path distributed: what rank 0 may hold of the coarse graph
};

distopo::detail::PartitionEffort effort_of(const std::string& name) {
  if (name == "fast") return distopo::detail::PartitionEffort::fast;
  if (name == "thorough") return distopo::detail::PartitionEffort::thorough;
  return distopo::detail::PartitionEffort::balanced;
}

WholeGraph whole_graph(const bench::Adjacency& adjacency, int ranks_per_node) {
  WholeGraph graph;
  const auto size = static_cast<int>(adjacency.size());
  for (int v = 0; v < size; ++v) {
    for (const auto& [u, w] : adjacency[static_cast<std::size_t>(v)]) graph.edges.push_back({v, u, w});
    graph.node_of.push_back(v / ranks_per_node);
  }
  graph.node_count = (size + ranks_per_node - 1) / ranks_per_node;
  return graph;
}

// Crossing weight when graph node v runs on machine node node_of[v].
std::int64_t crossing(const WholeGraph& graph, const std::vector<int>& node_of) {
  std::int64_t cut = 0;
  for (const auto& edge : graph.edges) {
    if (node_of[static_cast<std::size_t>(edge.source)] != node_of[static_cast<std::size_t>(edge.destination)]) {
      cut += edge.weight;
    }
  }
  return cut;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

void print(nlohmann::json row) { std::printf("%s\n", row.dump().c_str()), std::fflush(stdout); }

// Whole-graph METIS with its own balance (5 % at most over the average part):
// the reference the mapping is held against.
void print_metis_references(const WholeGraph& graph, nlohmann::json row) {
  if (graph.node_count <= 1) return;  // nothing to split (and METIS' k-way divides by zero on one part)
  const auto undirected = distopo::detail::partitioner_graph(static_cast<int>(graph.node_of.size()), graph.edges);
  for (const bool kway : {true, false}) {
    idx_t n = undirected.vertex_count();
    idx_t constraints = 1;
    idx_t parts = graph.node_count;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;
    options[METIS_OPTION_UFACTOR] = 50;
    idx_t cut = 0;
    std::vector<idx_t> part(static_cast<std::size_t>(n));
    auto* offsets = const_cast<idx_t*>(undirected.offsets.data());
    auto* targets = const_cast<idx_t*>(undirected.targets.data());
    auto* weights = const_cast<idx_t*>(undirected.weights.data());
    const double start = MPI_Wtime();
    const std::clock_t cpu_start = std::clock();
    const int status = kway ? METIS_PartGraphKway(&n, &constraints, offsets, targets, nullptr, nullptr, weights, &parts,
                                                  nullptr, nullptr, options, &cut, part.data())
                            : METIS_PartGraphRecursive(&n, &constraints, offsets, targets, nullptr, nullptr, weights,
                                                       &parts, nullptr, nullptr, options, &cut, part.data());
    const double seconds = MPI_Wtime() - start;
    const double cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    if (status != METIS_OK) continue;
    std::vector<int> fill(static_cast<std::size_t>(graph.node_count), 0);
    for (const idx_t p : part) ++fill[static_cast<std::size_t>(p)];
    row["impl"] = kway ? "metis_kway" : "metis_rb";
    row["cut_weight"] = crossing(graph, std::vector<int>(part.begin(), part.end()));
    row["time_s"] = seconds;
    row["cpu_s"] = cpu_seconds;
    row["largest_node"] = *std::max_element(fill.begin(), fill.end());
    print(row);
  }
}

void print_block(const std::string& family, int size, int ranks_per_node, nlohmann::json row) {
  const std::int64_t block = bench::best_block_crossing(family, size, ranks_per_node);
  if (block < 0) return;
  row["impl"] = "block";
  row["cut_weight"] = block;
  row["time_s"] = nullptr;
  print(row);
}

struct Cost {
  double seconds;      // wall time, max over ranks
  double cpu_seconds;  // CPU time of one rank, max over ranks: the figure to read on a shared or oversubscribed machine
};

template <class Call>
Cost cost_of(Call&& call) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  const std::clock_t cpu_start = std::clock();
  call();
  Cost cost{MPI_Wtime() - start, static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC};
  MPI_Allreduce(MPI_IN_PLACE, &cost, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return cost;
}

// The rows of one mapping-only run: identity, distopo (`mapped` crossing
// weight, `extra` fields) and the references.
void print_mapping(const WholeGraph& graph, const nlohmann::json& row, std::int64_t mapped, Cost cost,
                   const nlohmann::json& extra) {
  auto identity_row = row;
  identity_row.update({{"impl", "identity"}, {"cut_weight", crossing(graph, graph.node_of)}, {"time_s", 0.0}});
  print(identity_row);
  auto mapped_row = row;
  mapped_row.update(
      {{"impl", "distopo"}, {"cut_weight", mapped}, {"time_s", cost.seconds}, {"cpu_s", cost.cpu_seconds}});
  mapped_row.update(extra);
  print(mapped_row);
  print_metis_references(graph, row);
  print_block(row["family"], row["P"], row["ranks_per_node"], row);
}

// Rank 0 holds the whole graph, the first ranks bisect it (choose_hosts).
void mapping_only(const Settings& settings) {
  const int rank = distopo::comm_rank(MPI_COMM_WORLD);
  for (const auto& family : settings.families) {
    for (const int size : settings.graph_nodes) {
      for (const int k : settings.ranks_per_node) {
        const WholeGraph graph = rank == 0 ? whole_graph(bench::make_reorder_graph(family, size), k) : WholeGraph{};
        std::optional<std::vector<int>> host;
        const Cost cost =
            cost_of([&] { host = distopo::detail::choose_hosts(MPI_COMM_WORLD, graph, effort_of(settings.effort)); });
        if (rank != 0) continue;
        if (!host) throw std::runtime_error("no memory for the mapping");
        const nlohmann::json row{{"family", family},         {"P", size},
                                 {"ranks_per_node", k},      {"mode", "mapping_only"},
                                 {"path", "gathered"},       {"processes", distopo::comm_size(MPI_COMM_WORLD)},
                                 {"effort", settings.effort}};
        print_mapping(graph, row, distopo::detail::crossing_weight(graph, *host), cost, nlohmann::json::object());
      }
    }
  }
}

// The multilevel mapping on the graph spread in blocks over the processes of
// MPI_COMM_WORLD; rank 0 prints. The families are symmetric, so a vertex's
// in-list equals its out-list: its merged neighbors weigh 2w, as in
// dist_graph_create.
void mapping_only_distributed(const Settings& settings) {
  const int rank = distopo::comm_rank(MPI_COMM_WORLD);
  const int processes = distopo::comm_size(MPI_COMM_WORLD);
  for (const auto& family : settings.families) {
    for (const int size : settings.graph_nodes) {
      for (const int k : settings.ranks_per_node) {
        const bench::Adjacency adjacency = bench::make_reorder_graph(family, size);
        distopo::detail::HeldGraph held;
        held.blocks = {size, (size + processes - 1) / processes};
        held.offsets = {0};
        for (int v = rank * held.blocks.per_rank; v < std::min(size, (rank + 1) * held.blocks.per_rank); ++v) {
          held.ids.push_back(v);
          for (const auto& [u, w] : adjacency[static_cast<std::size_t>(v)]) {
            held.targets.push_back(u);
            held.weights.push_back(2 * static_cast<std::int64_t>(w));
          }
          held.offsets.push_back(held.targets.size());
        }
        const int parts = (size + k - 1) / k;
        std::vector<distopo::detail::PartCapacity> coordinated;
        for (int p = 0; p < parts; ++p) {
          if (held.blocks.owner(p) == rank) coordinated.push_back({p, std::min(k, size - p * k)});
        }
        std::optional<std::vector<int>> part;
        std::int64_t rounds = 0;
        distopo::detail::LargestSplit largest;
        const Cost cost = cost_of([&] {
          distopo::detail::RecordExchange exchange(MPI_COMM_WORLD);
          part = distopo::detail::multilevel_partition(exchange, held, coordinated, parts, settings.gather_limit,
                                                       effort_of(settings.effort), &largest);
          rounds = exchange.rounds();
        });
        std::array<std::int64_t, 2> split_size{largest.vertices, largest.entries};
        MPI_Allreduce(MPI_IN_PLACE, split_size.data(), 2, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        // Every block has per_rank vertices but the last: gather them in order.
        std::vector<int> counts(static_cast<std::size_t>(processes));
        const int mine = static_cast<int>(held.ids.size());
        MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
        std::vector<int> displacements(counts.size(), 0);
        std::exclusive_scan(counts.begin(), counts.end(), displacements.begin(), 0);
        std::vector<int> node_of(static_cast<std::size_t>(size), 0);
        const std::vector<int> own = part ? *part : std::vector<int>(held.ids.size(), -1);
        MPI_Gatherv(own.data(), mine, MPI_INT, node_of.data(), counts.data(), displacements.data(), MPI_INT, 0,
                    MPI_COMM_WORLD);
        if (rank != 0) continue;
        const WholeGraph graph = whole_graph(adjacency, k);
        const nlohmann::json row{{"family", family},
                                 {"P", size},
                                 {"ranks_per_node", k},
                                 {"mode", "mapping_only"},
                                 {"path", "distributed"},
                                 {"processes", processes},
                                 {"gather_limit", settings.gather_limit},
                                 {"effort", settings.effort}};
        print_mapping(graph, row, part ? crossing(graph, node_of) : crossing(graph, graph.node_of), cost,
                      {{"gave_up", !part},
                       {"exchange_rounds", rounds},
                       {"largest_split_vertices", split_size[0]},
                       {"largest_split_entries", split_size[1]}});
      }
    }
  }
}

class RanksPerNodeInfo {
 public:
  explicit RanksPerNodeInfo(int k) {
    MPI_Info_create(&info_);
    MPI_Info_set(info_, "distopo_ranks_per_node", std::to_string(k).c_str());
  }
  void set(const char* key, const std::string& value) { MPI_Info_set(info_, key, value.c_str()); }
  ~RanksPerNodeInfo() { MPI_Info_free(&info_); }
  RanksPerNodeInfo(const RanksPerNodeInfo&) = delete;
  RanksPerNodeInfo& operator=(const RanksPerNodeInfo&) = delete;
  [[nodiscard]] MPI_Info get() const { return info_; }

 private:
  MPI_Info info_ = MPI_INFO_NULL;
};

void real_runs(const Settings& settings) {
  const int rank = distopo::comm_rank(MPI_COMM_WORLD);
  const int size = distopo::comm_size(MPI_COMM_WORLD);
  for (const auto& family : settings.families) {
    const bench::Adjacency adjacency = bench::make_reorder_graph(family, size);
    std::vector<int> ranks;
    std::vector<int> weights;
    for (const auto& [u, w] : adjacency[static_cast<std::size_t>(rank)]) ranks.push_back(u), weights.push_back(w);
    for (const int k : settings.ranks_per_node) {
      if (k >= size) continue;
      RanksPerNodeInfo info(k);
      info.set("distopo_reorder_effort", settings.effort);
      if (settings.path == "distributed") info.set("distopo_reorder_gather_limit", "1");
      const auto create = [&](bool reorder) {
        return distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, ranks, weights, ranks, weights,
                                                   {.weighted = true, .reorder = reorder, .info = info.get()});
      };
      std::vector<double> plain;
      std::vector<double> reordered;
      for (int rep = 0; rep < settings.reps; ++rep) {
        plain.push_back(cost_of([&] { (void)create(false); }).seconds);
        reordered.push_back(cost_of([&] { (void)create(true); }).seconds);
      }
      // Machine node of each graph node after the mapping: its process's emulated node.
      const distopo::Comm result = create(true);
      const int my_node = rank / k;
      std::vector<int> node_of(static_cast<std::size_t>(size));
      MPI_Allgather(&my_node, 1, MPI_INT, node_of.data(), 1, MPI_INT, result);
      if (rank != 0) continue;
      const WholeGraph graph = whole_graph(adjacency, k);
      const nlohmann::json row{{"family", family},          {"P", size},
                               {"ranks_per_node", k},       {"mode", "real"},
                               {"effort", settings.effort}, {"path", settings.path}};
      auto identity = row;
      identity.update(
          {{"impl", "identity"}, {"cut_weight", crossing(graph, graph.node_of)}, {"time_s", median(plain)}});
      print(identity);
      auto mapped = row;
      mapped.update({{"impl", "distopo"},
                     {"cut_weight", crossing(graph, node_of)},
                     {"time_s", std::max(0.0, median(reordered) - median(plain))}});
      print(mapped);
      print_metis_references(graph, row);
      print_block(family, size, k, row);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  CLI::App app{"quality and cost of the dist-graph reordering"};
  Settings settings;
  app.add_option("--family", settings.families, "graph families")->delimiter(',');
  app.add_option("--ranks-per-node", settings.ranks_per_node, "emulated ranks per node")->delimiter(',');
  app.add_option("--graph-nodes", settings.graph_nodes, "graph sizes of --mapping-only")->delimiter(',');
  app.add_option("--reps", settings.reps, "timed repetitions (median)")->check(CLI::PositiveNumber);
  app.add_option("--effort", settings.effort, "fast, balanced or thorough")
      ->check(CLI::IsMember({"fast", "balanced", "thorough"}));
  app.add_option("--path", settings.path, "gathered (below the gather limit) or distributed (above it)")
      ->check(CLI::IsMember({"gathered", "distributed"}));
  app.add_option("--gather-limit", settings.gather_limit,
                 "--mapping-only --path distributed: coarse-graph entries rank 0 may hold (1: coarsen fully)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--mapping-only", settings.mapping_only, "time the mapping alone on one process");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    MPI_Finalize();
    return code;
  }
  if (settings.mapping_only && settings.path == "distributed") {
    mapping_only_distributed(settings);
  } else if (settings.mapping_only) {
    mapping_only(settings);
  } else {
    real_runs(settings);
  }
  MPI_Finalize();
  return 0;
}
