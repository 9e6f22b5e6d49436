// The edge exchange of MPI_Dist_graph_create at simulated scale (SimGrid SMPI):
// distopo's redistribute_edges() as the library runs it, against MPICH 4.0.2's
// algorithm (mpich_dist_graph.hpp), on the same graphs, on MPI_COMM_WORLD (at
// 65536 simulated ranks one more communicator does not fit in memory). Prints
// on rank 0 one JSON object per line and (impl, family):
//   time_s          simulated time of the call, max over ranks, median of reps
//   bytes_per_rank  heap the implementation's own code added during the call
//                   on the worst rank (the preloaded actor heap meter; null
//                   without it)
//   total_bytes_per_rank  the same, counting the simulated MPI library's
//                   blocks too (requests, message copies, collective buffers)
// Run: smpirun -np P -platform ... edge_exchange_sim [--family ring,...] ...
// (scripts/smpi/simulate.sh sets the SMPI configuration).
#include <mpi.h>

// smpicxx forces smpi_helpers.h into every file, whose exit(x) macro clobbers
// CLI::App::exit; this program never calls exit().
#undef exit
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "distopo/core/error.hpp"
#include "distopo/core/node_layout.hpp"
#include "distopo/core/sparse_exchange.hpp"
#include "distopo/distgraph/edge_redistribution.hpp"
#include "graph_families.hpp"
#include "machine_model.hpp"
#include "machine_model_options.hpp"
#include "mpich_dist_graph.hpp"
#include "simulated_start.hpp"

// The actor heap meter (actor_heap_meter.cpp), when preloaded.
extern "C" __attribute__((weak)) long long distopo_actor_heap_reset();
extern "C" __attribute__((weak)) long long distopo_actor_heap_peak();
extern "C" __attribute__((weak)) long long distopo_actor_heap_total_live();
extern "C" __attribute__((weak)) long long distopo_actor_heap_total_peak();

namespace {

struct Settings {
  std::vector<std::string> families = {"ring", "stencil3d", "random_kout", "powerlaw"};
  std::vector<std::string> impls = {"distopo", "mpich_alg"};
  int edges_per_rank = 16;
  int reps = 1;
  // Untimed calls on the real graph first (where computation is charged).
  int warmup = 0;
  unsigned seed = 1;
  // "repeated": the families' weights (1-4); "distinct": each rank's edges weigh differently
  // (as distgraph_scaling's --weights distinct).
  std::string weights = "repeated";
  // Labels copied into every row: how the run was configured (set by the script).
  std::string compute = "network_only";
  std::string reduce_scatter = "";
  std::string platform = "";
  std::string iprobe = "";
  std::string model_name = "";
  smpi_bench::MachineModel model;
  // The channel of distopo's exchange: a duplicate of MPI_COMM_WORLD, for
  // either route, as dist_graph_create runs its exchange on a private
  // duplicate. (The node-aware route caches its nodes on the channel, and
  // SMPI's MPI_COMM_WORLD is one object shared by every simulated rank, and
  // so are its attributes.)
  MPI_Comm channel = MPI_COMM_NULL;
};

// The route of distopo's exchange (DISTOPO_EXCHANGE), the emulated nodes it
// would use (DISTOPO_RANKS_PER_NODE) and whether it may go by source
// (DISTOPO_BY_SOURCE), as the environment sets them.
std::string environment(const char* name, const char* otherwise) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : otherwise;
}

// (rank, weight) pairs of one direction, hashed in sorted order.
std::uint64_t hash_lists(const int* ranks, const int* weights, int count, std::uint64_t seed) {
  std::vector<std::pair<int, int>> pairs;
  pairs.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) pairs.emplace_back(ranks[i], weights[i]);
  std::sort(pairs.begin(), pairs.end());
  std::uint64_t hash = seed;  // FNV-1a over the pairs
  for (const auto& [rank, weight] : pairs) {
    for (const std::uint64_t word : {static_cast<std::uint64_t>(rank), static_cast<std::uint64_t>(weight)}) {
      hash = (hash ^ word) * 1099511628211ULL;
    }
  }
  return hash;
}

// Runs one implementation once; with `checksum`, hashes what it produced.
void run(const std::string& impl, const bench::LocalEdges& edges, MPI_Comm channel, std::uint64_t* checksum) {
  constexpr std::uint64_t kIn = 14695981039346656037ULL;
  constexpr std::uint64_t kOut = 1469598103934665603ULL;
  if (impl == "distopo") {
    const distopo::DistGraphTopology record =
        distopo::redistribute_edges(MPI_COMM_WORLD, channel, edges.n(), edges.sources.data(), edges.degrees.data(),
                                    edges.destinations.data(), edges.weights.data(), {.weighted = true});
    if (checksum != nullptr) {
      *checksum = hash_lists(record.sources.data(), record.source_weights.data(),
                             static_cast<int>(record.sources.size()), kIn) +
                  hash_lists(record.destinations.data(), record.destination_weights.data(),
                             static_cast<int>(record.destinations.size()), kOut);
    }
    return;
  }
  smpi_bench::MpichLists lists;
  // A rank without edges (rank0_whole) passes MPI_WEIGHTS_EMPTY: an empty
  // vector's data() is null, which is SMPI's MPI_UNWEIGHTED.
  smpi_bench::mpich_dist_graph_exchange(MPI_COMM_WORLD, edges.n(), edges.sources.data(), edges.degrees.data(),
                                        edges.destinations.data(),
                                        edges.weights.empty() ? MPI_WEIGHTS_EMPTY : edges.weights.data(), lists);
  if (checksum != nullptr) {
    *checksum = hash_lists(lists.in, lists.in_weights, lists.indegree, kIn) +
                hash_lists(lists.out, lists.out_weights, lists.outdegree, kOut);
  }
}

struct Sample {
  double seconds;
  double heap;        // the implementation's own blocks; -1: not measured
  double total_heap;  // with the simulated MPI library's blocks
};

// The start guard: far longer than start_together's allreduce takes.
constexpr double kStartGuard = 1e-3;

Sample timed(const std::string& impl, const bench::LocalEdges& edges, MPI_Comm channel,
             std::uint64_t* checksum = nullptr) {
  const double start = bench::start_together(kStartGuard);
  const bool metered = distopo_actor_heap_reset != nullptr;
  const long long baseline = metered ? distopo_actor_heap_reset() : 0;
  const long long total_baseline = metered ? distopo_actor_heap_total_live() : 0;
  run(impl, edges, channel, checksum);
  double sample[3] = {MPI_Wtime() - start, -1.0, -1.0};
  if (metered) {
    sample[1] = static_cast<double>(distopo_actor_heap_peak() - baseline);
    sample[2] = static_cast<double>(distopo_actor_heap_total_peak() - total_baseline);
  }
  MPI_Allreduce(MPI_IN_PLACE, sample, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return {sample[0], sample[1], sample[2]};
}

double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
  return values[values.size() / 2];
}

void run_family(const Settings& settings, const std::string& family, int rank, int size) {
  bench::LocalEdges edges = bench::make_family(family, rank, size, settings.edges_per_rank, settings.seed);
  if (settings.weights == "distinct") bench::make_weights_distinct(edges);
  long long total_edges = static_cast<long long>(edges.edge_count());
  MPI_Allreduce(MPI_IN_PLACE, &total_edges, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  for (const std::string& impl : settings.impls) {
    // One call without edges starts what a process starts once (Kokkos, cached
    // datatypes), which is not the call's own heap.
    timed(impl, bench::LocalEdges{}, settings.channel);
    if (impl == "distopo") {
      // The node-aware route copies its relay channel the first time a rank
      // gathers, collectively: made here, so that every timed call is a
      // call on a channel that has it (as in the rows simulated before the
      // copy moved out of the route's lookup).
      if (const distopo::ExchangeRoute route = distopo::exchange_route(settings.channel); route.node_aware()) {
        route.relay_channel();
      }
    }
    for (int i = 0; i < settings.warmup; ++i) timed(impl, edges, settings.channel);
    std::vector<double> times;
    std::vector<double> heaps;
    std::vector<double> total_heaps;
    std::uint64_t checksum = 0;
    for (int rep = 0; rep < settings.reps; ++rep) {
      const Sample sample = timed(impl, edges, settings.channel, rep + 1 == settings.reps ? &checksum : nullptr);
      times.push_back(sample.seconds);
      heaps.push_back(sample.heap);
      total_heaps.push_back(sample.total_heap);
    }
    unsigned long long lists_checksum = checksum;
    MPI_Allreduce(MPI_IN_PLACE, &lists_checksum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank != 0) continue;
    const auto bytes = [](double heap) {
      return heap < 0 ? nlohmann::json(nullptr) : nlohmann::json(static_cast<long long>(heap));
    };
    nlohmann::json row = {{"impl", impl},
                          {"family", family},
                          {"P", size},
                          {"mode", "smpi"},
                          {"compute", settings.compute},
                          {"time_s", median(times)},
                          {"min_time_s", *std::min_element(times.begin(), times.end())},
                          {"bytes_per_rank", bytes(median(heaps))},
                          {"total_bytes_per_rank", bytes(median(total_heaps))},
                          {"edges_per_rank", settings.edges_per_rank},
                          {"weights", settings.weights},
                          {"total_edges", total_edges},
                          {"reps", settings.reps},
                          {"warmup", settings.warmup},
                          {"lists_checksum", std::to_string(lists_checksum)},
                          {"platform", settings.platform},
                          {"iprobe_s", settings.iprobe}};
    if (impl == "mpich_alg") row["reduce_scatter"] = settings.reduce_scatter;
    // distopo's exchange runs on a duplicate, MPICH's algorithm on the
    // communicator it is given, each as in its library.
    row["channel"] = impl == "distopo" ? "duplicate" : "comm_world";
    row["exchange"] = impl == "distopo" ? environment(distopo::kExchangeEnv, "direct") : "mpich";
    if (row["exchange"] == "node_aware") {
      row["gather_min"] =
          std::stoi(environment(distopo::kGatherMinEnv, std::to_string(distopo::ExchangeRoute{}.gather_min).c_str()));
    }
    row["ranks_per_node"] = std::stoi(environment(distopo::kRanksPerNodeEnv, "0"));
    if (impl == "distopo") row["by_source"] = environment(distopo::kBySourceEnv, "auto");
    if (!settings.model_name.empty()) row["model"] = settings.model_name;
    std::printf("%s\n", row.dump().c_str());
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  CLI::App app{"dist_graph_create's edge exchange under SMPI: distopo against MPICH's algorithm"};
  app.add_option("--family", settings.families, "graph families")
      ->delimiter(',')
      ->check(CLI::IsMember(bench::family_names()));
  app.add_option("--impl", settings.impls, "distopo, mpich_alg (in this order of runs)")
      ->delimiter(',')
      ->check(CLI::IsMember({"distopo", "mpich_alg"}));
  app.add_option("--edges-per-rank", settings.edges_per_rank, "degree of the k-out and power-law families")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--reps", settings.reps, "timed repetitions (median reported)")->check(CLI::PositiveNumber);
  app.add_option("--warmup", settings.warmup, "untimed calls of each implementation first")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--seed", settings.seed, "seed of the random families");
  app.add_option("--weights", settings.weights,
                 "repeated (the families' weights) or distinct (each rank's edges weigh differently)")
      ->check(CLI::IsMember({"repeated", "distinct"}));
  app.add_option("--compute", settings.compute, "label: network_only or charged (the SMPI configuration decides)");
  app.add_option("--reduce-scatter", settings.reduce_scatter, "label: SMPI's reduce_scatter algorithm in this run");
  app.add_option("--platform", settings.platform, "label: the platform file's name");
  app.add_option("--iprobe", settings.iprobe, "label: SMPI's simulated cost of one MPI_Iprobe in this run");
  app.add_option("--model-name", settings.model_name,
                 "the machine model of machine_model.hpp, by its name (a label; empty: SMPI's settings alone)");
  smpi_bench::add_machine_model_options(app, settings.model);
  int rank = 0;
  int size = 0;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int code = rank == 0 ? app.exit(error) : (error.get_exit_code() == 0 ? 0 : 1);
    MPI_Finalize();
    return code;
  }
  // Before MPI_Init: the model is installed for every simulated rank.
  if (!settings.model_name.empty()) smpi_bench::install_machine_model(settings.model);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_dup(MPI_COMM_WORLD, &settings.channel);

  try {
    for (const std::string& family : settings.families) run_family(settings, family, rank, size);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "rank %d: %s\n", rank, error.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_free(&settings.channel);
  MPI_Finalize();
  return 0;
}
