#pragma once
// The in/out neighbor sequence of a topology record: which rank each slot of a
// neighborhood collective's receive and send buffers belongs to, and the order
// in which distopo posts the receives and sends so that every message lands in
// the right slot even when one rank fills several slots.
//
// Pairing rule. All messages of one collective carry the same tag on a private
// communicator, so MPI's non-overtaking rule matches the k-th message a sends
// to b with the k-th receive b posts from a. The posting orders below make that
// the pairing the standard asks for:
//   - Cartesian: slots are, per dimension d, the -1 neighbor (slot 2d) then the
//     +1 neighbor (slot 2d+1), for sources and destinations alike. The block a
//     sends to its +1 neighbor b arrives at b from b's -1 neighbor a, so it
//     belongs in b's slot 2d. Receives are posted per dimension as (2d, 2d+1),
//     sends as (2d+1, 2d): when -1 and +1 are the same rank (periodic
//     dimension of size 1 or 2), the first message a sends to b in dimension d
//     is its +1 block and lands in b's first receive from a, the -1 slot.
//     Neighbors from different dimensions are different ranks unless they are
//     the calling rank itself (size-1 dimensions), where the per-dimension
//     order keeps the dimensions apart. MPI_PROC_NULL slots are not posted.
//   - Graph: sources = destinations = the rank's neighbor list, posted in list
//     order, so the k-th occurrence of b in a's list pairs with the k-th
//     occurrence of a in b's list (self-loops included).
//   - Distributed graph: sources and destinations as stored, posted in order:
//     the k-th edge a->b at a pairs with the k-th edge a->b at b.
// A peer with many slots gets one message holding its blocks in this order
// instead of a message per block (message_plan.hpp): the same pairing.
#include <mpi.h>

#include <vector>

#include "distopo/core/topology.hpp"
#include "message_plan.hpp"

namespace distopo::detail {

struct NeighborSequence {
  std::vector<int> sources;       // in-slot -> rank (MPI_PROC_NULL possible for Cartesian)
  std::vector<int> destinations;  // out-slot -> rank
  std::vector<int> recv_order;    // in-slots to post, in posting order (no MPI_PROC_NULL)
  std::vector<int> send_order;    // out-slots to post, in posting order (no MPI_PROC_NULL)
  MessagePlan receives;           // the messages recv_order's blocks travel in
  MessagePlan sends;              // the messages send_order's blocks travel in

  [[nodiscard]] int indegree() const { return static_cast<int>(sources.size()); }
  [[nodiscard]] int outdegree() const { return static_cast<int>(destinations.size()); }
};

// The sequence of the calling rank (`rank` in the communicator carrying
// `record`). Local; O(degree) work, plus O(ndims) for Cartesian records.
NeighborSequence neighbor_sequence(const TopologyRecord& record, int rank);

}  // namespace distopo::detail
