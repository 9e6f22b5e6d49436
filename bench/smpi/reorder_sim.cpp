// The reorder mapping of dist_graph_create at simulated scale (SimGrid SMPI):
// distopo::detail::place() (distopo/mapping/placement.hpp),
// the library's own code, with one graph node per simulated rank and emulated
// machine nodes of --ranks-per-node consecutive ranks, on a duplicate of MPI_COMM_WORLD.
// Prints on rank 0 one JSON object per line and family:
//   time_s          simulated time of place(), from a common start
//                   instant to each rank's return, max over ranks
//   cut_weight      crossing weight (directed edges between machine nodes) of
//                   the mapping returned (the identity's when it kept it)
//   identity_cut    the identity's crossing weight
//   exchange_rounds rounds of the sparse exchange (RecordExchange) in the call,
//                   counted from outside: each round takes its private
//                   channel once (distopo::private_channel ->
//                   MPI_Comm_get_attr, wrapped at link time)
// The call runs on a duplicate of MPI_COMM_WORLD whose two private channels
// exist already (see main).
// Run: smpirun -np P -platform ... reorder_sim --family stencil2d --ranks-per-node 64 ...
// (scripts/smpi/simulate_reorder.sh sets the SMPI configuration).
#include <mpi.h>

// smpicxx forces smpi_helpers.h into every file, whose exit(x) macro clobbers
// CLI::App::exit; this program never calls exit().
#undef exit
// It also makes clock_gettime() read the simulated clock; the calibration
// needs the host's CPU clock of this thread.
#undef clock_gettime
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <exception>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "distopo/core/node_layout.hpp"
#include "distopo/core/private_channel.hpp"
#include "distopo/core/topology.hpp"
#include "distopo/mapping/placement.hpp"
#include "reorder_graphs.hpp"
#include "simulated_start.hpp"

// Calls of MPI_Comm_get_attr from the library, per simulated rank (the
// program is linked with -Wl,--wrap=MPI_Comm_get_attr). SMPI runs every
// simulated rank in this one process without privatization, so the counts
// are indexed by rank in MPI_COMM_WORLD. Simulated ranks run one at a time.
namespace {
std::vector<long long> get_attr_calls;
}  // namespace

extern "C" int __real_MPI_Comm_get_attr(MPI_Comm comm, int keyval, void* value, int* found);
extern "C" int __wrap_MPI_Comm_get_attr(MPI_Comm comm, int keyval, void* value, int* found) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (static_cast<std::size_t>(rank) < get_attr_calls.size()) ++get_attr_calls[static_cast<std::size_t>(rank)];
  return __real_MPI_Comm_get_attr(comm, keyval, value, found);
}

namespace {

struct Settings {
  std::vector<std::string> families = {"stencil2d"};
  int ranks_per_node = 64;
  std::string path = "gathered";    // gathered: the default gather limit; distributed: gather limit 1
  std::string effort = "balanced";  // distopo_reorder_effort
  double calibrate = 0.0;           // seconds of CPU to burn on rank 0 to check the compute charge
  // Labels copied into every row (set by the script).
  std::string compute = "network_only";
  std::string platform = "";
};

distopo::detail::PartitionEffort effort_of(const std::string& name) {
  if (name == "fast") return distopo::detail::PartitionEffort::fast;
  if (name == "thorough") return distopo::detail::PartitionEffort::thorough;
  return distopo::detail::PartitionEffort::balanced;
}

// The whole graph, built once for all simulated ranks (they share this
// process's memory without privatization), by whichever rank asks first, and
// not charged as computation to it. Read-only afterwards.
const bench::Adjacency& whole_graph(const std::string& family, int size) {
  static std::map<std::pair<std::string, int>, bench::Adjacency> graphs;
  const auto key = std::make_pair(family, size);
  auto it = graphs.find(key);
  if (it == graphs.end()) {
    smpi_bench_end();
    it = graphs.emplace(key, bench::make_reorder_graph(family, size)).first;
    smpi_bench_begin();
  }
  return it->second;
}

// Graph node `rank`'s lists as dist_graph_create_adjacent records them with
// the same (symmetric) list given as sources and destinations.
distopo::DistGraphTopology own_lists(const bench::Adjacency& graph, int rank) {
  distopo::DistGraphTopology own;
  own.weighted = true;
  for (const auto& [u, w] : graph[static_cast<std::size_t>(rank)]) {
    own.sources.push_back(u);
    own.source_weights.push_back(w);
  }
  own.destinations = own.sources;
  own.destination_weights = own.source_weights;
  return own;
}

// Crossing weight when graph node v runs on machine node node_of(v), every
// directed edge counted (as the library and bench/distgraph_reorder count).
template <class NodeOf>
std::int64_t crossing(const bench::Adjacency& graph, NodeOf&& node_of) {
  std::int64_t cut = 0;
  for (int v = 0; v < static_cast<int>(graph.size()); ++v) {
    for (const auto& [u, w] : graph[static_cast<std::size_t>(v)]) {
      if (node_of(v) != node_of(u)) cut += w;
    }
  }
  return cut;
}

// The start guard (simulated_start.hpp): far longer than its allreduce takes at 65536 ranks.
constexpr double kStartGuard = 1e-2;

double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// Rank 0 burns `seconds` of CPU between two MPI calls: where computation is
// charged, the simulated clock should advance by as much.
void calibrate(double seconds, int rank, const Settings& settings) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    const double simulated_start = MPI_Wtime();
    const double cpu_start = thread_cpu_seconds();
    volatile double sink = 0;
    while (thread_cpu_seconds() - cpu_start < seconds) {
      for (int i = 0; i < 10000; ++i) sink = sink + 1e-9 * i;
    }
    const double cpu = thread_cpu_seconds() - cpu_start;
    const double simulated = MPI_Wtime() - simulated_start;
    const nlohmann::json row = {
        {"calibration", true}, {"compute", settings.compute}, {"cpu_s", cpu}, {"simulated_s", simulated}};
    std::printf("%s\n", row.dump().c_str());
    std::fflush(stdout);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

void run_family(const Settings& settings, const std::string& family, MPI_Comm comm, int rank, int size) {
  const bench::Adjacency& graph = whole_graph(family, size);
  const distopo::DistGraphTopology own = own_lists(graph, rank);
  const int k = settings.ranks_per_node;
  const distopo::NodeLayout layout = distopo::discover_nodes(MPI_COMM_WORLD, k);  // emulated: local, no MPI
  distopo::detail::ReorderSettings reorder;
  if (settings.path == "distributed") reorder.gather_limit = 1;
  reorder.effort = effort_of(settings.effort);
  reorder.ranks_per_node = k;

  const double start = bench::start_together(kStartGuard);
  const long long calls_before = get_attr_calls[static_cast<std::size_t>(rank)];
  const distopo::detail::Placement placement = distopo::detail::place(comm, own, layout, reorder);
  const double elapsed = MPI_Wtime() - start;
  const long long calls = get_attr_calls[static_cast<std::size_t>(rank)] - calls_before;

  double maxima[2] = {elapsed, static_cast<double>(calls)};
  MPI_Allreduce(MPI_IN_PLACE, maxima, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double minima[2] = {elapsed, static_cast<double>(calls)};
  MPI_Allreduce(MPI_IN_PLACE, minima, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  // Process hosting each graph node (graph node v is rank v here).
  const int host = placement.lists_to;
  std::vector<int> hosts(rank == 0 ? static_cast<std::size_t>(size) : 0);
  MPI_Gather(&host, 1, MPI_INT, hosts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int moved = placement.same_order ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank != 0) return;

  const std::int64_t identity_cut = crossing(graph, [&](int v) { return v / k; });
  const std::int64_t cut = crossing(graph, [&](int v) { return hosts[static_cast<std::size_t>(v)] / k; });
  long long edges = 0;
  for (const auto& list : graph) edges += static_cast<long long>(list.size());
  nlohmann::json row = {{"impl", "distopo"},
                        {"path", settings.path},
                        {"family", family},
                        {"P", size},
                        {"ranks_per_node", k},
                        {"effort", settings.effort},
                        {"gather_limit", reorder.gather_limit},
                        {"edges", edges},
                        {"cut_weight", cut},
                        {"identity_cut", identity_cut},
                        {"mapped", moved != 0},
                        {"time_s", maxima[0]},
                        {"min_rank_time_s", minima[0]},
                        {"compute", settings.compute},
                        {"platform", settings.platform},
                        {"mode", "smpi"}};
  if (settings.path == "distributed") {
    // Every rank takes part in every round: the counts agree.
    row["exchange_rounds"] = static_cast<long long>(maxima[1]);
    if (minima[1] != maxima[1]) row["exchange_rounds_min"] = static_cast<long long>(minima[1]);
    if (maxima[1] > 0) row["time_per_round_s"] = maxima[0] / maxima[1];
  }
  std::printf("%s\n", row.dump().c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (get_attr_calls.empty()) get_attr_calls.assign(static_cast<std::size_t>(size), 0);

  Settings settings;
  CLI::App app{"the reorder mapping of dist_graph_create (place) under SMPI"};
  app.add_option("--family", settings.families, "graph families (bench/mapping/reorder_graphs.hpp)")
      ->delimiter(',')
      ->check(CLI::IsMember(bench::reorder_family_names()));
  app.add_option("--ranks-per-node", settings.ranks_per_node, "emulated ranks per machine node")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--path", settings.path, "gathered (default gather limit) or distributed (gather limit 1)")
      ->check(CLI::IsMember({"gathered", "distributed"}));
  app.add_option("--effort", settings.effort, "fast, balanced or thorough")
      ->check(CLI::IsMember({"fast", "balanced", "thorough"}));
  app.add_option("--calibrate", settings.calibrate, "seconds of CPU rank 0 burns first, to check the compute charge")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--compute", settings.compute, "label: network_only or charged (the SMPI configuration decides)");
  app.add_option("--platform", settings.platform, "label: the platform file's name");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = rank == 0 ? app.exit(error) : (error.get_exit_code() == 0 ? 0 : 1);
    MPI_Finalize();
    return code;
  }

  try {
    if (settings.calibrate > 0) calibrate(settings.calibrate, rank, settings);
    // The mapping runs on a duplicate of MPI_COMM_WORLD: SMPI 3.32 keeps one
    // MPI_COMM_WORLD object, and its attributes, for all simulated ranks, so
    // the private channels distopo caches on a communicator's attributes
    // would be shared among the ranks (rank 1 found rank 0's cache, the
    // ranks made different numbers of copies and deadlocked); a duplicate is
    // an object per rank.
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    // Both private copies of it, as on a communicator that already ran two
    // sparse exchanges (dist_graph_create's edge exchange makes the first):
    // the call then creates none, and its time is the mapping's alone.
    (void)distopo::private_channel(comm);
    (void)distopo::private_channel(comm);
    for (const std::string& family : settings.families) run_family(settings, family, comm, rank, size);
    MPI_Comm_free(&comm);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "rank %d: %s\n", rank, error.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return 0;
}
