#pragma once
// Sorting of 64-bit keys (packed edges) with Kokkos: an LSD radix sort over
// bytes that skips every byte in which all keys agree (weights are often all
// equal, ranks rarely need more than 3 bytes). Each pass splits the keys into
// chunks that count and scatter in parallel on Kokkos' host execution space,
// so an OpenMP build of Kokkos sorts on all cores; the Serial build runs the
// same code on one. Linear in the number of keys, no buckets indexed by rank.
// Small inputs take std::sort, which is faster there (docs/design/key-sort.md).
#include <cstdint>
#include <span>

namespace distopo {

// Sorts ascending. Uses Kokkos while it is initialized (the distgraph
// constructors start it when nobody has) and std::sort otherwise, or when
// there is no memory for the radix sort's scratch copy.
void sort_keys(std::span<std::uint64_t> keys);

}  // namespace distopo
