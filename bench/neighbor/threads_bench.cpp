// threads_bench: an MPI_THREAD_MULTIPLE program (T threads per rank, each on
// its own communicator running tests/capi/threaded_workload.h: distributed
// graphs and Cartesian grids created, queried, freed, and blocking,
// non-blocking and persistent neighborhood collectives on them) timed with
// libdistopo_mpi.so preloaded (distopo) and without (MPICH), beside N busy
// processes that the benchmark starts itself (--cpu-load N).
//
// The program is linked only to MPI: the implementation is chosen by the
// preload, as for a user's program. Without --worker it is the launcher: it
// starts the load, then for each round runs `mpiexec -n P <itself> --worker`
// once per implementation, alternating, and prints one JSON line per run.
//
// Run: threads_bench [--impl distopo,mpich] [--cpu-load 2] [--np 4] [--threads 4] [--steps 40] [--rounds 5]
#include <dlfcn.h>
#include <mpi.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace phase_clock {
// This thread's time in each phase of the workload (threaded_workload.h's
// WORKLOAD_PHASE), wall time including waiting: which calls the difference
// between the implementations sits in.
constexpr int kMaxPhases = 16;
thread_local std::array<double, kMaxPhases> seconds{};
template <class Call>
auto timed(int phase, Call&& call) {
  const auto start = std::chrono::steady_clock::now();
  auto result = call();
  seconds[static_cast<std::size_t>(phase)] +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}
}  // namespace phase_clock
#define WORKLOAD_PHASE(phase, call) phase_clock::timed((phase), [&] { return (call); })
#include "threaded_workload.h"

namespace {

static_assert(WORKLOAD_PHASES <= phase_clock::kMaxPhases);

struct Settings {
  std::vector<std::string> impls{"distopo", "mpich"};
  int cpu_load = 0;
  int np = 4;
  int threads = 4;
  int steps = 40;
  int rounds = 5;
  bool yield_helper = true;
  std::string library = DISTOPO_CAPI_LIBRARY;
  std::string yield_library = DISTOPO_YIELD_LIBRARY;
  std::string mpiexec = DISTOPO_MPIEXEC;
  std::string commit;  // the source tree's HEAD (with -dirty) unless given
};

// Worker: one rank of the program. Rank 0 prints {"seconds", "failures",
// "distopo", "phase_seconds"} on one line: the max over ranks of the threaded
// part's time, and the time of each phase summed over all threads and ranks.
int run_worker(const Settings& settings) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  if (provided != MPI_THREAD_MULTIPLE) {
    std::fprintf(stderr, "threads_bench: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  std::vector<MPI_Comm> comms(static_cast<std::size_t>(settings.threads));
  for (MPI_Comm& comm : comms) MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  std::vector<int> failures(comms.size(), 0);
  std::vector<std::array<double, phase_clock::kMaxPhases>> thread_phases(comms.size());
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  {
    std::vector<std::jthread> threads;
    for (std::size_t t = 0; t < comms.size(); ++t) {
      threads.emplace_back([&, t] {
        for (int step = 0; step < settings.steps; ++step) failures[t] += workload_step(comms[t], step);
        thread_phases[t] = phase_clock::seconds;
      });
    }
  }
  double seconds = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  std::array<double, phase_clock::kMaxPhases> phases{};
  for (const auto& thread : thread_phases) {
    for (std::size_t p = 0; p < phases.size(); ++p) phases[p] += thread[p];
  }
  MPI_Allreduce(MPI_IN_PLACE, phases.data(), static_cast<int>(phases.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int failed = 0;
  for (int f : failures) failed += f;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (MPI_Comm& comm : comms) MPI_Comm_free(&comm);
  // Which library answers MPI_Neighbor_alltoall: distopo's when preloaded.
  Dl_info where{};
  const bool distopo = dladdr(reinterpret_cast<void*>(&MPI_Neighbor_alltoall), &where) != 0 &&
                       where.dli_fname != nullptr && std::string(where.dli_fname).find("distopo") != std::string::npos;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    nlohmann::json phase_seconds;
    for (int p = 0; p < WORKLOAD_PHASES; ++p) {
      phase_seconds[workload_phase_name(static_cast<workload_phase>(p))] = phases[static_cast<std::size_t>(p)];
    }
    std::printf("%s\n",
                nlohmann::json{
                    {"seconds", seconds}, {"failures", failed}, {"distopo", distopo}, {"phase_seconds", phase_seconds}}
                    .dump()
                    .c_str());
  }
  MPI_Finalize();
  return 0;
}

// N processes that spin until killed, like `yes > /dev/null`.
std::vector<pid_t> start_load(int n) {
  std::vector<pid_t> children;
  for (int i = 0; i < n; ++i) {
    const pid_t child = fork();
    if (child == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the launcher, however it ends
      volatile unsigned long spin = 0;
      for (;;) spin = spin + 1;
    }
    if (child > 0) children.push_back(child);
  }
  return children;
}

void stop_load(const std::vector<pid_t>& children) {
  for (pid_t child : children) kill(child, SIGKILL);
  for (pid_t child : children) waitpid(child, nullptr, 0);
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

double children_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Runs the worker under mpiexec with `impl`'s preload; its JSON line, the
// wall time of the whole mpiexec, the CPU time of all its processes (what
// spinning costs the load beside it) and the exit status.
nlohmann::json run_once(const Settings& settings, const std::string& self, const std::string& impl) {
  std::string preload;
  if (impl == "distopo") preload = settings.library;
  if (settings.yield_helper) preload += (preload.empty() ? "" : ":") + settings.yield_library;
  const std::string command = "env LD_PRELOAD='" + preload + "' UCX_TLS=self,posix UCX_WARN_UNUSED_ENV_VARS=n " +
                              settings.mpiexec + " -n " + std::to_string(settings.np) + " '" + self +
                              "' --worker --threads " + std::to_string(settings.threads) + " --steps " +
                              std::to_string(settings.steps);
  const double cpu_before = children_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  std::array<char, 4096> buffer{};
  while (pipe != nullptr && std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
  const int status = pipe == nullptr ? -1 : pclose(pipe);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  nlohmann::json row = nlohmann::json::parse(output, nullptr, false);
  if (row.is_discarded() || !row.is_object()) row = nlohmann::json{{"seconds", nullptr}, {"output", output}};
  row["mpiexec_seconds"] = wall;
  row["cpu_seconds"] = children_cpu_seconds() - cpu_before;
  row["exit_status"] = status;
  return row;
}

std::string source_commit() {
  const std::string command = std::string("git -C '") + DISTOPO_SOURCE_DIR +
                              "' describe --always --dirty --abbrev=40 --match=NoTagWanted 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  std::array<char, 128> buffer{};
  std::string commit;
  if (pipe != nullptr && std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) commit = buffer.data();
  if (pipe != nullptr) pclose(pipe);
  while (!commit.empty() && (commit.back() == '\n' || commit.back() == ' ')) commit.pop_back();
  return commit.empty() ? "unknown" : commit;
}

int run_launcher(Settings settings, const std::string& self) {
  if (settings.commit.empty()) settings.commit = source_commit();
  const std::vector<pid_t> load = start_load(settings.cpu_load);
  int failed = 0;
  for (int round = 0; round < settings.rounds; ++round) {
    // Alternate which implementation goes first, so drifting load hits both.
    std::vector<std::string> order = settings.impls;
    if (round % 2 == 1) std::reverse(order.begin(), order.end());
    for (const std::string& impl : order) {
      nlohmann::json row = run_once(settings, self, impl);
      if (row["exit_status"] != 0 || row.value("failures", 1) != 0 ||
          row.value("distopo", false) != (impl == "distopo")) {
        failed = 1;
      }
      nlohmann::json line{{"bench", "threads"},
                          {"commit", settings.commit},
                          {"impl", impl},
                          {"np", settings.np},
                          {"threads", settings.threads},
                          {"steps", settings.steps},
                          {"cpu_load", settings.cpu_load},
                          {"yield_helper", settings.yield_helper},
                          {"round", round},
                          {"loadavg", load_average()}};
      line.update(row);
      std::printf("%s\n", line.dump().c_str());
      std::fflush(stdout);
    }
  }
  stop_load(load);
  return failed;
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  bool worker = false;
  CLI::App app{"Threaded topology and neighborhood-collective workload: distopo (preloaded) against MPICH"};
  app.add_option("--impl", settings.impls, "implementations to run, alternating: distopo, mpich")
      ->delimiter(',')
      ->check(CLI::IsMember({"distopo", "mpich"}));
  app.add_option("--cpu-load", settings.cpu_load, "busy processes to start beside the program")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--np", settings.np, "MPI processes")->check(CLI::PositiveNumber);
  app.add_option("--threads", settings.threads, "threads per process, each on its own communicator")
      ->check(CLI::PositiveNumber);
  app.add_option("--steps", settings.steps, "workload steps per thread")->check(CLI::PositiveNumber);
  app.add_option("--rounds", settings.rounds, "runs per implementation")->check(CLI::PositiveNumber);
  app.add_option("--yield-helper", settings.yield_helper, "preload libdistopo_ucx_yield.so in both (default true)");
  app.add_option("--library", settings.library, "libdistopo_mpi.so to preload for distopo");
  app.add_option("--commit", settings.commit, "commit recorded in each row");
  app.add_flag("--worker", worker, "run as one rank of the program (used by the launcher)");
  CLI11_PARSE(app, argc, argv);
  if (worker) return run_worker(settings);
  std::array<char, 4096> self{};
  const ssize_t length = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (length <= 0) return 2;
  return run_launcher(settings, std::string(self.data(), static_cast<std::size_t>(length)));
}
