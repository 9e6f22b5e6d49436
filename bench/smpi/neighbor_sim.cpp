// Neighborhood collectives at simulated scale (SimGrid SMPI): distopo's own
// neighbor_alltoallv, with the algorithm chosen by the communicator's info key
// distopo_neighbor_algorithm, against MPICH 4.0.2's
// (mpich_neighbor_alltoallv.hpp), on the patterns of neighbor_patterns.hpp, in
// the machine of machine_model.hpp. Prints on rank 0 one JSON object per line
// and (pattern, implementation, form, block size):
//   time_s         simulated time of one call, max over ranks, median of the
//                  timed calls
//   first_call_s   the first call (blocking) or start (persistent) on a new
//                  communicator, not in time_s: a blocking first call includes
//                  whatever the implementation plans at its first call
//   init_s         persistent form: distopo's *_init call (not in time_s)
// With --reorder distopo's communicators are made with reorder = true (the
// node-aware mapping, the pattern's weights as edge weights), as a program
// that lets the library place its ranks gets them; MPICH ignores reorder, so
// the direct baseline keeps the identity. Those rows add the mapping's
// mapped_off_node_share, mapped_off_node_bytes_share and mapped_node_pairs
// beside the identity's off_node_share, off_node_bytes_share and node_pairs.
// Run: smpirun -np P -platform ... neighbor_sim [options] (scripts/smpi/simulate_neighbor.sh
// sets the SMPI configuration and the platform).
#include <mpi.h>

// smpicxx forces smpi_helpers.h into every file, whose exit(x) macro clobbers
// CLI::App::exit; this program never calls exit().
#undef exit
#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "distopo/distgraph.hpp"
#include "distopo/neighbor.hpp"
// The library's algorithm selection, once the neighborhood collectives have
// it: the info key is then handed over with set_neighbor_info (MPICH and SMPI
// drop info keys they do not know), and each row records what the plan chose.
#if __has_include("distopo/neighbor/algorithm.hpp")
#include "distopo/neighbor/algorithm.hpp"
#define NEIGHBOR_SIM_HAS_ALGORITHMS 1
#else
#define NEIGHBOR_SIM_HAS_ALGORITHMS 0
#endif
#include "machine_model.hpp"
#include "machine_model_options.hpp"
#include "mpich_neighbor_alltoallv.hpp"
#include "neighbor_patterns.hpp"
#include "simulated_start.hpp"

namespace {

struct Settings {
  std::vector<std::string> patterns = {"stencil27"};
  std::vector<std::string> impls = {"direct", "distopo"};
  std::string algorithm = "auto";  // distopo_neighbor_algorithm for impl distopo
  std::vector<std::string> forms = {"persistent", "blocking"};
  std::vector<long long> bytes = {8, 64, 256, 1024, 4096, 16384, 65536};
  int reps = 3;
  bool verify = false;
  bool reorder = false;  // distopo's communicators with reorder = true
  smpi_bench::PatternOptions pattern;
  smpi_bench::MachineModel model;
  // Labels copied into every row (set by the script).
  std::string model_name;
  std::string platform;
  int ranks_per_node = 0;
};

// The start guard: far longer than start_together's allreduce takes; the end
// guard: far longer than a timed call (finish_together says when not).
constexpr double kStartGuard = 2e-3;
constexpr double kEndGuard = 0.1;
constexpr int kDirectTag = 7;

// One rank's view of a pattern at a block size: its lists and its blocks'
// byte counts (block = bytes * weight / mean weight, at least one byte).
struct Shape {
  smpi_bench::NeighborLists lists;
  std::vector<int> sendcounts, sdispls, recvcounts, rdispls;
  std::vector<int> source_weights, destination_weights;
  std::size_t send_bytes = 0, recv_bytes = 0;
};

int block_bytes(long long bytes, int weight, double mean_weight) {
  return std::max(1, static_cast<int>(std::llround(static_cast<double>(bytes) * weight / mean_weight)));
}

Shape shape_of(const smpi_bench::CommGraph& graph, int rank, long long bytes) {
  Shape s;
  const auto destinations = graph.destinations(rank);
  const auto sources = graph.sources(rank);
  s.lists.destinations.assign(destinations.begin(), destinations.end());
  s.lists.sources.assign(sources.begin(), sources.end());
  const auto dw = graph.destination_weights(rank);
  const auto sw = graph.source_weights(rank);
  s.destination_weights.assign(dw.begin(), dw.end());
  s.source_weights.assign(sw.begin(), sw.end());
  for (const int w : dw) {
    s.sdispls.push_back(static_cast<int>(s.send_bytes));
    s.sendcounts.push_back(block_bytes(bytes, w, graph.mean_weight()));
    s.send_bytes += static_cast<std::size_t>(s.sendcounts.back());
  }
  for (const int w : sw) {
    s.rdispls.push_back(static_cast<int>(s.recv_bytes));
    s.recvcounts.push_back(block_bytes(bytes, w, graph.mean_weight()));
    s.recv_bytes += static_cast<std::size_t>(s.recvcounts.back());
  }
  return s;
}

// Message buffers. Timing runs share one buffer among all simulated ranks
// (SMPI_SHARED_MALLOC: the contents are meaningless, the sizes real), so 16384
// ranks fit in memory; --verify gives every rank its own and checks them.
class Buffers {
 public:
  Buffers(const Shape& s, bool shared) : shared_(shared), send_size_(s.send_bytes + 1), recv_size_(s.recv_bytes + 1) {
    if (shared_) {
      send_ = static_cast<std::byte*>(SMPI_SHARED_MALLOC(send_size_));
      recv_ = static_cast<std::byte*>(SMPI_SHARED_MALLOC(recv_size_));
    } else {
      send_ = new std::byte[send_size_];
      recv_ = new std::byte[recv_size_];
    }
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  ~Buffers() {
    if (shared_) {
      SMPI_SHARED_FREE(send_);
      SMPI_SHARED_FREE(recv_);
    } else {
      delete[] send_;
      delete[] recv_;
    }
  }
  [[nodiscard]] std::span<std::byte> send() const { return {send_, send_size_ - 1}; }
  [[nodiscard]] std::span<std::byte> recv() const { return {recv_, recv_size_ - 1}; }

 private:
  bool shared_;
  std::size_t send_size_, recv_size_;
  std::byte* send_ = nullptr;
  std::byte* recv_ = nullptr;
};

std::byte content(int from, int to, int index) {
  return static_cast<std::byte>((from * 131 + to * 31 + index * 7) & 0xff);
}

void fill(const Shape& s, int rank, const Buffers& b) {
  for (std::size_t k = 0; k < s.lists.destinations.size(); ++k)
    for (int i = 0; i < s.sendcounts[k]; ++i)
      b.send()[static_cast<std::size_t>(s.sdispls[k] + i)] = content(rank, s.lists.destinations[k], i);
  std::fill(b.recv().begin(), b.recv().end(), std::byte{0});
}

// Wrong bytes received by this rank.
long long check(const Shape& s, int rank, const Buffers& b) {
  long long wrong = 0;
  for (std::size_t l = 0; l < s.lists.sources.size(); ++l)
    for (int i = 0; i < s.recvcounts[l]; ++i)
      wrong += b.recv()[static_cast<std::size_t>(s.rdispls[l] + i)] != content(s.lists.sources[l], rank, i);
  return wrong;
}

double max_over_ranks(double value) {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return value;
}

long long sum_over_ranks(long long value) {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return value;
}

// Times `call` once: every rank starts at one simulated instant, the time is
// the slowest rank's.
template <class Call>
double timed(Call&& call) {
  const double start = bench::start_together(kStartGuard);
  call();
  return max_over_ranks(bench::finish_together(start, kEndGuard));
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
  return values[values.size() / 2];
}

// `parent`: MPI_COMM_WORLD, or with reorder a copy of it (SMPI keeps one
// MPI_COMM_WORLD object, attributes included, for all simulated ranks, and
// the reordering path caches its private channel in an attribute).
distopo::Comm make_topology(MPI_Comm parent, const Shape& s, const std::string& algorithm, bool reorder) {
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, "distopo_neighbor_algorithm", algorithm.c_str());
  distopo::Comm comm =
      distopo::dist_graph_create_adjacent(parent, s.lists.sources, s.source_weights, s.lists.destinations,
                                          s.destination_weights, {.weighted = true, .reorder = reorder, .info = info});
#if NEIGHBOR_SIM_HAS_ALGORITHMS
  distopo::set_neighbor_info(comm, info);
#else
  MPI_Comm_set_info(comm, info);
#endif
  MPI_Info_free(&info);
  return comm;
}

#if NEIGHBOR_SIM_HAS_ALGORITHMS
nlohmann::json choice_json(const distopo::NeighborAlgorithmChoice& choice) {
  return {{"algorithm_used", distopo::to_string(choice.algorithm)},
          {"aggregate_max_bytes", choice.aggregate_max_bytes},
          {"node_count", choice.node_count},
          {"emulated_nodes", choice.emulated_nodes},
          {"senders_per_lane", choice.senders_per_lane}};
}
#endif

// What the communicator's collectives ran ("direct" before the library had
// a choice), and the largest block size the aggregation carried.
nlohmann::json algorithm_used(MPI_Comm comm) {
#if NEIGHBOR_SIM_HAS_ALGORITHMS
  return choice_json(distopo::neighbor_algorithm(comm));
#else
  (void)comm;
  return {{"algorithm_used", "direct"}};
#endif
}

// The same for a persistent collective, which chooses for itself under auto
// (once the library's requests can tell).
template <class Request>
nlohmann::json algorithm_used(const Request& request) {
  if constexpr (requires { request.algorithm(); }) {
    return choice_json(request.algorithm());
  } else {
    return algorithm_used(request.comm());
  }
}

struct Result {
  nlohmann::json choice;  // distopo: algorithm_used()
  std::vector<double> times;
  double first_call = -1;
  double init = -1;
  long long wrong = 0;
  std::vector<int> node_of;  // with reorder, on rank 0: the host of each graph node
};

Result run_direct(const Settings& settings, const Shape& s, const Buffers& b, int rank) {
  Result result;
  const auto call = [&] {
    smpi_bench::mpich_neighbor_alltoallv(s.lists, b.send().data(), s.sendcounts, s.sdispls, b.recv().data(),
                                         s.recvcounts, s.rdispls, MPI_COMM_WORLD, kDirectTag);
  };
  // MPICH's persistent form builds its schedule at init (local, nothing
  // simulated) and reruns it at every start: the same calls as the blocking
  // form's, so both forms run this.
  if (settings.verify) fill(s, rank, b);
  result.first_call = timed(call);
  if (settings.verify) result.wrong += check(s, rank, b);
  for (int rep = 0; rep < settings.reps; ++rep) result.times.push_back(timed(call));
  return result;
}

// On MPI_COMM_WORLD's rank 0: the host of each graph node of `comm`, a
// reordered copy of MPI_COMM_WORLD whose rank v holds graph node v.
std::vector<int> hosts_of_graph_nodes(MPI_Comm comm, int host) {
  int world_rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::array<int, 2> mine{0, host};  // graph node, host
  MPI_Comm_rank(comm, &mine[0]);
  std::vector<int> all(world_rank == 0 ? 2 * static_cast<std::size_t>(size) : 0);
  MPI_Gather(mine.data(), 2, MPI_INT, all.data(), 2, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> node_of(all.size() / 2);
  for (std::size_t r = 0; r < node_of.size(); ++r) node_of[static_cast<std::size_t>(all[2 * r])] = all[2 * r + 1];
  return node_of;
}

// `given`: graph node `rank`'s shape, which this process passes to the constructor.
Result run_distopo(const Settings& settings, MPI_Comm parent, const std::string& form,
                   const smpi_bench::CommGraph& graph, const Shape& given, long long bytes, int rank, int host) {
  Result result;
  // A new communicator per block size, so that the first call plans afresh.
  distopo::Comm comm = make_topology(parent, given, settings.algorithm, settings.reorder);
  // Reordered, this process holds graph node `node`: its lists and blocks.
  int node = rank;
  MPI_Comm_rank(comm.get(), &node);
  if (settings.reorder) result.node_of = hosts_of_graph_nodes(comm.get(), host);
  std::optional<Shape> moved;
  if (node != rank) moved = shape_of(graph, node, bytes);
  const Shape& s = moved ? *moved : given;
  const Buffers b(s, !settings.verify);
  const std::span<const std::byte> send = b.send();
  const std::span<std::byte> recv = b.recv();
  if (settings.verify) fill(s, node, b);
  if (form == "blocking") {
    const auto call = [&] {
      distopo::neighbor_alltoallv(comm.get(), send, s.sendcounts, s.sdispls, recv, s.recvcounts, s.rdispls);
    };
    result.first_call = timed(call);
    if (settings.verify) result.wrong += check(s, node, b);
    for (int rep = 0; rep < settings.reps; ++rep) result.times.push_back(timed(call));
    result.choice = algorithm_used(comm.get());
  } else {
    distopo::PersistentRequest request;
    result.init = timed([&] {
      request =
          distopo::neighbor_alltoallv_init(comm.get(), send, s.sendcounts, s.sdispls, recv, s.recvcounts, s.rdispls);
    });
    const auto call = [&] {
      request.start();
      request.wait();
    };
    result.first_call = timed(call);
    if (settings.verify) result.wrong += check(s, node, b);
    for (int rep = 0; rep < settings.reps; ++rep) result.times.push_back(timed(call));
    result.choice = algorithm_used(request);
  }
  return result;
}

nlohmann::json pattern_stats(const smpi_bench::CommGraph& graph, int ranks_per_node) {
  const std::vector<int> identity = graph.consecutive_nodes(ranks_per_node);
  return {{"degree_min", graph.min_degree()},
          {"degree_max", graph.max_degree()},
          {"degree_mean", static_cast<double>(graph.edge_count()) / graph.size()},
          {"off_node_share", graph.off_node_share(identity)},
          {"off_node_bytes_share", graph.off_node_weight_share(identity)},
          {"node_pairs", graph.node_pairs(identity)}};
}

nlohmann::json mapped_stats(const smpi_bench::CommGraph& graph, const std::vector<int>& node_of) {
  return {{"reorder", true},
          {"mapped_off_node_share", graph.off_node_share(node_of)},
          {"mapped_off_node_bytes_share", graph.off_node_weight_share(node_of)},
          {"mapped_node_pairs", graph.node_pairs(node_of)}};
}

// This process's host: its number of ranks, and an id (the lowest
// MPI_COMM_WORLD rank on it).
struct Host {
  int ranks = 0;
  int id = 0;
};

Host this_host(int rank) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  Host host;
  MPI_Comm_size(node, &host.ranks);
  MPI_Allreduce(&rank, &host.id, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  return host;
}

void run(const Settings& settings, int rank, int size) {
  const Host host = this_host(rank);
  const int per_node = host.ranks;
  int min_node = per_node, max_node = per_node;
  MPI_Allreduce(MPI_IN_PLACE, &min_node, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &max_node, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (settings.ranks_per_node > 0 && (min_node != settings.ranks_per_node || max_node != settings.ranks_per_node)) {
    throw std::runtime_error("the platform puts " + std::to_string(min_node) + "-" + std::to_string(max_node) +
                             " ranks on a host, not --ranks-per-node " + std::to_string(settings.ranks_per_node));
  }
  MPI_Comm parent = MPI_COMM_WORLD;
  if (settings.reorder) MPI_Comm_dup(MPI_COMM_WORLD, &parent);
  for (const std::string& pattern : settings.patterns) {
    const smpi_bench::CommGraph& graph = smpi_bench::pattern_graph(pattern, size, settings.pattern);
    const nlohmann::json stats = rank == 0 ? pattern_stats(graph, max_node) : nlohmann::json{};
    for (const std::string& impl : settings.impls) {
      std::map<long long, Result> direct_results;  // one run serves both forms
      for (const std::string& form : settings.forms) {
        for (const long long bytes : settings.bytes) {
          const Shape s = shape_of(graph, rank, bytes);
          const Result r = [&] {
            if (impl == "direct" && direct_results.contains(bytes)) return direct_results.at(bytes);
            if (impl == "distopo") return run_distopo(settings, parent, form, graph, s, bytes, rank, host.id);
            const Buffers b(s, !settings.verify);
            return direct_results[bytes] = run_direct(settings, s, b, rank);
          }();
          const long long wrong = settings.verify ? sum_over_ranks(r.wrong) : -1;
          const long long total_bytes = sum_over_ranks(static_cast<long long>(s.send_bytes));
          if (rank != 0) continue;
          nlohmann::json row = {{"mode", "smpi"},
                                {"impl", impl},
                                {"algorithm", impl == "direct" ? "mpich_linear" : settings.algorithm},
                                {"pattern", pattern},
                                {"op", "alltoallv"},
                                {"form", form},
                                {"P", size},
                                {"ranks_per_node", max_node},
                                {"bytes", bytes},
                                {"time_s", median(r.times)},
                                {"min_time_s", *std::min_element(r.times.begin(), r.times.end())},
                                {"reps", r.times.size()},
                                {"bytes_sent_total", total_bytes},
                                {"model", settings.model_name},
                                {"platform", settings.platform}};
          if (r.first_call >= 0) row["first_call_s"] = r.first_call;
          if (r.init >= 0) row["init_s"] = r.init;
          if (settings.verify) row["wrong_bytes"] = wrong;
          if (!r.choice.is_null()) row.update(r.choice);
          row.update(stats);
          if (!r.node_of.empty()) row.update(mapped_stats(graph, r.node_of));
          std::printf("%s\n", row.dump().c_str());
          std::fflush(stdout);
        }
      }
    }
  }
  if (parent != MPI_COMM_WORLD) MPI_Comm_free(&parent);
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  CLI::App app{"neighbor_alltoallv under SMPI: distopo's code against MPICH 4.0.2's algorithm"};
  app.add_option("--pattern", settings.patterns, "communication patterns")
      ->delimiter(',')
      ->check(CLI::IsMember(smpi_bench::pattern_names()));
  app.add_option("--impl", settings.impls, "direct (MPICH's algorithm), distopo")
      ->delimiter(',')
      ->check(CLI::IsMember({"direct", "distopo"}));
  app.add_option("--algorithm", settings.algorithm, "distopo_neighbor_algorithm for distopo's communicators");
  app.add_option("--form", settings.forms, "persistent (init excluded), blocking (first call reported)")
      ->delimiter(',')
      ->check(CLI::IsMember({"persistent", "blocking"}));
  app.add_option("--bytes", settings.bytes, "mean block sizes in bytes")->delimiter(',');
  app.add_option("--reps", settings.reps, "timed calls per block size (median reported)")->check(CLI::PositiveNumber);
  app.add_flag("--verify", settings.verify, "private buffers, contents checked (wrong_bytes in each row)");
  app.add_flag("--reorder", settings.reorder,
               "distopo: communicators made with reorder = true (the node-aware mapping of the pattern's weights)");
  app.add_option("--kout", settings.pattern.kout, "random_kout: destinations per rank");
  app.add_option("--points-per-rank", settings.pattern.points_per_rank, "laplace27_metis: grid points per part");
  app.add_option("--seed", settings.pattern.seed, "seed of random_kout and METIS");
  smpi_bench::add_machine_model_options(app, settings.model);
  app.add_option("--model-name", settings.model_name, "label: the model's name");
  app.add_option("--platform", settings.platform, "label: the platform file's name");
  app.add_option("--ranks-per-node", settings.ranks_per_node, "expected ranks per host (checked; 0: any)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  smpi_bench::install_machine_model(settings.model);

  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status = 0;
  try {
    run(settings, rank, size);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
