#pragma once
// The relayed part's internals, shared by relay_exchange.cpp (this rank's
// own blocks: packing, unpacking, the run's life) and relays.cpp (the
// relaying it does for the other ranks of its node).
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <vector>

#include "exchange.hpp"

namespace distopo::detail::relay {

// Counts and lengths in the messages' headers. 32 bits: at 8-byte blocks the
// headers were most of the bytes a host's adapter sent (a group of one 8-byte
// block carried 16 bytes of header), and the simulated stencil at 1024 ranks
// took 11 % less with them halved (docs/design/neighbor-collectives.md,
// "Headers"). A group's relayed bytes fit (kMaxRelayedGroupBytes).
using Word = std::uint32_t;
constexpr Word kDropped = ~Word{0};
constexpr std::size_t kWord = sizeof(Word);
// learn_sizes' message to a receive relay: node, lane, the 64-bit size of
// the pair's message, then each group's (blocks, bytes).
constexpr std::size_t kPairSizeBytes = 2 * kWord + sizeof(std::uint64_t);

inline void put(std::vector<unsigned char>& buffer, std::size_t word, Word value) {
  std::memcpy(buffer.data() + word * kWord, &value, kWord);
}
inline Word get(const unsigned char* data, std::size_t word) {
  Word value = 0;
  std::memcpy(&value, data + word * kWord, kWord);
  return value;
}

// Contiguous datatypes are copied, others packed.
bool contiguous(MPI_Datatype type);

// Group g's relayed blocks (GroupBlocks::relayed) packed at `*position` of
// `buffer` (sized for them; a pack failure is kept in `rc`), and unpacked
// from `data` at `*position` into their buffers (false on a failure, kept
// in `rc`).
void pack_relayed(const GroupBlocks& from, std::size_t g, std::vector<unsigned char>& buffer, MPI_Count* position,
                  int* rc);
bool unpack_relayed(const GroupBlocks& into, std::size_t g, const std::vector<unsigned char>& data, MPI_Count* position,
                    int* rc);

// Tests every request still in flight; a failure is kept by `fail`.
template <class Fail>
void test_all(std::vector<MPI_Request>& requests, Fail&& fail) {
  for (MPI_Request& q : requests) {
    if (q == MPI_REQUEST_NULL) continue;
    int flag = 0;
    const int rc = PMPI_Test(&q, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      fail(rc);
      q = MPI_REQUEST_NULL;
    }
  }
}

// The next message of `tag` from `source` (MPI_ANY_SOURCE: any), received
// whole into `buffer`; false if none has arrived.
bool receive_next(MPI_Comm channel, int source, int tag, std::vector<unsigned char>& buffer, int* from, int* rc);
// The message `status` describes (MPI_Iprobe found it), received whole into
// `buffer`: the next one of `tag` from its source.
void receive_probed(MPI_Comm channel, MPI_Status status, int tag, std::vector<unsigned char>& buffer, int* rc);

}  // namespace distopo::detail::relay

namespace distopo::detail {

// One run's buffers and counters; kept from run to run (a persistent
// collective's, the blocking form's), so that buffers are reused.
struct RelayExchange::Run {
  using Word = relay::Word;
  struct Piece {
    const unsigned char* data = nullptr;
    Word blocks = 0;
    Word bytes = 0;
  };
  std::mutex mutex;
  Tags tags;
  bool registered = false;
  // As a source: one message to each send relay.
  std::vector<std::vector<unsigned char>> to_relays;
  std::vector<MPI_Request> to_relay_requests;
  // As a destination: one message from each receive relay.
  std::vector<std::vector<unsigned char>> from_relays;
  std::vector<MPI_Request> from_relay_requests;
  std::vector<char> from_relay_done;
  std::size_t from_relays_left = 0;
  std::vector<int> completed_indices;  // MPI_Testsome's, one per receive relay
  std::vector<MPI_Status> completed_statuses;
  std::vector<MPI_Request> empty_receives;  // direct blocks announced by the relays
  // As a send relay.
  std::vector<std::vector<unsigned char>> participant_data;
  std::vector<char> participant_done;
  std::size_t participants_left = 0;
  std::vector<std::vector<Piece>> out_pieces;  // [send pair][group]
  std::vector<std::size_t> out_pair_left;
  std::vector<std::vector<unsigned char>> out_pairs;
  std::vector<MPI_Request> out_pair_requests;
  // As a receive relay.
  std::vector<std::vector<unsigned char>> in_pairs;
  std::vector<char> in_pair_done;
  std::size_t in_pairs_left = 0;
  // A persistent collective reuses its tags: a pair's message of a later run
  // may come before another pair's of this run. It waits here for its run.
  std::vector<std::deque<std::vector<unsigned char>>> early;
  std::vector<std::vector<std::size_t>> position;       // [receive pair][group] -> place in its destination's message
  std::vector<std::vector<Piece>> pair_sizes;           // [receive pair][group]: learned at init (no data)
  std::vector<std::vector<Piece>> dest_pieces;          // [destination][place], then its joined piece
  std::vector<std::vector<unsigned char>> joined_data;  // [joined group]: this rank's blocks packed
  std::vector<std::size_t> dest_left;
  std::vector<std::vector<unsigned char>> to_destinations;
  std::vector<MPI_Request> to_destination_requests;
  // Pre-posted receives (a persistent collective, after learn_sizes): every
  // run posts all its receives at begin, of the sizes learned at init, and
  // completes them by MPI_Testsome or MPI_Waitany instead of probing.
  bool preposted = false;
  std::vector<std::size_t> participant_bytes;  // [participant]: its message's size
  struct Slot {
    int source = 0;         // a send relay
    std::size_t bytes = 0;  // the largest message it sends this rank
  };
  std::vector<Slot> slots;  // one receive per receive pair, grouped by send relay
  std::vector<std::vector<unsigned char>> slot_data;
  // [participants | slots | receive relays], in the order posted.
  std::vector<MPI_Request> posted;
  std::vector<int> posted_indices;
  std::vector<MPI_Status> posted_statuses;

  // Messages this run still waits for, in its three roles.
  [[nodiscard]] std::size_t receives_left() const noexcept {
    return participants_left + in_pairs_left + from_relays_left;
  }
};

}  // namespace distopo::detail
