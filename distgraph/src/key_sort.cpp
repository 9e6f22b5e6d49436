#include "distopo/distgraph/key_sort.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <new>
#include <utility>
#include <vector>

namespace distopo {
namespace {

using Exec = Kokkos::DefaultHostExecutionSpace;
// Chunks are handed out one at a time: a thread slowed down by another
// process on its core takes fewer of them instead of holding up the pass.
using ChunkPolicy = Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Dynamic>>;
using Keys = Kokkos::View<std::uint64_t*, Kokkos::HostSpace>;
using UnmanagedKeys = Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using ChunkTable = Kokkos::View<std::size_t**, Kokkos::LayoutRight, Kokkos::HostSpace>;

constexpr std::size_t kRadix = 256;
// Up to this many keys (32 KiB, the L1 cache) a comparison sort wins: the
// radix passes' histograms and Kokkos dispatch cost more than they save.
constexpr std::size_t kComparisonSortLimit = 4096;
// Enough keys per chunk that a chunk's histogram is cheap next to its work.
constexpr std::size_t kMinKeysPerChunk = 1 << 14;
// Chunks per thread, for the dynamic schedule to balance.
constexpr std::size_t kChunksPerThread = 8;

struct Chunks {
  std::size_t count;
  std::size_t size;
  std::size_t keys;
  [[nodiscard]] std::size_t begin(std::size_t chunk) const { return std::min(keys, chunk * size); }
  [[nodiscard]] std::size_t end(std::size_t chunk) const { return std::min(keys, (chunk + 1) * size); }
};

ChunkPolicy over(const Chunks& chunks) { return ChunkPolicy(0, chunks.count).set_chunk_size(1); }

// One radix digit: the next (up to) 8 of the bits in which keys differ,
// wherever they sit in the key; a run of them is one segment. Sorting by the
// varying bits alone takes ceil(varying bits / 8) passes where whole bytes
// took one per byte touched: unweighted edges among 1000 ranks vary in 11
// bits spread over 4 bytes (2 passes instead of 4).
struct Digit {
  struct Segment {
    unsigned shift;
    std::uint64_t mask;
    unsigned offset;
  };
  std::array<Segment, 8> segments{};
  unsigned count = 0;

  [[nodiscard]] std::size_t operator()(std::uint64_t key) const {
    std::uint64_t value = 0;
    for (std::size_t s = 0; s < std::min<std::size_t>(count, segments.size()); ++s) {
      value |= ((key >> segments[s].shift) & segments[s].mask) << segments[s].offset;
    }
    return static_cast<std::size_t>(value);
  }
};

// The digits of `varying`, least significant first (LSD order).
std::vector<Digit> digits_of(std::uint64_t varying) {
  std::vector<Digit> digits;
  Digit digit;
  unsigned taken = 0;  // bits in `digit` so far
  unsigned bit = 0;
  while (bit < 64) {
    if (((varying >> bit) & 1U) == 0) {
      ++bit;
      continue;
    }
    unsigned width = 0;  // the run of varying bits from `bit`, as far as the digit has room
    while (bit + width < 64 && ((varying >> (bit + width)) & 1U) != 0 && taken + width < 8) ++width;
    digit.segments[digit.count++] = {bit, (std::uint64_t{1} << width) - 1, taken};
    taken += width;
    bit += width;
    if (taken == 8) {
      digits.push_back(digit);
      digit = Digit{};
      taken = 0;
    }
  }
  if (taken > 0) digits.push_back(digit);
  return digits;
}

// Calls pass(digit_of) with a function key -> digit: a plain shift and mask
// for the common one-segment digit, so that the hot loops stay simple.
template <class Pass>
void with_digit(const Digit& digit, Pass&& pass) {
  if (digit.count == 1) {
    const unsigned shift = digit.segments[0].shift;
    const std::uint64_t mask = digit.segments[0].mask;
    pass([shift, mask](std::uint64_t key) { return static_cast<std::size_t>((key >> shift) & mask); });
  } else {
    pass(digit);
  }
}

// Bits in which not all keys agree: one read of the keys, per chunk.
std::uint64_t varying_bits(const std::uint64_t* keys, const Chunks& chunks) {
  Kokkos::View<std::uint64_t* [2], Kokkos::HostSpace> seen("distopo::sort_keys::seen", chunks.count);
  Kokkos::parallel_for("distopo::sort_keys::varying", over(chunks), [=](std::size_t chunk) {
    std::uint64_t any = 0;
    std::uint64_t all = ~std::uint64_t{0};
    for (std::size_t i = chunks.begin(chunk); i < chunks.end(chunk); ++i) {
      any |= keys[i];
      all &= keys[i];
    }
    seen(chunk, 0) = any;
    seen(chunk, 1) = all;
  });
  Exec().fence();
  std::uint64_t any = 0;
  std::uint64_t all = ~std::uint64_t{0};
  for (std::size_t chunk = 0; chunk < chunks.count; ++chunk) {
    any |= seen(chunk, 0);
    all &= seen(chunk, 1);
  }
  return any ^ all;
}

void radix_sort(std::span<std::uint64_t> keys) {
  const std::size_t n = keys.size();
  const auto threads = static_cast<std::size_t>(Exec().concurrency());
  Chunks chunks{std::clamp<std::size_t>(n / kMinKeysPerChunk, 1, kChunksPerThread * threads), 0, n};
  chunks.size = (n + chunks.count - 1) / chunks.count;

  const std::uint64_t varying = varying_bits(keys.data(), chunks);
  if (varying == 0) return;  // all keys equal
  const std::vector<Digit> digits = digits_of(varying);

  ChunkTable offsets("distopo::sort_keys::offsets", chunks.count, kRadix);
  Keys scratch(Kokkos::view_alloc(Kokkos::WithoutInitializing, "distopo::sort_keys::scratch"), n);

  std::uint64_t* from = keys.data();
  std::uint64_t* to = scratch.data();
  for (const Digit& pass_digit : digits) {
    with_digit(pass_digit, [&](auto digit) {
      // Per-chunk histograms, counted in a local array (the compiler keeps
      // it apart from the keys, which a View of size_t might alias).
      Kokkos::parallel_for("distopo::sort_keys::count", over(chunks), [=](std::size_t chunk) {
        std::array<std::size_t, kRadix> count{};
        for (std::size_t i = chunks.begin(chunk); i < chunks.end(chunk); ++i) ++count[digit(from[i])];
        for (std::size_t d = 0; d < kRadix; ++d) offsets(chunk, d) = count[d];
      });
      Exec().fence();
      // Exclusive scan, digit-major then chunk: chunks keep their keys'
      // order, which makes each pass stable.
      std::size_t running = 0;
      for (std::size_t d = 0; d < kRadix; ++d) {
        for (std::size_t chunk = 0; chunk < chunks.count; ++chunk) {
          running += std::exchange(offsets(chunk, d), running);
        }
      }
      // Per-chunk scatter, again from a local copy of the chunk's offsets.
      Kokkos::parallel_for("distopo::sort_keys::scatter", over(chunks), [=](std::size_t chunk) {
        std::array<std::size_t, kRadix> next;
        for (std::size_t d = 0; d < kRadix; ++d) next[d] = offsets(chunk, d);
        for (std::size_t i = chunks.begin(chunk); i < chunks.end(chunk); ++i) to[next[digit(from[i])]++] = from[i];
      });
      Exec().fence();
    });
    std::swap(from, to);
  }
  if (from != keys.data()) {
    Kokkos::deep_copy(UnmanagedKeys(keys.data(), n), UnmanagedKeys(from, n));
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
