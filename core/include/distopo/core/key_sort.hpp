#pragma once
// Sorting of 64-bit keys (packed edges) with Kokkos: an LSD radix sort over
// bytes that skips every byte in which all keys agree (weights are often all
// equal, ranks rarely need more than 3 bytes). Each pass splits the keys into
// chunks that count and scatter in parallel on Kokkos' host execution space,
// so an OpenMP build of Kokkos sorts on all cores; the Serial build runs the
// same code on one. Linear in the number of keys, no buckets indexed by rank.
// Inputs that fit the L1 cache (up to 4096 keys) take std::sort, which wins
// there (bench/key_sort_bench).
#include <cstdint>
#include <span>

namespace distopo {

// Sorts ascending. Kokkos must be initialized (ensure_runtime() does it).
void sort_keys(std::span<std::uint64_t> keys);

}  // namespace distopo
