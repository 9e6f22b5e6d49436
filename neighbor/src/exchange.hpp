#pragma once
// Posting and completion: the point-to-point messages of one neighborhood
// collective in any form, and the one place that starts, tests and waits
// them. A blocking call waits at once; a non-blocking call's request is
// completed through it (by MPICH's generalized-request callbacks, or by the
// C API); a persistent request starts it again and again.
//
// Posting order. All receives in the plan's receive order, then all sends in
// its send order, on the private channel with the collective's tag: that
// order pairs each block with its slot (plan.hpp). With the aggregated
// algorithm, the direct messages (peers on this node, and remote blocks
// above the aggregation limit) are posted the same way, and the relayed
// blocks take the RelayExchange (relay_exchange.cpp).
//
// Errors. Each request's failure is read on its own (MPI_Wait, or
// MPI_Request_get_status while polling), never from MPI_Testall /
// MPI_Waitall, whose MPICH version stops at the first failed request and
// leaves the rest unprocessed; so every request is completed and the first
// failure is kept, to be reported on the user's communicator.
// MPICH raises a completion's failure on MPI_COMM_WORLD's handler, which
// returns errors meanwhile (world_errors_returned.hpp). Results are codes,
// not exceptions, because MPICH's callbacks must not throw; error() turns a
// failure into a distopo::Error.
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "arguments.hpp"
#include "distopo/core/error.hpp"
#include "mpi_calls.hpp"
#include "plan.hpp"

namespace distopo::detail {

enum class Posting { immediate, persistent };  // MPI_Isend/Irecv or MPI_Send_init/Recv_init

// Who posted: the user's communicator (where errors are reported), the
// operation and the calling rank (for messages).
struct Origin {
  MPI_Comm comm = MPI_COMM_NULL;
  const char* caller = "";
  int rank = 0;
};

// The tags of one collective: each step of the aggregated algorithm has its
// own, so that a relay can take "the next message of this step" from any
// source without meeting another step's.
struct Tags {
  int direct = 0;
  int gather = 0;   // to the send relays
  int relay = 0;    // between nodes
  int scatter = 0;  // from the receive relays
};

class PostedRequests {
 public:
  PostedRequests() = default;
  PostedRequests(const PostedRequests&) = delete;
  PostedRequests& operator=(const PostedRequests&) = delete;
  // Persistent requests are freed here, after waiting for them if they are in
  // flight (nothing once MPI is finalized).
  ~PostedRequests();

  // A new posting: `receives` receive requests, then `sends` send requests.
  void prepare(std::size_t receives, std::size_t sends, Posting how, const Origin& origin);
  // Posts the next request towards or from `peer` with `post(MPI_Request*)`,
  // an MPI_Irecv-like call returning its code. False if it failed: the
  // failure is kept and nothing more may be posted.
  template <class Post>
  bool add(int peer, Post&& post) {
    peers_[posted_] = peer;
    const int rc = post(&requests_[posted_]);
    if (rc != MPI_SUCCESS) {
      fail(rc, posted_);
      return false;
    }
    ++posted_;
    return true;
  }
  // A datatype the persistent requests use, freed with them.
  void keep(MPI_Datatype type) { types_.push_back(type); }
  // The posting is over: immediate requests are in flight now, persistent
  // ones wait for start().
  void posted() noexcept;

  [[nodiscard]] bool persistent() const noexcept { return how_ == Posting::persistent; }
  [[nodiscard]] const Origin& origin() const noexcept { return origin_; }
  [[nodiscard]] std::size_t count_posted() const noexcept { return posted_; }
  [[nodiscard]] std::size_t receive_count() const noexcept { return receives_; }
  [[nodiscard]] bool active() const noexcept { return state_ != State::inactive; }

  // MPI_Startall of the persistent requests (its failure is MPICH's to raise).
  int start() noexcept;
  // The same in two parts: the receives, then the sends.
  int start_receives() noexcept;
  int start_sends() noexcept;
  // Tests the requests still in flight, in order: true once none is.
  bool poll() noexcept;
  // Waits until none is in flight.
  void finish() noexcept;
  // Inactive again; MPI_SUCCESS or the code of the first failure.
  int take() noexcept;
  [[nodiscard]] int result() const noexcept { return error_; }
  // The first failure as "<caller>: rank <r>: the receive from rank <s>
  // failed: <MPI's message>", with the failure's error class.
  [[nodiscard]] Error error() const;

 private:
  enum class State { inactive, in_flight, complete };
  // MPI_Startall of requests [first, first + count).
  int start_all(std::size_t first, std::size_t count) noexcept;
  // After the start of a run's receives (`rc`): the run is under way, unless it failed.
  int begin_run(int rc) noexcept;
  void fail(int code, std::size_t index) noexcept;
  void release_complete() noexcept;  // after poll found every request complete

  std::vector<MPI_Request> requests_;
  std::vector<int> peers_;           // the rank each request receives from or sends to
  std::vector<MPI_Datatype> types_;  // kept for persistent messages of several blocks
  std::size_t receives_ = 0;         // requests [0, receives_) are receives
  std::size_t posted_ = 0;           // requests posted (all of them, unless posting failed)
  std::size_t next_ = 0;             // requests before next_ are complete (not all freed)
  int error_ = MPI_SUCCESS;          // the first failure since the posting or start
  std::size_t failed_ = 0;           // its request
  Posting how_ = Posting::immediate;
  State state_ = State::inactive;
  Origin origin_;
};

// An MPI error described like PostedRequests::error describes its own.
Error transfer_error(int code, const Origin& origin, bool receive, int peer);

// The blocks of this rank's remote groups in one direction, group after
// group, with their sizes in bytes and whether each takes the relays; per
// group, how many blocks and bytes take them (what the relays' messages
// tell or, in a pre-posted run, what each end knows).
struct GroupBlocks {
  std::vector<Block> blocks;
  std::vector<MPI_Count> bytes;
  std::vector<char> relayed;
  std::vector<std::size_t> first;  // group g holds [first[g], first[g + 1])
  std::vector<std::uint32_t> relayed_blocks;
  std::vector<std::uint32_t> relayed_bytes;
};

// The relayed part of one aggregated collective (relay_exchange.cpp): this
// rank's messages to its send relays and from its receive relays, and the
// relaying it does for others. Each run packs the blocks of at most
// `max_bytes` into one message per send relay, relays what others send it,
// and unpacks what its receive relays bring. A dropping run (a rank whose
// arguments were bad) sends every group empty, marked dropped, and empty
// direct messages in place of its remote blocks, and discards what it gets.
class RelayExchange {
 public:
  RelayExchange(std::shared_ptr<const Plan> plan, MPI_Comm channel, Origin origin, bool drop);
  RelayExchange(const RelayExchange&) = delete;
  RelayExchange& operator=(const RelayExchange&) = delete;
  ~RelayExchange();

  GroupBlocks sends, receives;  // set before begin() (not for a dropping run)
  GroupBlocks joined;           // of the plan's joined_sends, likewise
  // The derived datatypes of `receives` were duplicated for this exchange
  // (non-blocking and persistent forms): freed with it.
  std::vector<MPI_Datatype> owned_types;

  // A persistent collective's init: learns the size of every message this
  // rank will receive as a relay, from the relay partners' own sizes (one
  // round with `init` tags, which no run uses), so that each run posts its
  // receives up front (otherwise a relay probes for what comes). Collective
  // over the relay partners: a rank whose arguments were bad takes part as a
  // dropping exchange.
  void learn_sizes(Tags init) noexcept;
  // Starts a run with the collective's tags.
  void begin(Tags tags) noexcept;
  // Progresses every relaying exchange of the process (a relay's work for
  // one collective may be what another rank waits for while it progresses
  // another); true once this one is complete.
  bool poll() noexcept;
  void finish() noexcept;
  [[nodiscard]] bool complete() const noexcept;
  [[nodiscard]] int result() const noexcept { return error_; }
  [[nodiscard]] Error error() const;

  struct Run;  // one run's buffers and counters

 private:
  friend struct Run;
  bool step() noexcept;  // progresses this exchange alone
  void step_send_relay() noexcept;
  void step_receive_relay() noexcept;
  void step_destination() noexcept;
  // Unpacks the message of receive relay j, which has arrived.
  void take_from_receive_relay(std::size_t j) noexcept;
  // As a send relay: participant `who`'s message has arrived (in the run's
  // participant_data), or failed with `rc`.
  void take_participant(std::size_t who, int rc) noexcept;
  // As a receive relay: the receive pair `message` belongs to (its header),
  // or none (the failure is kept); and the pair's message taken.
  std::size_t pair_of(const std::vector<unsigned char>& message, int from) noexcept;
  void take_pair(std::size_t p, std::vector<unsigned char>& message, int from) noexcept;
  // As a receive relay that is also the destination: its message to itself.
  void hand_over(std::vector<unsigned char>& message) noexcept;
  // Pre-posted runs: posted receive `i` completed with `code`.
  void take_posted(std::size_t i, int code, const MPI_Status& status) noexcept;
  void step_preposted() noexcept;
  // One blocking turn of finish() for a pre-posted run: waits for a receive
  // of any exchange in progress (MPI_Waitany), false if one of them polls.
  bool wait_turn(bool* done) noexcept;
  void unregister() noexcept;
  // Steps every exchange in progress but `except`.
  static void step_running(RelayExchange* except) noexcept;
  // Tests the sends still in flight (once nothing is left to receive).
  void test_sends() noexcept;
  void fail(int code, bool receive, int peer) noexcept;

  std::shared_ptr<const Plan> plan_;
  MPI_Comm channel_;
  Origin origin_;
  bool drop_;
  int process_;  // the process (the simulated rank, under SMPI) it belongs to
  std::unique_ptr<Run> run_;
  int error_ = MPI_SUCCESS;
  bool error_receive_ = false;
  int error_peer_ = 0;
};

// One collective's messages in any form: the direct requests, and with the
// aggregated algorithm the relayed part.
class Exchange {
 public:
  Exchange() = default;
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  PostedRequests direct;
  std::unique_ptr<RelayExchange> relayed;
  Tags tags;  // of a persistent collective (fixed at init)

  [[nodiscard]] const Origin& origin() const noexcept { return direct.origin(); }
  [[nodiscard]] bool active() const noexcept { return direct.active(); }
  [[nodiscard]] std::size_t count_posted() const noexcept { return direct.count_posted(); }
  // A persistent collective's next run.
  int start() noexcept;
  bool poll() noexcept;
  void finish() noexcept;
  int take() noexcept;
  [[nodiscard]] int result() const noexcept;
  [[nodiscard]] Error error() const;
};

// The struct datatype of a message carrying several blocks: their absolute
// addresses, in order, to be sent or received at MPI_BOTTOM with count 1.
// Its signature is the blocks' one after the other, so it matches the peer's
// message exactly when each block matches its slot. Returns MPI's code.
int message_type(const std::vector<Block>& blocks, MPI_Datatype* type);

// Posts message `m` of `plan` with `call` (MPI_Irecv_c-like), the block of a
// slot given by `block_of`. An immediate request's type is freed at once
// (communication in progress completes normally, says MPI_Type_free); a
// persistent request's is kept in `into` for its starts.
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

// A relayed group's bytes are told in a 32-bit word (relay_run.hpp): a group
// whose blocks of at most the limit would add up to more goes direct whole.
inline constexpr std::uint64_t kMaxRelayedGroupBytes = UINT32_MAX - 1;

// The remote groups' blocks and sizes; a block of at most `limit` bytes is
// relayed, a larger one goes direct (and every block of a group whose
// relayed bytes would exceed kMaxRelayedGroupBytes). Sender and receiver
// decide alike: the k-th block of a group has the same size at both ends
// (the standard's type matching).
template <class BlockOf>
void collect_groups(const std::vector<RemoteGroup>& groups, BlockOf block_of, std::uint64_t limit, GroupBlocks& into) {
  into.blocks.clear();
  into.bytes.clear();
  into.relayed.clear();
  into.first.assign(1, 0);
  into.relayed_blocks.clear();
  into.relayed_bytes.clear();
  for (const RemoteGroup& g : groups) {
    std::uint64_t relayed_bytes = 0;
    std::uint32_t relayed_blocks = 0;
    for (int slot : g.slots) {
      const Block b = block_of(slot);
      MPI_Count size = 0;
      mpi::type_size(b.type, &size);
      const auto bytes = static_cast<std::uint64_t>(size * b.count);
      into.blocks.push_back(b);
      into.bytes.push_back(size * b.count);
      into.relayed.push_back(bytes <= limit ? 1 : 0);
      if (bytes <= limit) {
        relayed_bytes += bytes;
        ++relayed_blocks;
      }
    }
    if (relayed_bytes > kMaxRelayedGroupBytes) {
      std::fill(into.relayed.begin() + static_cast<std::ptrdiff_t>(into.first.back()), into.relayed.end(), 0);
      relayed_bytes = relayed_blocks = 0;
    }
    into.first.push_back(into.blocks.size());
    into.relayed_blocks.push_back(relayed_blocks);
    into.relayed_bytes.push_back(static_cast<std::uint32_t>(relayed_bytes));
  }
}

// Posts `into` afresh for `plan` with the collective's tags. False if a post
// failed: the failure is kept in `into.direct`, the messages from the failed
// one on were not posted (drain_rest completes them for an immediate
// posting). With the aggregated algorithm the relayed part is prepared, not
// begun (Exchange::start or begin_relayed does that).
template <class Blocks>
bool post(const std::shared_ptr<const Plan>& plan, MPI_Comm channel, const Tags& tags, const Blocks& blocks,
          Posting how, const Origin& origin, Exchange& into) {
  const bool persistent = how == Posting::persistent;
  // MPI_Irecv_c and MPI_Recv_init_c (MPI_Isend_c and MPI_Send_init_c) take the same arguments.
  const auto receive = persistent ? mpi::recv_init : mpi::irecv;
  const auto send = persistent ? mpi::send_init : mpi::isend;
  const auto recv_block = [&](int slot) { return blocks.recv(slot); };
  const auto send_block = [&](int slot) { return blocks.send(slot); };
  into.tags = tags;
  if (!plan->aggregated()) {
    into.relayed.reset();
    const MessageLayout& layout = plan->direct;
    into.direct.prepare(layout.receives.size(), layout.sends.size(), how, origin);
    const bool all = [&] {
      for (std::size_t m = 0; m < layout.receives.size(); ++m) {
        if (!post_message(layout.receives, m, receive, recv_block, channel, tags.direct, into.direct)) return false;
      }
      for (std::size_t m = 0; m < layout.sends.size(); ++m) {
        if (!post_message(layout.sends, m, send, send_block, channel, tags.direct, into.direct)) return false;
      }
      return true;
    }();
    into.direct.posted();
    return all;
  }
  const Routes& routes = *plan->routes;
  const std::uint64_t limit = plan->selection.aggregate_max_bytes;
  if (!into.relayed) into.relayed = std::make_unique<RelayExchange>(plan, channel, origin, false);
  RelayExchange& relayed = *into.relayed;
  collect_groups(routes.sends, send_block, limit, relayed.sends);
  collect_groups(routes.receives, recv_block, limit, relayed.receives);
  collect_groups(routes.joined_sends, send_block, limit, relayed.joined);
  const auto direct_count = [](const GroupBlocks& g) {
    return static_cast<std::size_t>(std::count(g.relayed.begin(), g.relayed.end(), 0));
  };
  into.direct.prepare(routes.local.receives.size() + direct_count(relayed.receives),
                      routes.local.sends.size() + direct_count(relayed.sends) + direct_count(relayed.joined), how,
                      origin);
  const auto post_large = [&](const std::vector<RemoteGroup>& groups, const GroupBlocks& g, auto call) {
    for (std::size_t i = 0; i < groups.size(); ++i) {
      for (std::size_t k = g.first[i]; k < g.first[i + 1]; ++k) {
        if (g.relayed[k]) continue;
        const Block b = g.blocks[k];
        const int peer = groups[i].peer;
        if (!into.direct.add(
                peer, [&](MPI_Request* r) { return call(b.buffer, b.count, b.type, peer, tags.direct, channel, r); })) {
          return false;
        }
      }
    }
    return true;
  };
  const bool all = [&] {
    for (std::size_t m = 0; m < routes.local.receives.size(); ++m) {
      if (!post_message(routes.local.receives, m, receive, recv_block, channel, tags.direct, into.direct)) return false;
    }
    if (!post_large(routes.receives, relayed.receives, receive)) return false;
    for (std::size_t m = 0; m < routes.local.sends.size(); ++m) {
      if (!post_message(routes.local.sends, m, send, send_block, channel, tags.direct, into.direct)) return false;
    }
    return post_large(routes.sends, relayed.sends, send) && post_large(routes.joined_sends, relayed.joined, send);
  }();
  into.direct.posted();
  return all;
}

// After an immediate posting: the relayed part's run begins.
void begin_relayed(Exchange& exchange);

// A rank whose arguments are bad, or whose posting failed midway, still
// completes its part of the exchange, so its neighbors never hang: an empty
// message in place of every direct message not yet sent, and every direct
// message not yet posted received (whatever its size) and dropped. With the
// aggregated algorithm, a rank with bad arguments (`partial` null: nothing
// posted) also runs a dropping relayed run to its end, which still relays
// the other ranks' blocks; after a posting failure (`partial`: the exchange
// whose first `partial->count_posted()` direct requests were posted, which
// the caller completes) its relayed run begins as usual.
void drain_rest(const std::shared_ptr<const Plan>& plan, MPI_Comm channel, const Tags& tags, const Origin& origin,
                Exchange* partial);

}  // namespace distopo::detail
