#pragma once
// From the edge ends a rank stores to its neighbor lists: in-ends become
// sources, out-ends destinations, each sorted by (rank, weight). ListRoom
// counts the ends as they arrive and takes the lists' memory during the
// exchange; write_lists fills it afterwards without allocating, so it cannot
// fail where a failure on one rank would leave the others waiting.
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
#include "end_tally.hpp"

namespace distopo::detail {

// In- and out-degree of this rank as edge ends arrive, and room for the
// lists they will become: both degrees must fit in an int, and the room is
// taken while the exchange runs, so a rank without memory for its lists
// rejects the message that needs it and its sender reports the error in the
// exchange's agreement step, which every rank sees.
class ListRoom {
 public:
  static constexpr int kOverflow = 1;
  static constexpr int kNoMemory = 2;

  // `mirror_weights`: MPICH's copy of the lists will hold weights too.
  explicit ListRoom(bool weighted, bool mirror_weights = false)
      : weighted_(weighted), mirror_weights_(mirror_weights) {}

  // Counts `keys` (and notes their bits for the sort, in the same pass: the
  // keys were just received and are still in cache), makes room for them and
  // returns the verdict.
  int add(std::span<const EdgeKey> keys) {
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
    return grow(keys.size() - out, out);
  }

  // The same for tallied ends (no bits: they are merged, not sorted by bits).
  int add(std::span<const TalliedEnd> tallied) {
    std::uint64_t in = 0;
    std::uint64_t out = 0;
    for (const TalliedEnd& end : tallied) (edge_direction(end.key) == EdgeDirection::in ? in : out) += end.count;
    return grow(in, out);
  }

  DistGraphTopology take() { return std::move(lists_); }
  NativeReservation take_mirror() { return std::move(mirror_); }
  [[nodiscard]] const KeyBits& bits() const { return bits_; }

 private:
  int grow(std::uint64_t in, std::uint64_t out) {
    in_ += in;
    out_ += out;
    if (in_ > INT_MAX || out_ > INT_MAX) return kOverflow;
    try {
      make_room(lists_.sources, in_);
      make_room(lists_.destinations, out_);
      if (weighted_) {
        make_room(lists_.source_weights, in_);
        make_room(lists_.destination_weights, out_);
      }
      mirror_.reserve((in_ + out_) * (mirror_weights_ ? 2 : 1));
    } catch (const std::bad_alloc&) {
      return kNoMemory;
    }
    return 0;
  }

  // The vectors stay empty until the lists are written: the old room is
  // freed before the larger one is taken (reserve() would hold both at once,
  // next to every key received so far).
  static void make_room(std::vector<int>& list, std::size_t size) {
    if (size <= list.capacity()) return;
    std::vector<int>().swap(list);
    list.reserve(size);
  }

  bool weighted_;
  bool mirror_weights_;
  std::uint64_t in_ = 0;
  std::uint64_t out_ = 0;
  KeyBits bits_;
  DistGraphTopology lists_;
  NativeReservation mirror_;
};

// The lists of `record` (empty, with room for every end: ListRoom::take())
// filled from the single ends `keys` (whose bits `bits` has seen; their
// memory is used as scratch) and the tallied ends `tallied` (sorted in place).
DistGraphTopology write_lists(std::span<EdgeKey> keys, const KeyBits& bits, std::span<TalliedEnd> tallied,
                              bool weighted, DistGraphTopology record);

}  // namespace distopo::detail
