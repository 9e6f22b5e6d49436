// The sparse exchange when one rank runs out of memory inside it (one chosen
// allocation throws: failing_allocation.hpp), swept over every allocation of
// an all-to-all round on rank 0 and on the last rank. What sparse_exchange.hpp
// promises: std::bad_alloc only before the rank's first send, so calling
// again joins the same round; a message without room is dropped and every
// rank throws the same DroppedMessages; otherwise (an acknowledgement without
// room is sent blocking) every message arrives intact. Registered again on
// the node-aware route (tests/core/CMakeLists.txt), where the failing rank
// also gathers and relays.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <new>
#include <vector>

#include "distopo/core/comm.hpp"
#include "distopo/core/sparse_exchange.hpp"
#include "failing_allocation.hpp"
#include "mpi_testing.hpp"

namespace {

using distopo::Comm;
using distopo::OutgoingMessage;
using distopo::testing::world_rank;
using distopo::testing::world_size;

constexpr int kWords = 5;

int word(int source, int destination, int i) { return 1000 * source + 10 * destination + i; }

enum class Ending { delivered, dropped };

// One round on `comm`: every rank sends kWords ints to every rank (itself
// included); allocation `failing` on `failing_rank` throws. Returns how it
// ended on this rank, with what arrived in `received` (one row per source;
// filled without allocating).
Ending all_to_all(MPI_Comm comm, int failing_rank, long failing, std::vector<std::array<int, kWords>>& received,
                  int& retries) {
  const int rank = world_rank();
  const int size = world_size();
  std::vector<std::array<int, kWords>> payloads(static_cast<std::size_t>(size));
  std::vector<OutgoingMessage<int>> messages;
  for (int d = 0; d < size; ++d) {
    for (int i = 0; i < kWords; ++i)
      payloads[static_cast<std::size_t>(d)][static_cast<std::size_t>(i)] = word(rank, d, i);
    messages.push_back({d, payloads[static_cast<std::size_t>(d)]});
  }
  std::fill(received.begin(), received.end(), std::array<int, kWords>{});
  const auto keep = [&](int source, std::span<const int> data) {
    EXPECT_EQ(data.size(), static_cast<std::size_t>(kWords));
    std::copy(data.begin(), data.end(), received[static_cast<std::size_t>(source)].begin());
  };
  // The route (DISTOPO_EXCHANGE; made and cached on the first call) is
  // looked up before the exchange, as dist_graph_create does.
  const distopo::ExchangeRoute route = distopo::exchange_route(comm);
  if (rank == failing_rank) distopo::testing::arm_failing_allocation(failing);
  Ending ending = Ending::delivered;
  for (retries = 0;; ++retries) {
    try {
      distopo::sparse_exchange<int>(comm, messages, keep, {}, route);
      break;
    } catch (const distopo::DroppedMessages&) {
      ending = Ending::dropped;
      break;
    } catch (const std::bad_alloc&) {
      // Nothing was sent: the others are still in this round.
    }
  }
  distopo::testing::disarm_failing_allocation();
  return ending;
}

TEST(SparseExchangeOutOfMemory, EveryRankEndsTheSameAndNothingIsLost) {
  const int rank = world_rank();
  const int size = world_size();
  std::array<Comm, 2> channels{distopo::private_copy(MPI_COMM_WORLD), distopo::private_copy(MPI_COMM_WORLD)};
  std::vector<std::array<int, kWords>> received(static_cast<std::size_t>(size));
  int round = 0;
  int retries = 0;
  for (const int failing_rank : {0, size - 1}) {
    // Counted on the second round: the first also fills process-wide caches.
    for (int warm = 0; warm < 2; ++warm) all_to_all(channels[round++ % 2], failing_rank, -1, received, retries);
    long count = distopo::testing::allocations_counted();
    MPI_Bcast(&count, 1, MPI_LONG, failing_rank, MPI_COMM_WORLD);
    ASSERT_GT(count, 0);
    std::array<int, 2> endings{0, 0};  // rounds delivered, dropped
    for (long failing = 0; failing < count; ++failing) {
      const Ending ending = all_to_all(channels[round++ % 2], failing_rank, failing, received, retries);
      int fired = rank == failing_rank && distopo::testing::allocation_failed() ? 1 : 0;
      MPI_Bcast(&fired, 1, MPI_INT, failing_rank, MPI_COMM_WORLD);
      EXPECT_EQ(fired, 1) << "allocation " << failing << " of " << count << " was never made";
      const int dropped = ending == Ending::dropped ? 1 : 0;
      int dropped_anywhere = 0;
      MPI_Allreduce(&dropped, &dropped_anywhere, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      EXPECT_EQ(dropped, dropped_anywhere) << "DroppedMessages on some ranks only, allocation " << failing;
      ++endings[static_cast<std::size_t>(dropped)];
      if (dropped == 0) {
        for (int s = 0; s < size; ++s) {
          for (int i = 0; i < kWords; ++i) {
            EXPECT_EQ(received[static_cast<std::size_t>(s)][static_cast<std::size_t>(i)], word(s, rank, i))
                << "from rank " << s << " after allocation " << failing << " failed on rank " << failing_rank;
          }
        }
      }
      EXPECT_LE(retries, 1);
      if (testing::Test::HasFailure()) return;
    }
    // The receive buffer of some message was among them.
    EXPECT_GT(endings[1], 0);
  }
}

}  // namespace
