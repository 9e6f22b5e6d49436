#pragma once
// Sorting of 64-bit keys (packed edges) with Kokkos: an LSD radix sort over
// bytes that skips every byte in which all keys agree (weights are often all
// equal, ranks rarely need more than 3 bytes). Each pass splits the keys into
// chunks that count and scatter in parallel on Kokkos' host execution space,
// so an OpenMP build of Kokkos sorts on all cores; the Serial build runs the
// same code on one. Linear in the number of keys, no buckets indexed by rank.
// Small inputs take std::sort, which is faster there (docs/design/key-sort.md).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

namespace distopo {

// Sorts ascending. Uses Kokkos while it is initialized (the distgraph
// constructors start it when nobody has) and std::sort otherwise, or when
// there is no memory for the radix sort's scratch copy.
void sort_keys(std::span<std::uint64_t> keys);

// The bits in which a set of keys differ, gathered one key at a time while
// the keys are produced or received, so that sorting them needs no pass of
// its own to find out.
class KeyBits {
 public:
  void add(std::uint64_t key) {
    any_ |= key;
    all_ &= key;
  }
  [[nodiscard]] std::uint64_t any() const { return any_; }  // set in some key
  [[nodiscard]] std::uint64_t all() const { return all_; }  // set in every key

 private:
  std::uint64_t any_ = 0;
  std::uint64_t all_ = ~std::uint64_t{0};
};

// When the keys have few distinct values (up to 16 varying bits, the usual
// case for edge keys of a few ranks), calls visit(key, count) for every
// distinct key in ascending order, `count` being how often it occurs, and
// returns true; the keys are counted, never written. Otherwise (or without
// memory for the counters) visits nothing and returns false: sort_keys is
// the way then. `bits` must have seen every key.
bool for_each_counted_key(std::span<const std::uint64_t> keys, const KeyBits& bits,
                          const std::function<void(std::uint64_t key, std::size_t count)>& visit);

}  // namespace distopo
