// Ranks that wait long for a late rank sleep instead of polling: in the
// sparse exchange's loop and in wait_politely. A poller that has a core uses
// about all of it; one that shares it with others still gets its fair share
// (half of a core shared by two: measured 0.51 with 4 ranks on 2 cores).
// wait_politely naps a 32nd of the time waited, so its share is a wake-up per
// nap (measured 0.03-0.06): a fifth is far above it. The exchange naps at
// most 100 us, so as not to delay a message: measured 0.10-0.21 at 2 and 4
// ranks, with and without ASan (about 20 us of CPU per turn between naps, a
// progress pass and a probe, on the virtual machines the tests run on), so
// its bound is a third, still below a poller's half.
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
constexpr double kMostCpuShareNapping = 0.2;           // wait_politely
constexpr double kMostCpuShareExchangeLoop = 1.0 / 3;  // the sparse exchange

double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// Runs `wait` on every rank, the last rank kLate after the others, and
// expects each other rank to have used at most `most_share` of a core while
// it waited.
template <class Wait>
void expect_waiting_ranks_sleep(double most_share, const Wait& wait) {
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
    EXPECT_LE(used, most_share * waited) << "rank " << world_rank() << " used " << used << " s of CPU in " << waited
                                         << " s of waiting";
  }
}

TEST(IdleBackoff, WaitPolitelySleepsWhileALateRankWorks) {
  const auto comm = distopo::private_copy(MPI_COMM_WORLD);
  expect_waiting_ranks_sleep(kMostCpuShareNapping, [&] {
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
  expect_waiting_ranks_sleep(kMostCpuShareExchangeLoop, [&] {
    int received = -1;
    distopo::sparse_exchange<int>(
        comm, messages, [&](int, std::span<const int> data) { received = data[0]; }, {}, distopo::exchange_route(comm));
    EXPECT_EQ(received, (world_rank() + world_size() - 1) % world_size());
  });
}

}  // namespace
