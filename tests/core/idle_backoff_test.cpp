// Ranks that wait long for a late rank sleep instead of polling: in the
// sparse exchange's loop and in wait_politely. A poller that has a core uses
// about all of it; one that shares it with others still gets its fair share
// (half of a core shared by two: measured 0.51 with 4 ranks on 2 cores), so
// a fifth is far above a sleeper's use (a wake-up of a few microseconds per
// nap of a 32nd of the time waited: about 0.05) and below a poller's.
#include "distopo/core/idle_backoff.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <thread>
#include <vector>

#include "distopo/core/comm.hpp"
#include "distopo/core/sparse_exchange.hpp"
#include "mpi_testing.hpp"

namespace {

using distopo::testing::world_rank;
using distopo::testing::world_size;

constexpr auto kLate = std::chrono::milliseconds(400);
constexpr double kMostCpuShare = 0.2;

double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// Runs `wait` on every rank, the last rank kLate after the others, and
// expects each other rank to have used at most kMostCpuShare of a core while
// it waited.
template <class Wait>
void expect_waiting_ranks_sleep(const Wait& wait) {
  const int last = world_size() - 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == last) std::this_thread::sleep_for(kLate);
  const double wall = MPI_Wtime();
  const double cpu = process_cpu_seconds();
  wait();
  const double waited = MPI_Wtime() - wall;
  const double used = process_cpu_seconds() - cpu;
  if (world_rank() != last) {
    EXPECT_GE(waited, 0.5 * std::chrono::duration<double>(kLate).count());
    EXPECT_LE(used, kMostCpuShare * waited)
        << "rank " << world_rank() << " used " << used << " s of CPU in " << waited << " s of waiting";
  }
}

TEST(IdleBackoff, WaitPolitelySleepsWhileALateRankWorks) {
  const auto comm = distopo::private_copy(MPI_COMM_WORLD);
  expect_waiting_ranks_sleep([&] {
    MPI_Request barrier = MPI_REQUEST_NULL;
    ASSERT_EQ(MPI_Ibarrier(comm, &barrier), MPI_SUCCESS);
    distopo::wait_politely(barrier);
    EXPECT_EQ(barrier, MPI_REQUEST_NULL);
  });
}

TEST(IdleBackoff, SparseExchangeSleepsWhileALateRankWorks) {
  const auto comm = distopo::private_copy(MPI_COMM_WORLD);
  // Every rank sends its right neighbor one int: the ranks wait in the
  // exchange for the last one's message or agreement.
  const int right = (world_rank() + 1) % world_size();
  const std::vector<int> payload = {world_rank()};
  const std::vector<distopo::OutgoingMessage<int>> messages = {{right, payload}};
  expect_waiting_ranks_sleep([&] {
    int received = -1;
    distopo::sparse_exchange<int>(
        comm, messages, [&](int, std::span<const int> data) { received = data[0]; }, {}, distopo::exchange_route(comm));
    EXPECT_EQ(received, (world_rank() + world_size() - 1) % world_size());
  });
}

}  // namespace
