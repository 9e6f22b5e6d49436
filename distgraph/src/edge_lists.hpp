#pragma once
// From the edge ends a rank stores to its neighbor lists: in-ends become
// sources, out-ends destinations, each sorted by (rank, weight). ListRoom
// counts the ends as they arrive and takes the room the lists need during
// the exchange; write_lists fills it afterwards without allocating, so it
// cannot fail where a failure on one rank would leave the others waiting.
#include <bit>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <vector>

#include "distopo/core/native_reservation.hpp"
#include "distopo/core/topology.hpp"
#include "distopo/distgraph/edge_key.hpp"
#include "distopo/distgraph/key_sort.hpp"
#include "edge_keys.hpp"
#include "end_tally.hpp"
#include "radix_parts.hpp"

namespace distopo::detail {

// Why a rank rejects ends it received (or its own): the verdict an exchange
// sends back to their sender.
enum class Rejection : int { none = 0, degree_overflow = 1, no_memory = 2 };

// Whether `n` weighted single ends with the bits `bits` are grouped by
// neighbor in place (write_lists): more than std::sort's share, and few
// enough (direction, rank) values to count.
inline bool grouped_in_place(std::uint64_t n, const KeyBits& bits) {
  constexpr EdgeKey kNeighborBits = ~EdgeKey{0x7fffffffU};
  const auto width = static_cast<unsigned>(std::popcount((bits.any() ^ bits.all()) & kNeighborBits));
  return n > kComparisonSortLimit && countable(static_cast<std::size_t>(n), width);
}

// In- and out-degree of this rank as edge ends arrive, and the room their
// lists need beyond the memory the single ends were received in: both
// degrees must fit in an int, and the room is taken while the exchange runs,
// so a rank without memory for its lists rejects the message that needs it
// and its sender reports the error in the exchange's agreement step, which
// every rank sees. The lists of single ends are written where those ends
// were received (a weighted end is 8 bytes as a key and as a rank and a
// weight). Grouped in place, they need only each group's start (one word per
// (direction, rank) value); otherwise one int per end when weighted (the
// weights' place while the ranks are packed) and nothing unweighted.
// Tallied ends can stand for far more ends than were received: with any of
// them the room is the whole lists.
class ListRoom {
 public:
  // `mirror_weights`: MPICH's copy of the lists will hold weights too.
  explicit ListRoom(bool weighted, bool mirror_weights = false)
      : weighted_(weighted), mirror_weights_(mirror_weights) {}

  // What the record will share, allocated before any end arrives, so that
  // writing the lists allocates nothing; throws std::bad_alloc.
  void prepare() { buffer_.prepare(); }

  // Counts `keys` (and notes their bits for the sort, in the same pass: the
  // keys were just received and are still in cache) and makes room for them.
  Rejection add(std::span<const EdgeKey> keys) {
    std::size_t out = 0;
    std::uint64_t any = bits_.any();
    std::uint64_t all = bits_.all();
    for (const EdgeKey key : keys) {
      out += static_cast<std::size_t>(edge_direction(key));
      any |= key;
      all &= key;
    }
    if (!keys.empty()) {
      bits_.add(any);
      bits_.add(all);
    }
    single_ += keys.size();
    return grow(keys.size() - out, out);
  }

  // The same for tallied ends (no bits: they are merged, not sorted by bits).
  Rejection add(std::span<const TalliedEnd> tallied) {
    std::uint64_t in = 0;
    std::uint64_t out = 0;
    for (const TalliedEnd& end : tallied) (edge_direction(end.key) == EdgeDirection::in ? in : out) += end.count;
    any_tallied_ = any_tallied_ || !tallied.empty();
    return grow(in, out);
  }

  NativeReservation take_mirror() { return std::move(mirror_); }
  [[nodiscard]] const KeyBits& bits() const { return bits_; }
  [[nodiscard]] std::size_t indegree() const { return static_cast<std::size_t>(in_); }
  [[nodiscard]] std::size_t outdegree() const { return static_cast<std::size_t>(out_); }
  [[nodiscard]] bool weighted() const { return weighted_; }
  [[nodiscard]] bool any_tallied() const { return any_tallied_; }
  // Whether the single ends are grouped in place (the room then holds the
  // groups' starts only).
  [[nodiscard]] bool grouped() const { return weighted_ && !any_tallied_ && grouped_in_place(single_, bits_); }
  [[nodiscard]] const int* buffer() const { return buffer_.data(); }
  DistGraphBuffer take() { return std::move(buffer_); }
  std::vector<std::uint32_t> take_group_starts() { return std::move(group_starts_); }

 private:
  [[nodiscard]] std::size_t room_ints() const {
    if (any_tallied_) return (weighted_ ? 2 : 1) * static_cast<std::size_t>(in_ + out_);
    return weighted_ && !grouped() ? static_cast<std::size_t>(single_) : 0;
  }
  // Two words per (direction, rank) value and one more: each group's start
  // and its next place.
  [[nodiscard]] std::size_t group_words() const {
    if (!grouped()) return 0;
    constexpr EdgeKey kNeighborBits = ~EdgeKey{0x7fffffffU};
    return 2 * (std::size_t{1} << std::popcount((bits_.any() ^ bits_.all()) & kNeighborBits)) + 1;
  }

  Rejection grow(std::uint64_t in, std::uint64_t out) {
    in_ += in;
    out_ += out;
    if (in_ > INT_MAX || out_ > INT_MAX) return Rejection::degree_overflow;
    try {
      if (room_ints() > buffer_.capacity() || room_ints() == 0) {
        buffer_.allocate(room_ints());  // the old room (which holds nothing yet) goes first
      }
      if (group_words() > group_starts_.size()) {
        std::vector<std::uint32_t>().swap(group_starts_);
        group_starts_.resize(group_words());
      }
      mirror_.reserve((in_ + out_) * (mirror_weights_ ? 2 : 1));
    } catch (const std::bad_alloc&) {
      return Rejection::no_memory;
    }
    return Rejection::none;
  }

  bool weighted_;
  bool any_tallied_ = false;
  bool mirror_weights_;
  std::uint64_t in_ = 0;
  std::uint64_t out_ = 0;
  std::uint64_t single_ = 0;
  KeyBits bits_;
  DistGraphBuffer buffer_;
  std::vector<std::uint32_t> group_starts_;
  NativeReservation mirror_;  // MPICH's copy of the lists, held from the exchange on
};

// The record of the lists from the single ends `keys` (in the memory they
// were received in, which becomes the lists'; `room` has seen their bits)
// and the tallied ends `tallied` (sorted in place), all counted by `room`,
// whose room it uses. Allocates nothing that it cannot do without.
DistGraphTopology write_lists(KeyBuffer keys, std::span<TalliedEnd> tallied, ListRoom room);

}  // namespace distopo::detail
