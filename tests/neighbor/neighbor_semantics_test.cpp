// Isolation from user traffic, outstanding non-blocking collectives, MPI_Wait /
// MPI_Test / MPI_Waitall / MPI_Testall on the returned requests, persistent
// starts, and the error policy.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "distopo/neighbor/algorithm.hpp"
#include "distopo/neighbor/nonblocking_request.hpp"
#include "neighbor_testing.hpp"

namespace {

using distopo::testing::world_rank;
using distopo::testing::world_size;

distopo::Comm ring() {
  return distopo::cart_create(MPI_COMM_WORLD, std::vector<int>{world_size()}, {distopo::periodic});
}

std::vector<int> ring_expected(const distopo::Comm& comm, int base) {
  const int p = comm.size();
  const int me = comm.rank();
  const int below = (me + p - 1) % p;
  const int above = (me + 1) % p;
  // Slot 0 from the -1 neighbor's +1 block, slot 1 from the +1 neighbor's -1 block.
  return {base + 10 * below + 1, base + 10 * above + 0};
}

using distopo::testing::error_class_of;

// The registration with DISTOPO_NEIGHBOR_ALGORITHM=aggregated (tests/neighbor/
// CMakeLists.txt) runs every test below on the aggregated algorithm: checked
// here, so that it cannot pass on the direct one.
// With DISTOPO_NEIGHBOR_ALGORITHM=auto on nodes of odd and even ranks
// (MPIR_CVAR_ODD_EVEN_CLIQUES), the persistent tests run aggregated: on an
// even ring every neighbor is on the other node, two blocks per node pair.
TEST(NeighborAlgorithmFromEnvironment, IsTheOneUsed) {
  const char* asked = std::getenv("DISTOPO_NEIGHBOR_ALGORITHM");
  const distopo::Comm comm = ring();
  if (asked != nullptr && std::string(asked) == "auto" && std::getenv("MPIR_CVAR_ODD_EVEN_CLIQUES") != nullptr) {
    std::vector<int> send(2), recv(2);
    const distopo::PersistentRequest request = distopo::neighbor_alltoall_init(comm, send, recv);
    const distopo::NeighborAlgorithmChoice choice = request.algorithm();
    EXPECT_EQ(choice.algorithm,
              world_size() % 2 == 0 ? distopo::NeighborAlgorithm::aggregated : distopo::NeighborAlgorithm::direct);
    EXPECT_EQ(distopo::neighbor_algorithm(comm).algorithm, distopo::NeighborAlgorithm::direct);
    return;
  }
  if (asked == nullptr || std::string(asked) != "aggregated")
    GTEST_SKIP() << "DISTOPO_NEIGHBOR_ALGORITHM is not aggregated";
  const distopo::NeighborAlgorithmChoice choice = distopo::neighbor_algorithm(comm);
  EXPECT_EQ(choice.algorithm, distopo::NeighborAlgorithm::aggregated);
  EXPECT_EQ(choice.node_count, (world_size() + 1) / 2);  // DISTOPO_RANKS_PER_NODE=2
}

TEST(NeighborIsolation, UserAnyTagReceiveIsNotConsumed) {
  distopo::Comm comm = ring();
  const int me = comm.rank();
  int user = -1;
  MPI_Request user_request = MPI_REQUEST_NULL;
  MPI_Irecv(&user, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &user_request);
  std::vector<int> send = {10 * me, 10 * me + 1}, recv(2, -1);
  distopo::neighbor_alltoall(comm, send, recv);
  MPI_Request request = distopo::ineighbor_alltoall(comm, send, recv);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  int flag = 0;
  MPI_Test(&user_request, &flag, MPI_STATUS_IGNORE);
  EXPECT_EQ(flag, 0) << "a collective message matched the user's receive";
  EXPECT_EQ(recv, ring_expected(comm, 0));
  MPI_Barrier(comm);  // nobody sends the user message before every rank has tested
  const int token = 4242 + me;
  MPI_Send(&token, 1, MPI_INT, (me + 1) % comm.size(), 99, comm);
  MPI_Wait(&user_request, MPI_STATUS_IGNORE);
  EXPECT_EQ(user, 4242 + (me + comm.size() - 1) % comm.size());
}

// A topology communicator made where its parent's channel family has a
// channel with room takes its channel lease in its constructor's agreement,
// so its first collective makes no round of its own: first non-blocking
// collectives on two such communicators may start in different orders on
// different ranks (legal: different communicators). The lease's allreduce
// on the first collective used to make them wait for each other.
TEST(NeighborChannels, FirstCollectivesStartInDifferentOrdersOnRanks) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const char* algorithm = std::getenv("DISTOPO_NEIGHBOR_ALGORITHM");
  if (algorithm != nullptr && std::string(algorithm) == "aggregated") {
    GTEST_SKIP() << "an aggregated plan is made collectively at the first collective";
  }
  MPI_Comm parent = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &parent);  // a family of its own, without a channel yet
  const std::vector<int> dims{world_size()};
  {
    distopo::Comm opener = distopo::cart_create(parent, dims, {distopo::periodic});
    std::vector<int> send = {0, 1}, recv(2, -1);
    distopo::neighbor_alltoall(opener, send, recv);  // opens the family's channel
  }
  distopo::Comm a = distopo::cart_create(parent, dims, {distopo::periodic});
  distopo::Comm b = distopo::cart_create(parent, dims, {distopo::periodic});
  const int me = a.rank();
  std::vector<int> send_a = {10 * me, 10 * me + 1}, recv_a(2, -1);
  std::vector<int> send_b = {1000 + 10 * me, 1000 + 10 * me + 1}, recv_b(2, -1);
  MPI_Request requests[2];
  if (me % 2 == 0) {
    requests[0] = distopo::ineighbor_alltoall(a, send_a, recv_a);
    requests[1] = distopo::ineighbor_alltoall(b, send_b, recv_b);
  } else {
    requests[1] = distopo::ineighbor_alltoall(b, send_b, recv_b);
    requests[0] = distopo::ineighbor_alltoall(a, send_a, recv_a);
  }
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  EXPECT_EQ(recv_a, ring_expected(a, 0));
  EXPECT_EQ(recv_b, ring_expected(b, 1000));
  MPI_Comm_free(&parent);
}

// The settings in the environment are agreed with a constructor's lease: a
// rank whose environment differs makes the first collective MPI_ERR_ARG on
// every rank, as on a communicator that leases at its first collective.
TEST(NeighborChannels, EnvironmentSettingOnOneRankOnlyFailsEverywhere) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  constexpr const char* kVariable = "DISTOPO_NEIGHBOR_AGGREGATE_MAX_BYTES";
  const char* before = std::getenv(kVariable);
  const std::string kept = before != nullptr ? before : "";
  distopo::Comm opener = ring();
  const int me = opener.rank();
  std::vector<int> send = {10 * me, 10 * me + 1}, recv(2, -1);
  distopo::neighbor_alltoall(opener, send, recv);  // the family has a channel: the next ring's lease is prepaid
  if (me == 1) setenv(kVariable, "77", 1);
  {
    distopo::Comm comm = ring();
    EXPECT_EQ(error_class_of([&] { distopo::neighbor_alltoall(comm, send, recv); }), MPI_ERR_ARG);
  }
  if (before != nullptr) {
    setenv(kVariable, kept.c_str(), 1);
  } else {
    unsetenv(kVariable);
  }
  distopo::Comm again = ring();  // set alike again: a new ring works
  distopo::neighbor_alltoall(again, send, recv);
  EXPECT_EQ(recv, ring_expected(again, 0));
}

TEST(NeighborRequests, TwoOutstandingCompleteInReverseOrder) {
  distopo::Comm comm = ring();
  const int me = comm.rank();
  std::vector<int> send_a = {10 * me, 10 * me + 1}, recv_a(2, -1);
  std::vector<int> send_b = {1000 + 10 * me, 1000 + 10 * me + 1}, recv_b(2, -1);
  MPI_Request a = distopo::ineighbor_alltoall(comm, send_a, recv_a);
  MPI_Request b = distopo::ineighbor_alltoall(comm, send_b, recv_b);
  MPI_Wait(&b, MPI_STATUS_IGNORE);
  int done = 0;
  while (!done) MPI_Test(&a, &done, MPI_STATUS_IGNORE);
  EXPECT_EQ(a, MPI_REQUEST_NULL);
  EXPECT_EQ(recv_a, ring_expected(comm, 0));
  EXPECT_EQ(recv_b, ring_expected(comm, 1000));
}

TEST(NeighborRequests, WaitallAndTestallWithOtherRequests) {
  distopo::Comm comm = ring();
  const int me = comm.rank();
  std::vector<int> send = {10 * me, 10 * me + 1}, recv(2, -1);
  std::vector<int> gathered(2, -1);
  const int mine = me;
  MPI_Request requests[3];
  requests[0] = distopo::ineighbor_alltoall(comm, send, recv);
  requests[1] = distopo::ineighbor_allgather(comm, std::span<const int>(&mine, 1), std::span<int>(gathered));
  MPI_Ibarrier(comm, &requests[2]);
  MPI_Waitall(3, requests, MPI_STATUSES_IGNORE);
  EXPECT_EQ(recv, ring_expected(comm, 0));
  const int p = comm.size();
  EXPECT_EQ(gathered, (std::vector<int>{(me + p - 1) % p, (me + 1) % p}));
  requests[0] = distopo::ineighbor_alltoall(comm, send, recv);
  requests[1] = distopo::ineighbor_allgather(comm, std::span<const int>(&mine, 1), std::span<int>(gathered));
  int done = 0;
  while (!done) MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE);
  EXPECT_EQ(recv, ring_expected(comm, 0));
}

// Polled while part of its messages have arrived, then waited for: the
// wait completes what the polls found complete too. Rank 1 starts late (after
// rank 0 has polled), so rank 0's receive from its -1 neighbor, rank P-1,
// tends to be complete and the one from rank 1 not when it polls. A
// persistent request whose completed messages were left active could not be
// started again.
TEST(NeighborRequests, PolledInPartThenWaited) {
  if (world_size() < 3) GTEST_SKIP() << "needs 3 ranks (a neighbor that starts late and one that does not)";
  distopo::Comm comm = ring();
  const int me = comm.rank();
  const int p = comm.size();
  std::vector<int> send(2), recv(2, -1);
  distopo::PersistentRequest persistent = distopo::neighbor_alltoall_init(comm, send, recv);
  // Rank P-1 tells rank 0 it started; rank 0 tells rank 1 it polled.
  const auto start_in_turn = [&](const std::function<void()>& start, const std::function<void()>& poll) {
    int token = 0;
    if (me == 1) MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    start();
    if (me == p - 1) MPI_Send(&token, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
    if (me == 0) {
      MPI_Recv(&token, 1, MPI_INT, p - 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int i = 0; i < 100; ++i) poll();
      MPI_Send(&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    }
  };
  for (int round = 0; round < 3; ++round) {
    send = {100 * round + 10 * me, 100 * round + 10 * me + 1};
    std::fill(recv.begin(), recv.end(), -1);
    bool done = false;
    start_in_turn([&] { persistent.start(); }, [&] { done = done || persistent.test(); });
    if (!done) persistent.wait();
    ASSERT_EQ(recv, ring_expected(comm, 100 * round)) << "persistent, round " << round;
  }
  for (const char* how : {"MPI_Waitall", "NonblockingRequest::wait"}) {
    send = {10 * me, 10 * me + 1};
    std::fill(recv.begin(), recv.end(), -1);
    MPI_Request request = MPI_REQUEST_NULL;
    int done = 0;
    start_in_turn([&] { request = distopo::ineighbor_alltoall(comm, send, recv); },
                  [&] {
                    if (!done) PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
                  });
    if (std::string(how) == "MPI_Waitall") {
      PMPI_Waitall(1, &request, MPI_STATUSES_IGNORE);
    } else if (!done) {
      distopo::NonblockingRequest::find(request)->wait(&request);
    }
    EXPECT_EQ(request, MPI_REQUEST_NULL) << how;
    EXPECT_EQ(recv, ring_expected(comm, 0)) << how;
  }
}

TEST(NeighborPersistent, StartManyTimesInterleavedWithOtherCollectives) {
  distopo::Comm comm = ring();
  const int me = comm.rank();
  std::vector<int> send(2), recv(2, -1), other_recv(2, -1);
  distopo::PersistentRequest request = distopo::neighbor_alltoall_init(comm, send, recv);
  EXPECT_FALSE(request.active());
  for (int round = 0; round < 20; ++round) {
    send = {100 * round + 10 * me, 100 * round + 10 * me + 1};
    request.start();
    // A blocking collective on the same communicator while it is active.
    std::vector<int> other_send = {-1, -2};
    distopo::neighbor_alltoall(comm, other_send, other_recv);
    if (round % 2) {
      request.wait();
    } else {
      while (!request.test()) {
      }
    }
    ASSERT_EQ(recv, ring_expected(comm, 100 * round));
    EXPECT_EQ(other_recv, (std::vector<int>{-2, -1}));
  }
}

// Two persistent collectives in flight on two communicators, waited for in
// opposite orders on neighboring ranks: a rank waiting for one must still
// relay the other (with the aggregated algorithm, a pre-posted run waits for
// the receives of every run in progress, its relaying included).
TEST(NeighborPersistent, TwoInFlightWaitedInOppositeOrders) {
  distopo::Comm first = ring();
  distopo::Comm second = ring();
  const int me = first.rank();
  std::vector<int> send_a(2), recv_a(2, -1), send_b(2), recv_b(2, -1);
  distopo::PersistentRequest a = distopo::neighbor_alltoall_init(first, send_a, recv_a);
  distopo::PersistentRequest b = distopo::neighbor_alltoall_init(second, send_b, recv_b);
  for (int round = 0; round < 6; ++round) {
    send_a = {100 * round + 10 * me, 100 * round + 10 * me + 1};
    send_b = {100 * round + 50 + 10 * me, 100 * round + 50 + 10 * me + 1};
    std::fill(recv_a.begin(), recv_a.end(), -1);
    std::fill(recv_b.begin(), recv_b.end(), -1);
    a.start();
    b.start();
    if ((me + round) % 2 == 0) {
      a.wait();
      b.wait();
    } else {
      b.wait();
      a.wait();
    }
    ASSERT_EQ(recv_a, ring_expected(first, 100 * round)) << "round " << round;
    ASSERT_EQ(recv_b, ring_expected(second, 100 * round + 50)) << "round " << round;
  }
}

TEST(NeighborErrors, AllRanksBadInput) {
  distopo::Comm comm = ring();
  std::vector<int> buffer(8);
  const int counts[2] = {1, -1};
  const int displs[2] = {0, 1};
  EXPECT_EQ(error_class_of(
                [&] { distopo::raw::neighbor_alltoall(buffer.data(), -1, MPI_INT, buffer.data(), 1, MPI_INT, comm); }),
            MPI_ERR_COUNT);
  EXPECT_EQ(error_class_of([&] {
              distopo::raw::neighbor_alltoallv(buffer.data(), counts, displs, MPI_INT, buffer.data(), displs, displs,
                                               MPI_INT, comm);
            }),
            MPI_ERR_COUNT);
  EXPECT_EQ(error_class_of([&] {
              distopo::raw::neighbor_allgatherv(buffer.data(), 1, MPI_INT, buffer.data(), displs, nullptr, MPI_INT,
                                                comm);
            }),
            MPI_ERR_ARG);
  EXPECT_EQ(error_class_of([&] {
              distopo::raw::neighbor_allgather(buffer.data(), 1, MPI_DATATYPE_NULL, buffer.data(), 1, MPI_INT, comm);
            }),
            MPI_ERR_TYPE);
  EXPECT_EQ(error_class_of(
                [&] { distopo::raw::neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, buffer.data(), 1, MPI_INT, comm); }),
            MPI_ERR_BUFFER);
  std::vector<int> small(1);
  EXPECT_EQ(error_class_of([&] {
              distopo::neighbor_allgather(comm, std::span<const int>(buffer.data(), 2), std::span<int>(small));
            }),
            MPI_ERR_BUFFER);
  EXPECT_EQ(error_class_of([&] {
              MPI_Request request;
              distopo::raw::ineighbor_alltoall(buffer.data(), -2, MPI_INT, buffer.data(), 1, MPI_INT, comm, &request);
            }),
            MPI_ERR_COUNT);
  EXPECT_EQ(error_class_of([&] {
              (void)distopo::raw::neighbor_alltoall_init(buffer.data(), -2, MPI_INT, buffer.data(), 1, MPI_INT, comm);
            }),
            MPI_ERR_COUNT);
  EXPECT_EQ(error_class_of([&] {
              distopo::raw::neighbor_alltoall(buffer.data(), 1, MPI_INT, buffer.data(), 1, MPI_INT, MPI_COMM_WORLD);
            }),
            MPI_ERR_TOPOLOGY);
  EXPECT_EQ(error_class_of([&] {
              distopo::raw::neighbor_alltoall(buffer.data(), 1, MPI_INT, buffer.data(), 1, MPI_INT, MPI_COMM_NULL);
            }),
            MPI_ERR_COMM);
  // The communicator still works afterwards.
  const int me = comm.rank();
  std::vector<int> send = {10 * me, 10 * me + 1}, recv(2, -1);
  distopo::neighbor_alltoall(comm, send, recv);
  EXPECT_EQ(recv, ring_expected(comm, 0));
}

// Bad input on rank 0 only: rank 0 throws, its neighbors complete (nothing
// hangs), and the next collective is not disturbed by leftovers.
TEST(NeighborErrors, OneRankBadInputDoesNotHang) {
  distopo::Comm comm = ring();
  const int me = comm.rank();
  std::vector<int> send = {10 * me, 10 * me + 1}, recv(2, -1);
  const int count = me == 0 ? -1 : 1;
  const int error = error_class_of(
      [&] { distopo::raw::neighbor_alltoall(send.data(), count, MPI_INT, recv.data(), 1, MPI_INT, comm); });
  EXPECT_EQ(error, me == 0 ? MPI_ERR_COUNT : MPI_SUCCESS);
  std::fill(recv.begin(), recv.end(), -1);
  distopo::neighbor_alltoall(comm, send, recv);
  EXPECT_EQ(recv, ring_expected(comm, 0));
}

// The same for a persistent init: rank 0's init throws, the others' inits
// return (with the aggregated algorithm, rank 0 still takes part in the
// round where the relays learn their sizes), and the communicator works on.
TEST(NeighborErrors, OneRankBadPersistentInitDoesNotHang) {
  distopo::Comm comm = ring();
  const int me = comm.rank();
  std::vector<int> send = {10 * me, 10 * me + 1}, recv(2, -1);
  const int count = me == 0 ? -1 : 1;
  const int error = error_class_of(
      [&] { (void)distopo::raw::neighbor_alltoall_init(send.data(), count, MPI_INT, recv.data(), 1, MPI_INT, comm); });
  EXPECT_EQ(error, me == 0 ? MPI_ERR_COUNT : MPI_SUCCESS);
  distopo::neighbor_alltoall(comm, send, recv);
  EXPECT_EQ(recv, ring_expected(comm, 0));
}

// The same on a dense multigraph where every pair has 16 to 24 edges, which
// travel in one message per pair (kCoalesceSlots, plan.hpp): rank 0's drain must
// send and receive exactly the messages its neighbors post, or it would hang.
TEST(NeighborErrors, OneRankBadInputOnDenseMultigraphDoesNotHang) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks (alone, a rank drains its own messages)";
  const distopo::testing::Case c = distopo::testing::dense_multigraph_case(16, /*min_edges=*/16);
  const int me = c.comm.rank();
  const auto block = [](int sender, int slot) { return 1000 * sender + slot; };
  // One element more than the blocks: never empty, raw calls want a buffer.
  std::vector<int> send(c.out_ranks.size() + 1), recv(c.in_ranks.size() + 1, -1);
  for (std::size_t j = 0; j < c.out_ranks.size(); ++j) send[j] = block(me, static_cast<int>(j));
  const int count = me == 0 ? -1 : 1;
  const int error = error_class_of(
      [&] { distopo::raw::neighbor_alltoall(send.data(), count, MPI_INT, recv.data(), 1, MPI_INT, c.comm); });
  EXPECT_EQ(error, me == 0 ? MPI_ERR_COUNT : MPI_SUCCESS);
  std::vector<int> expected(c.in_ranks.size());
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = block(c.in_ranks[i], c.in_from[i]);
  recv.assign(c.in_ranks.size(), -1);
  distopo::neighbor_alltoall(c.comm, std::span<const int>(send.data(), c.out_ranks.size()), recv);
  EXPECT_EQ(recv, expected);
}

// A truncated receive on rank 0 (its slots hold 1 int, its neighbors send
// 2), seen while the collective is polled. Through MPICH's own completion
// calls (PMPI_: no C API library in between) the failure reaches
// MPI_COMM_WORLD's handler once, with its class, when the request completes
// (not while it is polled); through distopo's request classes it is thrown,
// and MPI_COMM_WORLD's handler never sees it. The program's handler is in
// place again after every call.
int world_handler_calls = 0;
int world_handler_class = MPI_SUCCESS;
void record_world_error(MPI_Comm*, int* code, ...) {
  ++world_handler_calls;
  MPI_Error_class(*code, &world_handler_class);
}

TEST(NeighborErrors, TruncationWhilePollingReachesTheRightHandler) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks (alone, a rank's messages are its own)";
  distopo::Comm comm = ring();
  const int me = comm.rank();
  const int recvcount = me == 0 ? 1 : 2;
  MPI_Errhandler recording = MPI_ERRHANDLER_NULL;
  MPI_Comm_create_errhandler(record_world_error, &recording);
  MPI_Errhandler program = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &program);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, recording);
  const auto handler_is_recording = [&] {
    MPI_Errhandler now = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &now);
    const bool same = now == recording;
    MPI_Errhandler_free(&now);
    return same;
  };
  std::vector<int> send = {10 * me, 10 * me + 1, 10 * me + 2, 10 * me + 3}, recv(4, -1);
  // Slot 0 holds the -1 neighbor's second block, slot 1 the +1 neighbor's first.
  const int below = (me + comm.size() - 1) % comm.size(), above = (me + 1) % comm.size();
  const std::vector<int> expected = {10 * below + 2, 10 * below + 3, 10 * above, 10 * above + 1};
  const auto start = [&] {
    std::fill(recv.begin(), recv.end(), -1);
    MPI_Request request = MPI_REQUEST_NULL;
    distopo::raw::ineighbor_alltoall(send.data(), 2, MPI_INT, recv.data(), recvcount, MPI_INT, comm, &request);
    return request;
  };
  for (const char* how : {"MPI_Wait", "MPI_Test"}) {
    world_handler_calls = 0;
    world_handler_class = MPI_SUCCESS;
    MPI_Request request = start();
    int rc = MPI_SUCCESS;
    if (std::string(how) == "MPI_Wait") {
      rc = PMPI_Wait(&request, MPI_STATUS_IGNORE);
    } else {
      int done = 0;
      while (!done && rc == MPI_SUCCESS) rc = PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
    }
    int rc_class = MPI_SUCCESS;
    MPI_Error_class(rc, &rc_class);
    EXPECT_EQ(rc_class, me == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS) << how;
    EXPECT_EQ(world_handler_calls, me == 0 ? 1 : 0) << how;
    EXPECT_EQ(world_handler_class, me == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS) << how;
    EXPECT_EQ(request, MPI_REQUEST_NULL) << how;
    EXPECT_TRUE(handler_is_recording()) << how;
    if (me != 0) {
      EXPECT_EQ(recv, expected) << how;
    }
  }
  // distopo's own completion: the collective's class, thrown.
  world_handler_calls = 0;
  MPI_Request request = start();
  const int thrown = error_class_of([&] {
    distopo::NonblockingRequest* collective = distopo::NonblockingRequest::find(request);
    ASSERT_NE(collective, nullptr);
    while (!collective->test(&request)) {
    }
  });
  EXPECT_EQ(thrown, me == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
  EXPECT_EQ(request, MPI_REQUEST_NULL);
  distopo::PersistentRequest persistent =
      distopo::raw::neighbor_alltoall_init(send.data(), 2, MPI_INT, recv.data(), recvcount, MPI_INT, comm);
  for (int round = 0; round < 2; ++round) {
    const int persistent_thrown = error_class_of([&] {
      persistent.start();
      while (!persistent.test()) {
      }
    });
    EXPECT_EQ(persistent_thrown, me == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS) << "round " << round;
  }
  EXPECT_EQ(world_handler_calls, 0);
  EXPECT_TRUE(handler_is_recording());
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, program);
  MPI_Errhandler_free(&program);
  MPI_Errhandler_free(&recording);
}

}  // namespace
