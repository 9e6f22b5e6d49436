#pragma once
// The posting driver every operation and form shares: all receives in the
// sequence's receive order, then all sends in its send order, on the private
// channel with the collective's tag. That order is what pairs each block with
// its slot (see neighbor_sequence.hpp); a peer with many slots gets one
// message carrying them all in that order (message_plan.hpp). Immediate
// requests (blocking and non-blocking forms) and persistent ones (*_init)
// are posted the same way, with the large-count calls (MPI_Isend_c, ...): a
// block's count is an MPI_Count whichever form of the collective was called.
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "completion.hpp"
#include "message_type.hpp"
#include "neighbor_sequence.hpp"
#include "slot_blocks.hpp"

namespace distopo::detail {

// Posts message `m` of `plan` with `call` (MPI_Irecv_c-like), the block of a
// slot given by `block_of`. A message of several blocks is one struct at
// MPI_BOTTOM. An immediate request's type is freed at once (communication in
// progress completes normally, says MPI_Type_free); a persistent request's is
// kept in `into` for its starts and freed with it.
template <class Call, class BlockOf>
bool post_message(const MessagePlan& plan, std::size_t m, Call call, BlockOf block_of, MPI_Comm channel, int tag,
                  PostedRequests& into) {
  const int peer = plan.peer(m);
  const auto slots = plan.slots(m);
  return into.add(peer, [&](MPI_Request* r) {
    if (slots.size() == 1) {
      const Block b = block_of(slots[0]);
      return call(b.buffer, b.count, b.type, peer, tag, channel, r);
    }
    std::vector<Block> blocks;
    blocks.reserve(slots.size());
    for (int slot : slots) blocks.push_back(block_of(slot));
    MPI_Datatype type = MPI_DATATYPE_NULL;
    if (const int rc = message_type(blocks, &type); rc != MPI_SUCCESS) return rc;
    const int rc = call(MPI_BOTTOM, 1, type, peer, tag, channel, r);
    if (into.persistent())
      into.keep(type);
    else
      PMPI_Type_free(&type);
    return rc;
  });
}

// Posts `into` afresh. False if a post failed: the failure is kept in `into`,
// and the messages from the failed one on were not posted (drain_rest
// completes them for an immediate posting).
template <class Blocks>
bool post(const NeighborSequence& s, MPI_Comm channel, int tag, const Blocks& blocks, Posting how, const Origin& origin,
          PostedRequests& into) {
  into.prepare(s.receives.size(), s.sends.size(), how, origin);
  // MPI_Irecv_c and MPI_Recv_init_c (MPI_Isend_c and MPI_Send_init_c) take the same arguments.
  const auto receive = into.persistent() ? PMPI_Recv_init_c : PMPI_Irecv_c;
  const auto send = into.persistent() ? PMPI_Send_init_c : PMPI_Isend_c;
  const auto recv_block = [&](int slot) { return blocks.recv(slot); };
  const auto send_block = [&](int slot) { return blocks.send(slot); };
  const bool all = [&] {
    for (std::size_t m = 0; m < s.receives.size(); ++m) {
      if (!post_message(s.receives, m, receive, recv_block, channel, tag, into)) return false;
    }
    for (std::size_t m = 0; m < s.sends.size(); ++m) {
      if (!post_message(s.sends, m, send, send_block, channel, tag, into)) return false;
    }
    return true;
  }();
  into.posted();
  return all;
}

}  // namespace distopo::detail
