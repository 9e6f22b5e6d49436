#pragma once
// The communication plan of a topology communicator: computed once (at its
// first neighborhood collective or *_init), cached with the communicator's
// state, and never holding anything of size P. It says which rank each slot
// of the buffers belongs to and in which order blocks are posted
// (NeighborSequence), which point-to-point messages carry them
// (MessagePlan), and, for the node-aware algorithm, which peers share this
// machine node and how the blocks for other nodes travel together (Routes).
//
// Pairing rule. All messages of one collective carry the same tag on a
// private channel, so MPI's non-overtaking rule matches the k-th message a
// sends to b with the k-th receive b posts from a. The posting orders make
// that the pairing the standard asks for:
//   - Cartesian: slots are, per dimension d, the -1 neighbor (slot 2d) then the
//     +1 neighbor (slot 2d+1), for sources and destinations alike. The block a
//     sends to its +1 neighbor b arrives at b from b's -1 neighbor a, so it
//     belongs in b's slot 2d. Receives are posted per dimension as (2d, 2d+1),
//     sends as (2d+1, 2d): when -1 and +1 are the same rank (periodic
//     dimension of size 1 or 2), the first message a sends to b in dimension d
//     is its +1 block and lands in b's first receive from a, the -1 slot.
//     MPI_PROC_NULL slots are not posted.
//   - Graph: sources = destinations = the rank's neighbor list, posted in list
//     order, so the k-th occurrence of b in a's list pairs with the k-th
//     occurrence of a in b's list (self-loops included).
//   - Distributed graph: sources and destinations as stored, posted in order:
//     the k-th edge a->b at a pairs with the k-th edge a->b at b.
// Every algorithm keeps this pairing: a "group" below is the blocks from one
// rank a to one rank b, the k-th of a's send order pairing with the k-th of
// b's receive order, whichever way the group travels.
#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "distopo/core/topology.hpp"
#include "distopo/neighbor/algorithm.hpp"

namespace distopo::detail {

// Which point-to-point messages carry the blocks of one direction.
//
// Why coalescing: MPICH 4.0.2's ch4:ucx never gives UCX a full tag mask, so
// every receive lands in UCX's wildcard expected queue and each arriving
// message is matched by a linear scan of all posted receives; with thousands
// of multi-edges per peer a message per block made each collective quadratic
// in the degree (docs/design/neighbor-collectives.md). A peer with many slots
// gets one message holding all of them in posting order (a derived datatype
// over the blocks): the same pairing. Both ends decide alike, since a valid
// topology lists as many edges a->b at a as at b.
// From 16 slots on: below, a 26-neighbor 3-D stencil (8 to 12 slots per
// peer at 4 and 8 ranks) was as fast or faster with a message per block at
// 8 B and 1 KiB and 1.12-1.19x slower coalesced at 64 KiB, where MPICH packs
// the scattered blocks; at 33 slots per peer coalescing halved the 8-byte
// time (docs/design/neighbor-collectives.md).
inline constexpr std::size_t kCoalesceSlots = 16;

class MessagePlan {
 public:
  // Messages for the slots of `order` (posting order), where slot i belongs
  // to rank `ranks[i]`: each peer with kCoalesceSlots or more slots gets one
  // message at the place of its first slot; every other slot a message of
  // its own, in place.
  MessagePlan(std::span<const int> order, std::span<const int> ranks);
  MessagePlan() = default;

  [[nodiscard]] std::size_t size() const noexcept { return peers_.size(); }
  [[nodiscard]] int peer(std::size_t message) const { return peers_[message]; }
  // The slots of `message`, in the order their blocks follow each other.
  [[nodiscard]] std::span<const int> slots(std::size_t message) const {
    return std::span<const int>(slots_).subspan(first_[message], first_[message + 1] - first_[message]);
  }

 private:
  std::vector<int> peers_;
  std::vector<std::size_t> first_ = {0};  // message m holds slots_[first_[m], first_[m + 1])
  std::vector<int> slots_;
};

// Both directions' messages between this rank and its peers.
struct MessageLayout {
  MessagePlan receives;
  MessagePlan sends;
};

struct NeighborSequence {
  std::vector<int> sources;       // in-slot -> rank (MPI_PROC_NULL possible for Cartesian)
  std::vector<int> destinations;  // out-slot -> rank
  std::vector<int> recv_order;    // in-slots to post, in posting order (no MPI_PROC_NULL)
  std::vector<int> send_order;    // out-slots to post, in posting order (no MPI_PROC_NULL)

  [[nodiscard]] int indegree() const { return static_cast<int>(sources.size()); }
  [[nodiscard]] int outdegree() const { return static_cast<int>(destinations.size()); }
};

// The sequence of the calling rank (`rank` in the communicator carrying
// `record`). Local; O(degree) work, plus O(ndims) for Cartesian records.
NeighborSequence neighbor_sequence(const TopologyRecord& record, int rank);

// --- Node-aware aggregation ------------------------------------------------
//
// Blocks between ranks on the same machine node go direct. The blocks a node
// A sends to another node B travel in three steps: each rank of A sends its
// blocks for B to one rank of A, the send relay x(A,B), in one message (with
// its blocks for every other node x relays); x sends them to B in one message;
// the receive relay y(A,B) on B hands each rank of B its blocks, in one
// message per receive relay. So a node pair exchanges one message per
// collective instead of one per edge between them, and a rank sends and
// receives one message per relay instead of one per remote peer.
//
// Relays are chosen at plan time by each node's leader (local rank 0), which
// gathers its ranks' remote peers: x(A,B) among A's ranks with blocks for B,
// balancing the relays' work over A's ranks; y(A,B) among B's ranks that get
// blocks from A, the middle one of them, which both leaders compute from the
// same edges (A's out-edges to B are B's in-edges from A), so no round
// between nodes is needed.
//
// A receive relay's message to a rank of its node also carries the relay's
// own blocks for that rank (joined groups): one message per (relay,
// destination) pair instead of two, which on a stencil is most of a rank's
// messages within its node (docs/design/neighbor-collectives.md, "Joined
// messages").

// The blocks of one remote peer in one direction, and the relay they go
// through.
struct RemoteGroup {
  int peer = 0;            // b (this rank sends to it) or a (this rank receives from it)
  int peer_node = 0;       // its node
  int relay = 0;           // x on this node (sending) or y on this node (receiving)
  std::vector<int> slots;  // the group's slots in posting order (send order or receive order)
};

// A node pair this rank relays: the groups (a, b) it carries, sorted by
// (a, b), which is the order both relays lay them out in.
struct RelayedPair {
  int node = 0;           // the other node: B for a send relay, A for a receive relay
  int lane = 0;           // a pair with many sending ranks is cut into lanes (routes.cpp)
  int partner = 0;        // a send relay's receive relay y (a receive relay does not need x)
  std::vector<int> from;  // a of each group
  std::vector<int> to;    // b of each group
};

struct Routes {
  int node = 0;                                         // this rank's node
  MessageLayout local;                                  // the direct messages to and from this node's ranks
  std::vector<int> local_recv_order, local_send_order;  // the slots they carry
  // This rank's remote groups, sorted by (peer node, peer); receives then
  // holds the joined groups from this rank's receive relays (peer = relay).
  std::vector<RemoteGroup> sends;
  std::vector<RemoteGroup> receives;
  // As receive relay: this rank's own blocks for its destinations (peer =
  // destination), which travel in its message to them.
  std::vector<RemoteGroup> joined_sends;
  // The pairs this rank relays, sorted by (the other node, lane).
  std::vector<RelayedPair> send_pairs;
  std::vector<RelayedPair> receive_pairs;

  // Derived from the above at plan time, for posting and relaying.
  struct RelayMessage {
    int relay = 0;
    std::vector<int> groups;  // indices into sends (receives), in the message's order
  };
  std::vector<RelayMessage> to_send_relays;       // one message to each distinct x
  std::vector<RelayMessage> from_receive_relays;  // one message from each distinct y
  // As send relay: each participant's message holds these (pair, group)s.
  struct Member {
    int rank = 0;
    std::vector<std::pair<int, int>> groups;
    int joined = -1;  // a destination's joined group (index into joined_sends), after its relayed ones
  };
  std::vector<Member> participants;  // sorted by rank
  // As receive relay: each destination's message holds these (pair, group)s.
  std::vector<Member> destinations;              // sorted by rank
  std::vector<std::vector<int>> destination_of;  // [receive pair][group] -> index into destinations
};

// What a communicator's collectives use, agreed by every rank at plan time.
struct Selection {
  NeighborAlgorithm setting = NeighborAlgorithm::automatic;  // asked for
  NeighborAlgorithm algorithm = NeighborAlgorithm::direct;   // used: direct or aggregated
  // Aggregated: a remote block of at most this many bytes travels through the
  // relays, a larger one goes direct (decided per block: sender and receiver
  // see the same size, which the standard's type matching guarantees).
  std::uint64_t aggregate_max_bytes = 0;
  int node_count = 1;
  bool emulated_nodes = false;
  int senders_per_lane = 1;  // aggregated: routes.cpp, choose_lanes
};

inline NeighborAlgorithmChoice choice_of(const Selection& s) {
  return {s.setting, s.algorithm, s.aggregate_max_bytes, s.node_count, s.emulated_nodes, s.senders_per_lane};
}

struct Plan {
  NeighborSequence sequence;
  MessageLayout direct;
  Selection selection;
  std::unique_ptr<const Routes> routes;  // with the aggregated algorithm

  [[nodiscard]] bool aggregated() const { return routes != nullptr; }
};

}  // namespace distopo::detail

namespace distopo::detail {

// The settings a plan reads: set_neighbor_info's keys on the communicator,
// then the environment (algorithm.hpp). Local.
struct PlanSettings {
  NeighborAlgorithm algorithm = NeighborAlgorithm::automatic;
  long long aggregate_max_bytes = -1;  // -1: the algorithm's default
  int ranks_per_node = 0;              // 0: MPI_Comm_split_type's nodes
  // Not a setting: the machine nodes of the communicator's channel family as
  // a member found them (family_node_count; 0: not yet). Agreed with the
  // settings, but ranks that differ only make it unknown, not an error; ranks
  // that all run on one host (host_fingerprint) agree on 1.
  int known_node_count = 0;
};

// The settings as values reduced with MPI_MAX (each with its negation), so
// that their agreement can ride on a collective made anyway (the channel's
// lease on a communicator's first collective).
struct SettingsAgreement {
  explicit SettingsAgreement(const PlanSettings& settings);
  // In an allreduce of its own.
  void reduce(MPI_Comm comm);
  // After the reduction: a setting that differs between ranks is MPI_ERR_ARG
  // on every rank, naming `caller`.
  void check(const char* caller) const;
  // After the reduction: the known node count if every rank knew the same,
  // else 1 if every rank runs on the same host, else 0 (node_layout.hpp).
  [[nodiscard]] int agreed_node_count() const;

  std::array<long long, 8> values;
};

// `settings` agreed by every rank of `comm` (`rank` in it). Local for the
// direct algorithm and for auto; for aggregation, collective over `comm`:
// finds the machine nodes and the routes, with point-to-point traffic on
// `channel` with tags `tag` and `tag + 1`.
std::shared_ptr<const Plan> make_plan(MPI_Comm comm, const TopologyRecord& record, int rank,
                                      const PlanSettings& settings, MPI_Comm channel, int tag);

// Auto's choice for the persistent form, where block sizes are known at init
// and the plan's cost is paid once: the node-aware algorithm when the ranks
// span several machine nodes (found by MPI_Comm_split_type; nodes declared
// by distopo_ranks_per_node are one machine, where it stays direct) and
// the pattern gives relays blocks to merge (routes.cpp, choose_lanes); the
// direct plan otherwise. Its blocks of more than kAutoAggregateMaxBytes (or
// the setting) go direct, and an init whose remote blocks are mostly larger
// runs the direct plan (auto_aggregates). Collective over `comm`, like
// make_plan for aggregation, unless the settings know that the family's
// group is on one node (then local); it tells the family what it found.
// Why these bars: docs/design/neighbor-collectives.md, "When auto takes it".
inline constexpr long long kLaneBlocks = 2;
inline constexpr long long kGatherPairsPerRank = 4;
inline constexpr std::uint64_t kAutoAggregateMaxBytes = 256;
std::shared_ptr<const Plan> make_persistent_auto_plan(MPI_Comm comm, const TopologyRecord& record, int rank,
                                                      const PlanSettings& settings, MPI_Comm channel, int tag);

// For one persistent init under auto's node-aware plan: whether the
// aggregated algorithm runs it, agreed over `comm` (one allreduce, on the
// communicator like the plan's other collectives): when at least half of
// all ranks' remote blocks are small enough to be relayed. `small` and
// `remote` are this rank's counts (0 and 0 for a rank whose arguments are
// bad: it takes part all the same).
bool auto_aggregates(MPI_Comm comm, long long small, long long remote);

}  // namespace distopo::detail
