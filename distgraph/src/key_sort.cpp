#include "distopo/distgraph/key_sort.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <new>
#include <utility>

namespace distopo {
namespace {

using Exec = Kokkos::DefaultHostExecutionSpace;
using Keys = Kokkos::View<std::uint64_t*, Kokkos::HostSpace>;
using UnmanagedKeys = Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

constexpr std::size_t kRadix = 256;
// Up to this many keys (32 KiB, the L1 cache) a comparison sort wins: the
// radix passes' histograms and Kokkos dispatch cost more than they save.
constexpr std::size_t kComparisonSortLimit = 4096;
// Enough keys per chunk that a chunk's histogram is cheap next to its work.
constexpr std::size_t kMinKeysPerChunk = 1 << 14;

// Bits in which not all keys agree.
std::uint64_t varying_bits(const UnmanagedKeys& keys) {
  std::uint64_t any = 0;
  std::uint64_t all = ~std::uint64_t{0};
  const auto n = keys.extent(0);
  Kokkos::parallel_reduce(
      "distopo::sort_keys::or", Kokkos::RangePolicy<Exec>(0, n),
      [=](std::size_t i, std::uint64_t& value) { value |= keys(i); }, Kokkos::BOr<std::uint64_t>(any));
  Kokkos::parallel_reduce(
      "distopo::sort_keys::and", Kokkos::RangePolicy<Exec>(0, n),
      [=](std::size_t i, std::uint64_t& value) { value &= keys(i); }, Kokkos::BAnd<std::uint64_t>(all));
  return any ^ all;
}

void radix_sort(std::span<std::uint64_t> keys) {
  const std::size_t n = keys.size();
  UnmanagedKeys input(keys.data(), n);
  const std::uint64_t varying = varying_bits(input);
  if (varying == 0) return;  // all keys equal

  const std::size_t chunk_count =
      std::clamp<std::size_t>(n / kMinKeysPerChunk, 1, static_cast<std::size_t>(Exec().concurrency()));
  const std::size_t chunk_size = (n + chunk_count - 1) / chunk_count;
  Kokkos::View<std::size_t**, Kokkos::LayoutRight, Kokkos::HostSpace> offsets(
      "distopo::sort_keys::offsets", chunk_count, kRadix);
  Keys scratch(Kokkos::view_alloc(Kokkos::WithoutInitializing, "distopo::sort_keys::scratch"), n);

  UnmanagedKeys from = input;
  UnmanagedKeys to(scratch.data(), n);
  for (unsigned shift = 0; shift < 64; shift += 8) {
    if (((varying >> shift) & 0xffU) == 0) continue;
    const auto digit = [shift](std::uint64_t key) { return static_cast<std::size_t>((key >> shift) & 0xffU); };

    // Per-chunk histograms.
    Kokkos::parallel_for(
        "distopo::sort_keys::count", Kokkos::RangePolicy<Exec>(0, chunk_count), [=](std::size_t chunk) {
          for (std::size_t d = 0; d < kRadix; ++d) offsets(chunk, d) = 0;
          const std::size_t end = std::min(n, (chunk + 1) * chunk_size);
          for (std::size_t i = chunk * chunk_size; i < end; ++i) ++offsets(chunk, digit(from(i)));
        });
    Exec().fence();
    // Exclusive scan, digit-major then chunk: chunks keep their keys' order,
    // which makes each pass stable.
    std::size_t running = 0;
    for (std::size_t d = 0; d < kRadix; ++d) {
      for (std::size_t chunk = 0; chunk < chunk_count; ++chunk) {
        running += std::exchange(offsets(chunk, d), running);
      }
    }
    // Per-chunk scatter.
    Kokkos::parallel_for(
        "distopo::sort_keys::scatter", Kokkos::RangePolicy<Exec>(0, chunk_count), [=](std::size_t chunk) {
          const std::size_t end = std::min(n, (chunk + 1) * chunk_size);
          for (std::size_t i = chunk * chunk_size; i < end; ++i) to(offsets(chunk, digit(from(i)))++) = from(i);
        });
    Exec().fence();
    std::swap(from, to);
  }
  if (from.data() != keys.data()) {
    Kokkos::deep_copy(input, from);
    Exec().fence();
  }
}

}  // namespace

void sort_keys(std::span<std::uint64_t> keys) {
  const std::size_t n = keys.size();
  // Kokkos belongs to whoever initialized it: an application that finalized it
  // gets the comparison sort, slower on large inputs but the same order.
  if (n <= kComparisonSortLimit || !Kokkos::is_initialized()) {
    std::sort(keys.begin(), keys.end());
    return;
  }
  try {
    radix_sort(keys);
  } catch (const std::bad_alloc&) {
    // No room for the scratch copy (the keys are untouched until it exists):
    // sorting in place needs none. This runs after the constructors'
    // agreement, where a failure on one rank alone would leave the others
    // waiting.
    std::sort(keys.begin(), keys.end());
  }
}

}  // namespace distopo
