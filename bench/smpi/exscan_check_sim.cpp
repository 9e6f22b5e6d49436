// Checks the MPI_Exscan of the simulations against its definition: on every
// communicator of the first n ranks (n = 1 .. P), a sum of two 64-bit values
// and a max of one int, each rank's result against the values of the ranks
// below it. The neighborhood study runs MPI_Exscan with SimGrid's patch
// smpi/exscan-recursive-doubling (MPICH's algorithm), which this checks;
// rank 0's result is undefined and not read. Prints on rank 0
// {"scenario": "exscan", "P": P, "wrong": <results that differ>}.
// Run: scripts/smpi/check_neighbor_model.sh.
#include <mpi.h>

#include <array>
#include <cstdio>

namespace {

long long value_of(int rank, int slot) { return slot == 0 ? rank + 1 : 3LL * rank + 7; }
int max_input_of(int rank) { return (rank * 37) % 11; }

// Results on this rank of `comm` that differ from the definition.
int wrong_results(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::array<long long, 2> mine{value_of(rank, 0), value_of(rank, 1)};
  std::array<long long, 2> sums{-1, -1};
  MPI_Exscan(mine.data(), sums.data(), 2, MPI_LONG_LONG, MPI_SUM, comm);
  const int max_input = max_input_of(rank);
  int max_below = -1;
  MPI_Exscan(&max_input, &max_below, 1, MPI_INT, MPI_MAX, comm);
  if (rank == 0) return 0;
  std::array<long long, 2> want{0, 0};
  int want_max = -1;
  for (int q = 0; q < rank; ++q) {
    want[0] += value_of(q, 0);
    want[1] += value_of(q, 1);
    if (max_input_of(q) > want_max) want_max = max_input_of(q);
  }
  return (sums[0] != want[0]) + (sums[1] != want[1]) + (max_below != want_max);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int wrong = 0;
  for (int n = 1; n <= size; ++n) {
    MPI_Comm first = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank < n ? 0 : MPI_UNDEFINED, rank, &first);
    if (first != MPI_COMM_NULL) {
      wrong += wrong_results(first);
      MPI_Comm_free(&first);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("{\"scenario\": \"exscan\", \"P\": %d, \"wrong\": %d}\n", size, wrong);
  MPI_Finalize();
  return 0;
}
