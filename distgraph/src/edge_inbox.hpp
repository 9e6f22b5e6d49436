#pragma once
// dist_graph_create's receiving side: the ends this rank stores (its own,
// then each message as it arrives) and the room of the lists they become.
// Single ends stay where they were received; a message of tallied ends moves
// to a list of its own. Every batch is counted into the lists' room before
// the next arrives, so a rank without room rejects the message that needs it
// (ListRoom). The lists are then written where the single ends lie.
#include <cstddef>
#include <new>
#include <span>

#include "distopo/core/topology.hpp"
#include "distopo/distgraph/edge_key.hpp"
#include "edge_keys.hpp"
#include "edge_lists.hpp"
#include "end_tally.hpp"

namespace distopo::detail {

class EdgeInbox {
 public:
  // `mirror_weights`: MPICH's copy of the lists will hold weights too.
  EdgeInbox(bool weighted, bool mirror_weights) : room_(weighted, mirror_weights) {}

  // What the lists will need besides their memory, taken before any end
  // arrives; throws std::bad_alloc.
  void prepare() { room_.prepare(); }

  // Where the outbox puts this rank's own ends (then accept() takes them).
  KeyBuffer& own() { return keys_; }

  // Room for a message of `count` words; throws std::bad_alloc.
  EdgeKey* place(int count) { return keys_.append(static_cast<std::size_t>(count)); }

  // Takes the words that arrived since the last call: counts them into the
  // lists' room, or rejects them.
  Rejection accept() {
    const std::span<const EdgeKey> batch = keys_.items().subspan(received_until_);
    if (!is_tally_message(batch)) {
      received_until_ = keys_.size();
      return room_.add(batch);
    }
    const std::size_t first = tallied_.size();
    try {
      TalliedEnd* end = tallied_.append(tallied_end_count(batch));
      for (std::size_t i = 0; i < tallied_end_count(batch); ++i) *end++ = tallied_end(batch, i);
    } catch (const std::bad_alloc&) {
      keys_.truncate(received_until_);
      return Rejection::no_memory;
    }
    keys_.truncate(received_until_);
    return room_.add(std::span<const TalliedEnd>(tallied_.items().subspan(first)));
  }

  // Drops everything (a rank whose own input failed keeps nothing).
  void discard() {
    keys_.release();
    tallied_.release();
    received_until_ = 0;
    room_ = ListRoom(room_.weighted());
  }

  // The memory held for MPICH's copy of the lists (before lists()).
  NativeReservation take_mirror() { return room_.take_mirror(); }

  // The sorted lists, in the memory of the ends received and the room taken
  // for them; allocates nothing that it cannot do without.
  DistGraphTopology lists() && { return write_lists(std::move(keys_), tallied_.items(), std::move(room_)); }

 private:
  KeyBuffer keys_;                     // single ends: this rank's own, then each message
  GrowingBuffer<TalliedEnd> tallied_;  // ends that came with a count
  ListRoom room_;
  std::size_t received_until_ = 0;  // keys_ before this were accepted
};

}  // namespace distopo::detail
