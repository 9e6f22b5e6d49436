// Scenarios whose simulated time can be worked out by hand, to check the
// machine model of the neighborhood-collective study (machine_model.hpp, the
// platform of fat_tree_platform.sh --ranks-per-host, and SimGrid's
// smpi/overheads-timeline). Needs at least two hosts of at least four ranks
// (P = 2 * ranks per host, the hosts under one leaf switch). Prints on rank 0
// one JSON object per scenario and size: {"scenario", "bytes", "time_s"}, the
// time from a common start to the last rank's return. What each scenario
// should take: scripts/smpi/check_neighbor_model.sh.
#include <mpi.h>
#include <simgrid/actor.h>

#undef exit
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "machine_model.hpp"
#include "simulated_start.hpp"

namespace {

constexpr double kStartGuard = 1e-3;
constexpr double kEndGuard = 1e-3;
constexpr int kTag = 3;

// A simulated pause outside MPI (not charged as computation).
void pause_for(double seconds) {
  smpi_bench_end();
  sg_actor_sleep_for(seconds);
  smpi_bench_begin();
}

double run_scenario(const std::function<void()>& body) {
  const double start = bench::start_together(kStartGuard);
  body();
  double elapsed = bench::finish_together(start, kEndGuard);
  if (std::getenv("MODEL_CHECK_DEBUG") != nullptr) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "rank %d: %.4f us\n", rank, elapsed * 1e6);
  }
  MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return elapsed;
}

}  // namespace

int main(int argc, char** argv) {
  smpi_bench::MachineModel model;
  std::vector<int> sizes = {8, 1024, 65536};
  double late = 10e-6;
  CLI::App app{"hand-checkable scenarios of the neighborhood-collective machine model"};
  app.add_option("--network-overhead", model.network_overhead);
  app.add_option("--shm-overhead", model.shm_overhead);
  app.add_option("--copy-bandwidth", model.copy_bandwidth);
  app.add_option("--wire-bytes", model.wire_bytes);
  app.add_option("--loopback-bandwidth", model.loopback_bandwidth);
  app.add_option("--nic-bandwidth", model.nic_bandwidth, "bytes/s of a host's NIC queue");
  app.add_option("--hop-latency", model.hop_latency, "s per fat-tree hop");
  app.add_option("--eager-limit", model.eager_limit);
  app.add_option("--bytes", sizes, "message sizes")->delimiter(',');
  app.add_option("--late", late, "late_first: how much later the first message is sent (s)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  smpi_bench::install_machine_model(model);
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int other = size / 2;  // the first rank of the second host
  std::vector<char> send(1 << 20), recv(1 << 20);

  const auto one_message = [&](int from, int to, int bytes) {
    MPI_Request request = MPI_REQUEST_NULL;
    if (rank == from) MPI_Isend(send.data(), bytes, MPI_BYTE, to, kTag, MPI_COMM_WORLD, &request);
    if (rank == to) MPI_Irecv(recv.data(), bytes, MPI_BYTE, from, kTag, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  };

  for (const int bytes : sizes) {
    const auto report = [&](const std::string& scenario, double time) {
      if (rank == 0) {
        std::printf("%s\n", nlohmann::json{{"scenario", scenario}, {"bytes", bytes}, {"time_s", time}}.dump().c_str());
        std::fflush(stdout);
      }
    };
    // One message between hosts, and one within a host.
    report("between_hosts", run_scenario([&] { one_message(0, other, bytes); }));
    report("within_host", run_scenario([&] { one_message(0, 1, bytes); }));
    // Four ranks of host 0 send one message each to four ranks of host 1 at
    // once: the host's link carries all four.
    report("shared_link", run_scenario([&] {
             MPI_Request request = MPI_REQUEST_NULL;
             if (rank < 4) MPI_Isend(send.data(), bytes, MPI_BYTE, other + rank, kTag, MPI_COMM_WORLD, &request);
             if (rank >= other && rank < other + 4)
               MPI_Irecv(recv.data(), bytes, MPI_BYTE, rank - other, kTag, MPI_COMM_WORLD, &request);
             MPI_Wait(&request, MPI_STATUS_IGNORE);
           }));
    // Rank 0 sends four messages, one to each of four ranks of host 1: its
    // send overheads follow each other.
    if (bytes >= static_cast<int>(model.eager_limit)) continue;  // the rest: eager messages only
    report("one_sender", run_scenario([&] {
             std::vector<MPI_Request> requests;
             if (rank == 0) {
               for (int i = 0; i < 4; ++i)
                 MPI_Isend(send.data(), bytes, MPI_BYTE, other + i, kTag, MPI_COMM_WORLD, &requests.emplace_back());
             }
             if (rank >= other && rank < other + 4)
               MPI_Irecv(recv.data(), bytes, MPI_BYTE, 0, kTag, MPI_COMM_WORLD, &requests.emplace_back());
             MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
           }));
    // Rank `other` receives from ranks 0..3 and completes the receives one by
    // one in posting order; rank 0 sends `late` seconds after the others. The
    // other three messages are processed while the first one is awaited.
    report("late_first", run_scenario([&] {
             if (rank < 4) {
               if (rank == 0) pause_for(late);
               MPI_Send(send.data(), bytes, MPI_BYTE, other, kTag, MPI_COMM_WORLD);
             }
             if (rank == other) {
               std::vector<MPI_Request> requests(4);
               for (int i = 0; i < 4; ++i)
                 MPI_Irecv(recv.data(), bytes, MPI_BYTE, i, kTag, MPI_COMM_WORLD, &requests[i]);
               for (MPI_Request& request : requests) MPI_Wait(&request, MPI_STATUS_IGNORE);
             }
           }));
  }
  MPI_Finalize();
  return 0;
}
