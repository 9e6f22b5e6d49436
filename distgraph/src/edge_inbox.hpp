#pragma once
// dist_graph_create's receiving side: the ends this rank stores, as they
// arrive (its own, then each message), and the room their lists need.
//
// Runs (ends of one direction and neighbor rank, end_messages.hpp) stay
// where they were received; each becomes a Piece: where its weights lie,
// whether they are in order, which bits they use (read once, on arrival,
// while in cache). A rank that sorted its own edges (own_edges.hpp) hands its
// list over whole. Single ends (keys messages) are kept as keys.
//
// Every message is counted into the degrees and the room of the lists before
// the next one arrives, so a rank without memory (or with a degree above
// INT_MAX) rejects the message that needs it; its sender reports the error in
// the exchange's agreement step, which every rank sees. Writing the lists
// afterwards (lists()) allocates nothing that can fail.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "distopo/core/native_reservation.hpp"
#include "distopo/core/topology.hpp"
#include "distopo/distgraph/edge_key.hpp"
#include "distopo/distgraph/key_sort.hpp"
#include "edge_keys.hpp"
#include "edge_lists.hpp"
#include "end_messages.hpp"
#include "own_edges.hpp"

namespace distopo::detail {

// Why a rank rejects ends it received (or its own): the verdict an exchange
// sends back to their sender.
enum class Rejection : int { none = 0, degree_overflow = 1, no_memory = 2, malformed = 3 };

class EdgeInbox {
 public:
  // `size`: of the communicator (ranks received are checked against it);
  // `mirror_weights`: MPICH's copy of the lists will hold weights too.
  EdgeInbox(int size, bool weighted, bool mirror_weights)
      : size_(size), weighted_(weighted), mirror_weights_(mirror_weights) {}

  // The communicator's size.
  [[nodiscard]] int size() const { return size_; }

  // What the record will share, taken before any end arrives; throws
  // std::bad_alloc.
  void prepare() { record_.prepare(); }

  // Where a message of `count` ints of `kind` from `source` goes (this
  // rank's own ends may come the same way); throws std::bad_alloc.
  int* place(int source, MessageKind kind, int count);
  // Takes the message placed last: counts it into the degrees and the room,
  // or rejects it (then it is dropped).
  Rejection accept();

  // Where this rank's own single ends go (then accept_own_keys()).
  KeyBuffer& own_keys() { return keys_; }
  Rejection accept_own_keys();
  // This rank's own list of one direction, sorted (own_edges.hpp), with
  // `neighbors` distinct neighbors; its `self_count` ends from `self_first`
  // on (neighbor `self`) are also this rank's ends of the other direction
  // (self-loops).
  Rejection adopt_own_list(OwnList list, std::size_t neighbors, int self, std::size_t self_first,
                           std::size_t self_count);

  // Out-ends whose source is this rank, held for the second round of a
  // create that goes by source (out_keys_by_source messages; this rank's own
  // go to by_source_keys()): not counted into the lists until they come back
  // as this rank's own input.
  KeyBuffer& by_source_keys() { return by_source_; }
  [[nodiscard]] std::span<const EdgeKey> by_source() const { return by_source_.items(); }
  // Those out-ends as this rank's own out-list, sorted in the memory they
  // arrived in (the second round's input, where no own list is held yet).
  // Throws std::bad_alloc (the weights' scratch).
  OwnList by_source_as_own_list();
  void release_by_source() { by_source_.release(); }
  [[nodiscard]] bool has_own_list() const { return own_.has_value(); }

  // Drops everything (a rank whose own input failed keeps nothing).
  void discard();

  // The memory held for MPICH's copy of the lists (before lists()).
  NativeReservation take_mirror() { return std::move(mirror_); }

  // The record: each list sorted by (rank, weight). Allocates nothing that
  // it cannot do without. `self`: this rank, whose ends are all here
  // (kNoSelf: write_pieces, edge_lists.hpp); `spare_core`: another core
  // idles meanwhile (sort_groups).
  DistGraphTopology lists(int self = kNoSelf, bool spare_core = false) &&;

 private:
  struct Placed {
    MessageKind kind;
    int source;
    std::size_t offset;  // in received_
    std::size_t count;
  };

  Rejection accept_keys();
  Rejection accept_runs(const Placed& message);
  Rejection accept_by_source(const Placed& message);
  // The own list's ends [first, first + count), all of one neighbor.
  [[nodiscard]] Piece own_piece(std::uint32_t direction_rank, std::size_t first, std::size_t count) const;
  Rejection add_piece(const Piece& piece);
  Rejection count_ends(bool out, std::uint64_t ends);
  // Takes the room the lists need for what arrived so far.
  Rejection reserve_room();
  void reserve_exact_room(std::size_t ends);  // throws std::bad_alloc
  // Mixed ends (single and in runs): all as single ends, in their room.
  void expand_into_keys();
  DistGraphTopology lists_of_keys(int self, bool spare_core) &&;

  [[nodiscard]] bool pieces_in(bool out) const { return pieces_per_direction_[out ? 1 : 0] > 0; }
  // Ends whose lists are assembled from pieces (all of a direction that has any).
  [[nodiscard]] std::uint64_t assembled_ends() const {
    return (pieces_in(false) ? in_ : 0) + (pieces_in(true) ? out_ : 0);
  }
  [[nodiscard]] bool mixed() const { return !keys_.items().empty() && (pieces_.size() > 0 || own_.has_value()); }

  int size_;
  bool weighted_;
  bool mirror_weights_;
  std::uint64_t in_ = 0;         // in-degree so far
  std::uint64_t out_ = 0;        // out-degree so far
  GrowingBuffer<int> received_;  // runs messages, one after another
  std::optional<Placed> placed_;
  KeyBuffer keys_;  // single ends
  std::size_t keys_accepted_ = 0;
  KeyBits keys_bits_;  // of every key
  KeyBuffer by_source_;
  GrowingBuffer<Piece> pieces_;
  std::size_t pieces_per_direction_[2] = {0, 0};
  std::optional<OwnList> own_;
  std::size_t own_groups_ = 0;         // distinct ranks in the own list
  GrowingBuffer<int> room_;            // the lists' room (lists())
  std::size_t room_reservations_ = 0;  // times the room grew (reserve_exact_room)
  DistGraphBuffer record_;             // the record's shared storage
  NativeReservation mirror_;           // MPICH's copy of the lists, held from the exchange on
};

}  // namespace distopo::detail
