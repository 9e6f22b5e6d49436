#pragma once
// The posting driver every operation and form shares: all receives in the
// sequence's receive order, then all sends in its send order, on the private
// channel with the collective's tag. That order is what pairs each block with
// its slot (see neighbor_sequence.hpp). Immediate requests (blocking and
// non-blocking forms) and persistent ones (*_init) are posted the same way,
// with the large-count calls (MPI_Isend_c, ...): a block's count is an
// MPI_Count whichever form of the collective was called.
#include <mpi.h>

#include <cstddef>

#include "completion.hpp"
#include "neighbor_sequence.hpp"
#include "slot_blocks.hpp"

namespace distopo::detail {

// Posts `into` afresh. False if a post failed: the failure is kept in `into`,
// and the slots from the failed one on were not posted (drain_rest completes
// them for an immediate posting).
template <class Blocks>
bool post(const NeighborSequence& s, MPI_Comm channel, int tag, const Blocks& blocks, Posting how, const Origin& origin,
          PostedRequests& into) {
  into.prepare(s.recv_order.size(), s.send_order.size(), how, origin);
  // MPI_Irecv_c and MPI_Recv_init_c (MPI_Isend_c and MPI_Send_init_c) take the same arguments.
  const auto receive = into.persistent() ? PMPI_Recv_init_c : PMPI_Irecv_c;
  const auto send = into.persistent() ? PMPI_Send_init_c : PMPI_Isend_c;
  const bool all = [&] {
    for (int slot : s.recv_order) {
      const Block b = blocks.recv(slot);
      const int peer = s.sources[static_cast<std::size_t>(slot)];
      if (!into.add(peer, [&](MPI_Request* r) { return receive(b.buffer, b.count, b.type, peer, tag, channel, r); })) {
        return false;
      }
    }
    for (int slot : s.send_order) {
      const Block b = blocks.send(slot);
      const int peer = s.destinations[static_cast<std::size_t>(slot)];
      if (!into.add(peer, [&](MPI_Request* r) { return send(b.buffer, b.count, b.type, peer, tag, channel, r); })) {
        return false;
      }
    }
    return true;
  }();
  into.posted();
  return all;
}

}  // namespace distopo::detail
