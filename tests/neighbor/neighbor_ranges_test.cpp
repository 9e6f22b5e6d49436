// The typed API takes contiguous ranges: std::vector, std::array, std::span
// and C arrays, in every form. Element types must match, receive buffers must
// be writable, and the forms that return before the transfer is done refuse
// temporaries that own their elements.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <list>
#include <span>
#include <utility>
#include <vector>

#include "distopo/cart.hpp"
#include "distopo/neighbor.hpp"
#include "mpi_testing.hpp"

namespace {

template <class S, class R>
concept BlockingAlltoall = requires(MPI_Comm comm, S&& send, R&& recv) {
  distopo::neighbor_alltoall(comm, std::forward<S>(send), std::forward<R>(recv));
};
template <class S, class R>
concept NonblockingAlltoall = requires(MPI_Comm comm, S&& send, R&& recv) {
  distopo::ineighbor_alltoall(comm, std::forward<S>(send), std::forward<R>(recv));
};
template <class S, class R>
concept PersistentAlltoall = requires(MPI_Comm comm, S&& send, R&& recv) {
  distopo::neighbor_alltoall_init(comm, std::forward<S>(send), std::forward<R>(recv));
};

using Ints = std::vector<int>;
static_assert(BlockingAlltoall<Ints&, Ints&>);
static_assert(BlockingAlltoall<const Ints&, Ints&>);
static_assert(BlockingAlltoall<std::array<int, 2>&, std::array<int, 2>&>);
static_assert(BlockingAlltoall<std::span<const int>, std::span<int>>);
static_assert(BlockingAlltoall<int (&)[2], int (&)[2]>);
static_assert(BlockingAlltoall<Ints, Ints&>);                   // a temporary to send from is fine while blocking
static_assert(!BlockingAlltoall<Ints&, const Ints&>);           // the receive buffer must be writable
static_assert(!BlockingAlltoall<Ints&, std::span<const int>>);  // likewise
static_assert(!BlockingAlltoall<Ints&, std::vector<long>&>);    // element types must match
static_assert(!BlockingAlltoall<std::list<int>&, Ints&>);       // not contiguous
static_assert(NonblockingAlltoall<Ints&, Ints&>);
static_assert(NonblockingAlltoall<std::span<const int>, std::span<int>>);
static_assert(!NonblockingAlltoall<Ints, Ints&>);  // the vector would die before the transfer
static_assert(PersistentAlltoall<std::array<int, 2>&, Ints&>);
static_assert(!PersistentAlltoall<Ints&, Ints>);

using distopo::testing::world_size;

distopo::Comm ring() {
  return distopo::cart_create(MPI_COMM_WORLD, std::vector<int>{world_size()}, {distopo::periodic});
}

// Slot 0 holds the -1 neighbor's +1 block, slot 1 the +1 neighbor's -1 block.
std::vector<int> ring_expected(const distopo::Comm& comm) {
  const int p = comm.size();
  const int me = comm.rank();
  return {10 * ((me + p - 1) % p) + 1, 10 * ((me + 1) % p)};
}

TEST(NeighborRanges, BlockingWithEveryContainer) {
  distopo::Comm comm = ring();
  const int me = comm.rank();
  const std::vector<int> expected = ring_expected(comm);

  const std::vector<int> send_vector = {10 * me, 10 * me + 1};
  std::vector<int> recv_vector(2, -1);
  distopo::neighbor_alltoall(comm, send_vector, recv_vector);
  EXPECT_EQ(recv_vector, expected);

  const std::array<int, 2> send_array = {10 * me, 10 * me + 1};
  std::array<int, 2> recv_array = {-1, -1};
  distopo::neighbor_alltoall(comm, send_array, recv_array);
  EXPECT_EQ(std::vector<int>(recv_array.begin(), recv_array.end()), expected);

  const int send_c[2] = {10 * me, 10 * me + 1};
  int recv_c[2] = {-1, -1};
  distopo::neighbor_alltoall(comm, send_c, recv_c);
  EXPECT_EQ(std::vector<int>(recv_c, recv_c + 2), expected);

  std::vector<int> recv_span(2, -1);
  distopo::neighbor_alltoall(comm, std::span(send_vector), std::span(recv_span));
  EXPECT_EQ(recv_span, expected);
}

TEST(NeighborRanges, NonblockingAndPersistentWithContainers) {
  distopo::Comm comm = ring();
  const int me = comm.rank();
  std::vector<int> send = {10 * me, 10 * me + 1};
  std::vector<int> recv(2, -1);
  MPI_Request request = distopo::ineighbor_alltoall(comm, send, recv);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  EXPECT_EQ(recv, ring_expected(comm));

  std::array<int, 2> recv_array = {-1, -1};
  distopo::PersistentRequest persistent = distopo::neighbor_alltoall_init(comm, send, recv_array);
  for (int round = 0; round < 3; ++round) {
    recv_array = {-1, -1};
    persistent.start();
    persistent.wait();
    EXPECT_EQ(std::vector<int>(recv_array.begin(), recv_array.end()), ring_expected(comm));
  }
}

TEST(NeighborRanges, CountsAndDatatypesFromVectors) {
  distopo::Comm comm = ring();
  const int me = comm.rank();
  // allgather of doubles, alltoallv with vector counts, alltoallw on int vectors.
  const std::vector<double> mine = {static_cast<double>(me)};
  std::vector<double> gathered(2, -1.0);
  distopo::neighbor_allgather(comm, mine, gathered);
  const int p = comm.size();
  EXPECT_EQ(gathered, (std::vector<double>{static_cast<double>((me + p - 1) % p), static_cast<double>((me + 1) % p)}));

  const std::vector<int> send = {10 * me, 10 * me + 1};
  const std::vector<int> counts = {1, 1};
  const std::vector<int> displs = {0, 1};
  std::vector<int> recv(2, -1);
  distopo::neighbor_alltoallv(comm, send, counts, displs, recv, counts, displs);
  EXPECT_EQ(recv, ring_expected(comm));

  const std::vector<MPI_Aint> byte_displs = {0, sizeof(int)};
  const std::vector<MPI_Datatype> types = {MPI_INT, MPI_INT};
  std::fill(recv.begin(), recv.end(), -1);
  distopo::neighbor_alltoallw(comm, send, counts, byte_displs, types, recv, counts, byte_displs, types);
  EXPECT_EQ(recv, ring_expected(comm));
}

}  // namespace
