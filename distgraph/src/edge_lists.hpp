#pragma once
// From the edge ends a rank stores to its neighbor lists: in-ends become
// sources, out-ends destinations, each sorted by (rank, weight). ListRoom
// counts the ends as they arrive and takes the lists' buffer during the
// exchange; write_lists fills it afterwards without allocating, so it cannot
// fail where a failure on one rank would leave the others waiting.
#include <climits>
#include <cstddef>
#include <cstdint>
#include <span>

#include "distopo/core/topology.hpp"
#include "distopo/distgraph/edge_key.hpp"
#include "distopo/distgraph/key_sort.hpp"
#include "end_tally.hpp"

namespace distopo::detail {

// Why a rank rejects ends it received (or its own): the verdict an exchange
// sends back to their sender.
enum class Rejection : int { none = 0, degree_overflow = 1, no_memory = 2 };

// In- and out-degree of this rank as edge ends arrive, and the buffer of the
// lists they will become: both degrees must fit in an int, and the buffer is
// taken while the exchange runs, so a rank without memory for its lists
// rejects the message that needs it and its sender reports the error in the
// exchange's agreement step, which every rank sees. The buffer holds two ints
// per end when weighted (a rank and a weight), one otherwise; write_lists
// uses the two ints of a weighted end as the 8-byte scratch of its radix
// passes, so sorting costs no memory beyond the lists.
class ListRoom {
 public:
  explicit ListRoom(bool weighted) : weighted_(weighted) {}

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
    return grow(keys.size() - out, out);
  }

  // The same for tallied ends (no bits: they are merged, not sorted by bits).
  Rejection add(std::span<const TalliedEnd> tallied) {
    std::uint64_t in = 0;
    std::uint64_t out = 0;
    for (const TalliedEnd& end : tallied) (edge_direction(end.key) == EdgeDirection::in ? in : out) += end.count;
    return grow(in, out);
  }

  [[nodiscard]] const KeyBits& bits() const { return bits_; }
  [[nodiscard]] std::size_t indegree() const { return static_cast<std::size_t>(in_); }
  [[nodiscard]] std::size_t outdegree() const { return static_cast<std::size_t>(out_); }
  [[nodiscard]] bool weighted() const { return weighted_; }
  [[nodiscard]] const int* buffer() const { return buffer_.data(); }
  DistGraphBuffer take() { return std::move(buffer_); }

 private:
  Rejection grow(std::uint64_t in, std::uint64_t out) {
    in_ += in;
    out_ += out;
    if (in_ > INT_MAX || out_ > INT_MAX) return Rejection::degree_overflow;
    const std::size_t ints = (weighted_ ? 2 : 1) * static_cast<std::size_t>(in_ + out_);
    if (ints <= buffer_.capacity()) return Rejection::none;
    // The old buffer is freed before the larger one is taken (it holds
    // nothing yet): never both at once, next to every key received so far.
    buffer_ = DistGraphBuffer();
    try {
      buffer_ = DistGraphBuffer(ints);
    } catch (const std::bad_alloc&) {
      return Rejection::no_memory;
    }
    return Rejection::none;
  }

  bool weighted_;
  std::uint64_t in_ = 0;
  std::uint64_t out_ = 0;
  KeyBits bits_;
  DistGraphBuffer buffer_;
};

// The record of the lists, written into `room`'s buffer (which must have
// counted exactly these ends) from the single ends `keys` (whose bits `room`
// has seen; their memory is used as scratch) and the tallied ends `tallied`
// (sorted in place).
DistGraphTopology write_lists(std::span<EdgeKey> keys, std::span<TalliedEnd> tallied, ListRoom room);

}  // namespace distopo::detail
