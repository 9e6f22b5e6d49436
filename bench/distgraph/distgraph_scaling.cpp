// The scaling driver of dist_graph_create: builds the same graph with distopo
// and with MPICH's own MPI_Dist_graph_create for each graph family and prints,
// on rank 0, one JSON object per line and implementation:
//   max_time_s           max over ranks of the call's time, median over reps
//   peak_bytes_per_rank  heap the call added on the worst rank (measured by the
//                        malloc counter of heap_meter.cpp), median over reps
//   page_faults_max      page faults of the call on the worst rank, median over
//                        reps: fresh pages, which the allocator may hand out
//                        anew in every call
//   mode, time_s, bytes_per_rank  "real", and the two figures above under the
//                        names of the simulated rows (docs/results/scaling/)
// The two implementations alternate within every repetition, so machine noise
// hits both alike; compare them as ratios of the same run. With
// --constructor adjacent, each rank gives dist_graph_create_adjacent its own
// lists of the family's graph (as MPICH's MPI_Dist_graph_create makes them,
// sorted) instead.
// Run: mpiexec -n P distgraph_scaling [--family ring,powerlaw] [--reps 11] ...
#include <mpi.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "distopo/distgraph.hpp"
#include "graph_families.hpp"
#ifndef DISTOPO_NO_HEAP_METER
#include "heap_meter.hpp"
#endif

namespace {

enum class Impl { distopo, mpich };

const char* impl_name(Impl impl) { return impl == Impl::distopo ? "distopo" : "mpich"; }

struct Settings {
  std::vector<std::string> families = bench::family_names();
  int edges_per_rank = 16;
  int max_degree = 0;  // 0: every source's edges in one entry
  int reps = 11;
  // Untimed creates of each family before its timed ones.
  int warmup = 20;
  // Untimed creates before the first family, for at least this long: the
  // first second or so of a run is slower for both implementations and far
  // from steady (docs/guide/benchmarks.md).
  double warmup_seconds = 1.0;
  std::string impl = "both";
  bool unweighted = false;
  // "repeated": the family's weights (1-4, a function of the two ranks), so a
  // heavy graph on few ranks repeats every edge; "distinct": a different
  // weight for each of a rank's edges, in no order, so none of a rank's
  // edges repeats (the path of large sparse graphs; ranks share weights,
  // graph_families.hpp); "random": weights drawn at random, as unevenly
  // spread as real ones.
  std::string weights = "repeated";
  bool fresh_comm = false;      // every timed create on a new duplicate of MPI_COMM_WORLD
  bool native_weights = false;  // distopo's creates copy the weights to MPICH's topology too
  unsigned seed = 1;
  std::string constructor = "create";  // or "adjacent"
};

// What a create is given on this rank: the family's edges, and for
// dist_graph_create_adjacent this rank's lists of the same graph.
struct Input {
  explicit Input(bench::LocalEdges family_edges) : edges(std::move(family_edges)) {}
  bench::LocalEdges edges;
  bool adjacent = false;
  std::vector<int> sources, source_weights, destinations, destination_weights;
};

// One timed call on every rank: its duration and the heap it added.
struct Sample {
  double seconds = 0;
  std::optional<std::size_t> extra_heap;
  long page_faults = 0;
};

long page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt + usage.ru_majflt;
}

MPI_Comm create_adjacent(Impl impl, const Input& input, bool weighted, MPI_Comm comm, MPI_Info distopo_info) {
  const auto degree = [](const std::vector<int>& list) { return static_cast<int>(list.size()); };
  const int* in_weights = weighted ? input.source_weights.data() : MPI_UNWEIGHTED;
  const int* out_weights = weighted ? input.destination_weights.data() : MPI_UNWEIGHTED;
  if (impl == Impl::mpich) {
    MPI_Comm graph = MPI_COMM_NULL;
    PMPI_Dist_graph_create_adjacent(comm, degree(input.sources), input.sources.data(), in_weights,
                                    degree(input.destinations), input.destinations.data(), out_weights, MPI_INFO_NULL,
                                    0, &graph);
    return graph;
  }
  return distopo::dist_graph_create_adjacent(comm, degree(input.sources), input.sources.data(), in_weights,
                                             degree(input.destinations), input.destinations.data(), out_weights,
                                             {.weighted = weighted, .reorder = false, .info = distopo_info})
      .release();
}

// `distopo_info`: the info distopo's create is given (MPICH's gets none).
MPI_Comm create(Impl impl, const Input& input, bool weighted, MPI_Comm comm = MPI_COMM_WORLD,
                MPI_Info distopo_info = MPI_INFO_NULL) {
  if (input.adjacent) return create_adjacent(impl, input, weighted, comm, distopo_info);
  const bench::LocalEdges& edges = input.edges;
  const int* weights = weighted ? edges.weights.data() : MPI_UNWEIGHTED;
  if (impl == Impl::mpich) {
    MPI_Comm graph = MPI_COMM_NULL;
    // PMPI: MPICH's own constructor even when an interposition library is loaded.
    PMPI_Dist_graph_create(comm, edges.n(), edges.sources.data(), edges.degrees.data(), edges.destinations.data(),
                           weights, MPI_INFO_NULL, 0, &graph);
    return graph;
  }
  return distopo::dist_graph_create(comm, edges.n(), edges.sources.data(), edges.degrees.data(),
                                    edges.destinations.data(), weights,
                                    {.weighted = weighted, .reorder = false, .info = distopo_info})
      .release();
}

// With `fresh_comm`, the call runs on a new duplicate of MPI_COMM_WORLD (made
// before the clock starts): what a program that creates one topology sees.
Sample timed_create(Impl impl, const Input& input, bool weighted, bool fresh_comm, MPI_Info distopo_info) {
  MPI_Comm comm = MPI_COMM_WORLD;
  if (fresh_comm) MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Barrier(MPI_COMM_WORLD);
  Sample sample;
#ifndef DISTOPO_NO_HEAP_METER
  const std::size_t baseline = heap_meter::reset_peak();
#endif
  const long faults = page_faults();
  const double start = MPI_Wtime();
  MPI_Comm graph = create(impl, input, weighted, comm, distopo_info);
  sample.seconds = MPI_Wtime() - start;
  sample.page_faults = page_faults() - faults;
#ifndef DISTOPO_NO_HEAP_METER
  sample.extra_heap = heap_meter::peak_bytes() - baseline;
#endif
  MPI_Comm_free(&graph);
  if (fresh_comm) MPI_Comm_free(&comm);
  return sample;
}

template <class T>
T median(std::vector<T> values) {
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
  return values[values.size() / 2];
}

// (rank, weight) multisets of both directions, sorted, as MPICH reports them.
std::pair<std::vector<std::pair<int, int>>, std::vector<std::pair<int, int>>> sorted_neighbors(MPI_Comm graph,
                                                                                               bool weighted) {
  int indegree = 0;
  int outdegree = 0;
  int is_weighted = 0;
  PMPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &is_weighted);
  std::vector<int> sources(static_cast<std::size_t>(indegree)), source_weights(sources.size());
  std::vector<int> destinations(static_cast<std::size_t>(outdegree)), destination_weights(destinations.size());
  PMPI_Dist_graph_neighbors(graph, indegree, sources.data(), weighted ? source_weights.data() : MPI_UNWEIGHTED,
                            outdegree, destinations.data(), weighted ? destination_weights.data() : MPI_UNWEIGHTED);
  auto zip = [](const std::vector<int>& ranks, const std::vector<int>& weights) {
    std::vector<std::pair<int, int>> pairs;
    for (std::size_t i = 0; i < ranks.size(); ++i) pairs.emplace_back(ranks[i], weights[i]);
    std::sort(pairs.begin(), pairs.end());
    return pairs;
  };
  return {zip(sources, source_weights), zip(destinations, destination_weights)};
}

// distopo's lists (read from its own record) against MPICH's for the same
// input: the same multiset on every rank? Also checks that distopo's lists are
// already sorted, as documented. Collective; the answer is the same everywhere.
bool same_neighbors(const Input& input, bool weighted) {
  MPI_Comm ours = create(Impl::distopo, input, weighted);
  MPI_Comm theirs = create(Impl::mpich, input, weighted);
  const distopo::DistGraphNeighbors& record = distopo::dist_graph_neighbors(ours);
  auto zip = [weighted](const std::vector<int>& ranks, const std::vector<int>& weights) {
    std::vector<std::pair<int, int>> pairs;
    for (std::size_t i = 0; i < ranks.size(); ++i) pairs.emplace_back(ranks[i], weighted ? weights[i] : 0);
    return pairs;
  };
  const auto our_in = zip(record.sources, record.source_weights);
  const auto our_out = zip(record.destinations, record.destination_weights);
  auto [their_in, their_out] = sorted_neighbors(theirs, weighted);
  int same = std::is_sorted(our_in.begin(), our_in.end()) && std::is_sorted(our_out.begin(), our_out.end()) &&
             our_in == their_in && our_out == their_out;
  MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  MPI_Comm_free(&ours);
  MPI_Comm_free(&theirs);
  return same != 0;
}

int max_indegree(const Input& input) {
  MPI_Comm graph = create(Impl::distopo, input, true);
  int indegree = distopo::dist_graph_neighbors_count(graph).indegree;
  MPI_Allreduce(MPI_IN_PLACE, &indegree, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Comm_free(&graph);
  return indegree;
}

// This rank's lists of the graph `edges` make, sorted by (rank, weight).
void take_lists(Input& input, bool weighted) {
  MPI_Comm graph = create(Impl::mpich, Input(input.edges), weighted);  // a copy of the edges: setup only
  auto [in, out] = sorted_neighbors(graph, weighted);
  MPI_Comm_free(&graph);
  for (const auto& [rank, weight] : in) {
    input.sources.push_back(rank);
    input.source_weights.push_back(weight);
  }
  for (const auto& [rank, weight] : out) {
    input.destinations.push_back(rank);
    input.destination_weights.push_back(weight);
  }
  input.adjacent = true;
}

Input input_of(const Settings& settings, const std::string& family, int rank, int size) {
  Input input(bench::make_family(family, rank, size, settings.edges_per_rank, settings.seed, settings.max_degree));
  if (settings.weights == "distinct") bench::make_weights_distinct(input.edges);
  if (settings.weights == "random")
    bench::make_weights_random(input.edges, settings.seed * 7919U + static_cast<unsigned>(rank));
  if (settings.constructor == "adjacent") take_lists(input, !settings.unweighted);
  return input;
}

// The implementations --impl selects, distopo first.
std::vector<Impl> selected_impls(const Settings& settings) {
  std::vector<Impl> impls;
  if (settings.impl != "mpich") impls.push_back(Impl::distopo);
  if (settings.impl != "distopo") impls.push_back(Impl::mpich);
  return impls;
}

// Creates and frees graphs of the first family with the selected
// implementations until `warmup_seconds` have passed on every rank. Only
// those: a process that times one implementation alone must not start from
// a heap the other's creates shaped.
void warm_up_process(const Settings& settings, int rank, int size) {
  if (settings.families.empty()) return;
  const Input input = input_of(settings, settings.families.front(), rank, size);
  const std::vector<Impl> impls = selected_impls(settings);
  const double start = MPI_Wtime();
  for (double elapsed = 0; elapsed < settings.warmup_seconds;) {
    for (Impl impl : impls) {
      MPI_Comm graph = create(impl, input, !settings.unweighted);
      MPI_Comm_free(&graph);
    }
    elapsed = MPI_Wtime() - start;
    MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
}

// Runs one family; returns false if distopo's neighbors differ from MPICH's.
bool run_family(const Settings& settings, const std::string& family, int rank, int size) {
  const Input input = input_of(settings, family, rank, size);
  const bench::LocalEdges& edges = input.edges;
  const bool weighted = !settings.unweighted;
  const std::vector<Impl> impls = selected_impls(settings);
  MPI_Info distopo_info = MPI_INFO_NULL;
  if (settings.native_weights) {
    MPI_Info_create(&distopo_info);
    MPI_Info_set(distopo_info, "distopo_native_weights", "true");
  }

  for (int i = 0; i < settings.warmup; ++i) {
    for (Impl impl : impls) timed_create(impl, input, weighted, settings.fresh_comm, distopo_info);
  }
  std::vector<std::vector<double>> times(impls.size());
  std::vector<std::vector<double>> heaps(impls.size());
  std::vector<std::vector<double>> faults(impls.size());
  for (int rep = 0; rep < settings.reps; ++rep) {
    for (std::size_t k = 0; k < impls.size(); ++k) {
      // Alternate which implementation goes first, so neither always runs on a warm cache.
      const std::size_t which = (k + static_cast<std::size_t>(rep)) % impls.size();
      const Sample sample = timed_create(impls[which], input, weighted, settings.fresh_comm, distopo_info);
      double worst[3] = {sample.seconds, sample.extra_heap ? static_cast<double>(*sample.extra_heap) : -1.0,
                         static_cast<double>(sample.page_faults)};
      MPI_Allreduce(MPI_IN_PLACE, worst, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      times[which].push_back(worst[0]);
      heaps[which].push_back(worst[1]);
      faults[which].push_back(worst[2]);
    }
  }
  const bool same = impls.size() == 2 ? same_neighbors(input, weighted) : true;
  const int indegree_max = max_indegree(input);
  long long total_edges = static_cast<long long>(edges.edge_count());
  MPI_Allreduce(MPI_IN_PLACE, &total_edges, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);

  if (rank == 0) {
    for (std::size_t k = 0; k < impls.size(); ++k) {
      nlohmann::json line = {{"impl", impl_name(impls[k])},
                             {"family", family},
                             {"P", size},
                             {"edges_per_rank", settings.edges_per_rank},
                             {"max_degree", settings.max_degree},
                             {"total_edges", total_edges},
                             {"max_time_s", median(times[k])},
                             {"min_time_s", *std::min_element(times[k].begin(), times[k].end())},
                             {"reps", settings.reps},
                             {"weighted", weighted},
                             {"weights", settings.weights},
                             {"fresh_comm", settings.fresh_comm},
                             {"constructor", settings.constructor},
                             {"native_weights", settings.native_weights},
                             {"indegree_max", indegree_max}};
      const double heap = median(heaps[k]);
      line["peak_bytes_per_rank"] = heap < 0 ? nlohmann::json(nullptr) : nlohmann::json(static_cast<long long>(heap));
      line["page_faults_max"] = static_cast<long long>(median(faults[k]));
      // The simulated study's names too (docs/results/scaling/), so one file can hold both.
      line["mode"] = "real";
      line["time_s"] = line["max_time_s"];
      line["bytes_per_rank"] = line["peak_bytes_per_rank"];
      if (impls[k] == Impl::distopo && impls.size() == 2) line["same_neighbors"] = same;
      std::printf("%s\n", line.dump().c_str());
      std::fflush(stdout);
    }
  }
  if (distopo_info != MPI_INFO_NULL) MPI_Info_free(&distopo_info);
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Settings settings;
  CLI::App app{"dist_graph_create: distopo against MPICH's MPI_Dist_graph_create, per graph family"};
  app.add_option("--family", settings.families, "graph families (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(bench::family_names()));
  app.add_option("--edges-per-rank", settings.edges_per_rank,
                 "degree of the k-out, power-law and given-by-one families")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--max-degree", settings.max_degree,
                 "split each source's edges of random_kout and rank0_whole into entries of at most this degree "
                 "(0: one entry per source)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--reps", settings.reps, "timed repetitions (median reported)")->check(CLI::PositiveNumber);
  app.add_option("--warmup", settings.warmup, "untimed repetitions of each family first")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--warmup-seconds", settings.warmup_seconds, "untimed creates before the first family, for this long")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--impl", settings.impl, "distopo, mpich or both")->check(CLI::IsMember({"distopo", "mpich", "both"}));
  app.add_option("--seed", settings.seed, "seed of the random families");
  app.add_flag("--unweighted", settings.unweighted, "pass MPI_UNWEIGHTED");
  app.add_option("--weights", settings.weights,
                 "repeated: the family's weights (1-4), so heavy graphs repeat edges; distinct: a hash of each rank's "
                 "edge index, so none of a rank's edges repeats; random: drawn at random below 2^30")
      ->check(CLI::IsMember({"repeated", "distinct", "random"}));
  app.add_flag("--native-weights", settings.native_weights,
               "give distopo's creates info key distopo_native_weights = true (MPICH's copy of the graph holds the "
               "weights too)");
  app.add_option("--constructor", settings.constructor,
                 "create: MPI_Dist_graph_create with the family's edges; adjacent: MPI_Dist_graph_create_adjacent with "
                 "each rank's lists of the same graph")
      ->check(CLI::IsMember({"create", "adjacent"}));
  app.add_flag("--fresh-comm", settings.fresh_comm,
               "time every create on a new duplicate of MPI_COMM_WORLD (a program's first create on a communicator)");
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int rc = rank == 0 ? app.exit(error) : (error.get_exit_code() == 0 ? 0 : 1);
    MPI_Finalize();
    return rc;
  }

  bool all_same = true;
  try {
    warm_up_process(settings, rank, size);
    for (const std::string& family : settings.families) all_same = run_family(settings, family, rank, size) && all_same;
  } catch (const distopo::Error& error) {
    std::fprintf(stderr, "rank %d: %s\n", rank, error.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (!all_same && rank == 0) std::fprintf(stderr, "distopo's neighbor lists differ from MPICH's\n");
  MPI_Finalize();
  return all_same ? 0 : 1;
}
