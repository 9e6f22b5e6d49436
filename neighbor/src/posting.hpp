#pragma once
// The posting driver every operation and form shares: all receives in the
// sequence's receive order, then all sends in its send order, on the private
// channel with the collective's tag. That order is what pairs each block with
// its slot (see neighbor_sequence.hpp). Immediate requests (blocking and
// non-blocking forms) and persistent ones (*_init) are posted the same way.
#include <mpi.h>

#include <cstddef>

#include "completion.hpp"
#include "distopo/core/error.hpp"
#include "neighbor_sequence.hpp"
#include "slot_blocks.hpp"

namespace distopo::detail {

template <class Blocks>
void post(const NeighborSequence& s, MPI_Comm channel, int tag, const Blocks& blocks, Posting how,
          PostedRequests& into) {
  // MPI_Irecv and MPI_Recv_init (MPI_Isend and MPI_Send_init) take the same arguments.
  const bool persistent = how == Posting::persistent;
  const auto receive = persistent ? PMPI_Recv_init : PMPI_Irecv;
  const auto send = persistent ? PMPI_Send_init : PMPI_Isend;
  MPI_Request* request = into.prepare(s.recv_order.size() + s.send_order.size(), how).data();
  for (int slot : s.recv_order) {
    const Block b = blocks.recv(slot);
    check_mpi(receive(b.buffer, b.count, b.type, s.sources[static_cast<std::size_t>(slot)], tag, channel, request++),
              persistent ? "MPI_Recv_init" : "MPI_Irecv");
  }
  for (int slot : s.send_order) {
    const Block b = blocks.send(slot);
    check_mpi(send(b.buffer, b.count, b.type, s.destinations[static_cast<std::size_t>(slot)], tag, channel, request++),
              persistent ? "MPI_Send_init" : "MPI_Isend");
  }
  into.posted();
}

}  // namespace distopo::detail
