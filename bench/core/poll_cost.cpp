// What one poll costs: an empty MPI_Iprobe(MPI_ANY_SOURCE) and an MPI_Test on
// a receive that never completes, averaged over many calls. The SMPI study
// charges each poll a fixed CPU time (scripts/smpi/simulate.sh --iprobe);
// this is the measurement that value is checked against.
// Run: mpiexec -n P poll_cost [--calls N] [--rounds R]
// Prints one JSON object per round on rank 0 (the max over ranks).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace {

double seconds_per_iprobe(long calls) {
  int flag = 0;
  const double start = MPI_Wtime();
  for (long i = 0; i < calls; ++i) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  return (MPI_Wtime() - start) / static_cast<double>(calls);
}

double seconds_per_test(long calls) {
  // A receive on a tag nobody sends: every MPI_Test polls and fails.
  int buffer = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Irecv(&buffer, 1, MPI_INT, MPI_ANY_SOURCE, 4711, MPI_COMM_WORLD, &request);
  int flag = 0;
  const double start = MPI_Wtime();
  for (long i = 0; i < calls; ++i) MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
  const double per_call = (MPI_Wtime() - start) / static_cast<double>(calls);
  MPI_Cancel(&request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  return per_call;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  CLI::App app{"cost of one MPI_Iprobe / MPI_Test"};
  long calls = 2000000;
  int rounds = 3;
  app.add_option("--calls", calls, "polls per measurement");
  app.add_option("--rounds", rounds, "measurements");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    MPI_Finalize();
    return code;
  }
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int round = 0; round < rounds; ++round) {
    MPI_Barrier(MPI_COMM_WORLD);
    double costs[2] = {seconds_per_iprobe(calls), seconds_per_test(calls)};
    MPI_Allreduce(MPI_IN_PLACE, costs, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
      const nlohmann::json row{
          {"P", size}, {"round", round}, {"calls", calls}, {"iprobe_ns", costs[0] * 1e9}, {"test_ns", costs[1] * 1e9}};
      std::printf("%s\n", row.dump().c_str());
    }
  }
  MPI_Finalize();
  return 0;
}
