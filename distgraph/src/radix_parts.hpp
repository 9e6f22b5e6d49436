#pragma once
// The parts of the key sort (key_sort.cpp): packing the bits in which keys
// differ, and counting digits in chunks that run in parallel on Kokkos' host
// execution space.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace distopo::detail {

using Exec = Kokkos::DefaultHostExecutionSpace;
using UnmanagedKeys = Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using ChunkCounts = Kokkos::View<std::size_t**, Kokkos::LayoutRight, Kokkos::HostSpace>;

// Enough keys per chunk that a chunk's histogram is cheap next to its work.
inline constexpr std::size_t kMinKeysPerChunk = 1 << 14;
// Up to this many keys (32 KiB, the L1 cache) a comparison sort wins: the
// radix passes' histograms and Kokkos dispatch cost more than they save.
inline constexpr std::size_t kComparisonSortLimit = 4096;
// Widest digit of a radix pass: 2048 counters (16 KiB) stay in L1.
inline constexpr unsigned kMaxDigitBits = 11;
// Widest packed value that is counted rather than sorted (its counters:
// 512 KiB per chunk at most).
inline constexpr unsigned kMaxCountingBits = 16;

// Whether n keys whose packed values have `width` bits are counted: few
// enough values, and no more counters than keys, so memory stays O(n).
inline bool countable(std::size_t n, unsigned width) {
  return width <= kMaxCountingBits && (std::size_t{1} << width) <= n;
}

// The digit of each LSD radix pass over `width` bits: as few passes of at
// most kMaxDigitBits as cover them, equally wide.
inline unsigned digit_bits_for(unsigned width) {
  const unsigned passes = (width + kMaxDigitBits - 1) / kMaxDigitBits;
  return (width + passes - 1) / passes;
}

// The bits in which not all keys agree, as runs of adjacent bits, packed into
// the low bits of one number and back. Keys differ only there, so the packed
// values order the keys as the keys themselves do, in as few bits as the
// input needs: for edge keys the direction bit, the low bits of the rank and
// of the weight (about 8 bits at P = 16 with weights below 8).
class VaryingBits {
 public:
  VaryingBits(std::uint64_t common, std::uint64_t varying) : common_(common & ~varying) {
    for (unsigned bit = 0; bit < 64;) {
      if (((varying >> bit) & 1U) == 0) {
        ++bit;
        continue;
      }
      const unsigned width = static_cast<unsigned>(std::countr_one(varying >> bit));
      runs_[run_count_++] = {bit, width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1, width_};
      width_ += width;
      bit += width;
    }
  }

  [[nodiscard]] KOKKOS_INLINE_FUNCTION unsigned width() const { return width_; }

  [[nodiscard]] KOKKOS_INLINE_FUNCTION std::uint64_t pack(std::uint64_t key) const {
    std::uint64_t packed = 0;
    for (unsigned r = 0; r < run_count_; ++r) packed |= ((key >> runs_[r].shift) & runs_[r].mask) << runs_[r].offset;
    return packed;
  }

  [[nodiscard]] KOKKOS_INLINE_FUNCTION std::uint64_t unpack(std::uint64_t packed) const {
    std::uint64_t key = common_;
    for (unsigned r = 0; r < run_count_; ++r) key |= ((packed >> runs_[r].offset) & runs_[r].mask) << runs_[r].shift;
    return key;
  }

 private:
  struct Run {
    unsigned shift;  // lowest bit of the run in the key
    std::uint64_t mask;
    unsigned offset;  // lowest bit of the run in the packed value
  };
  std::uint64_t common_;
  std::array<Run, 32> runs_{};  // runs are separated by constant bits: 32 at most
  unsigned run_count_ = 0;
  unsigned width_ = 0;
};

// Chunks of the keys that count (and scatter) in parallel.
struct Chunks {
  std::size_t count;
  std::size_t size;
  explicit Chunks(std::size_t n)
      : count(std::clamp<std::size_t>(n / kMinKeysPerChunk, 1, static_cast<std::size_t>(Exec().concurrency()))),
        size((n + count - 1) / count) {}
  [[nodiscard]] KOKKOS_INLINE_FUNCTION std::size_t begin(std::size_t chunk) const { return chunk * size; }
  [[nodiscard]] KOKKOS_INLINE_FUNCTION std::size_t end(std::size_t chunk, std::size_t n) const {
    return (chunk + 1) * size < n ? (chunk + 1) * size : n;
  }
};

// counts(chunk, d): keys of `chunk` whose digit is d.
template <class Digit>
inline void count_digits(const UnmanagedKeys& keys, const Chunks& chunks, const ChunkCounts& counts, Digit digit) {
  const std::size_t n = keys.extent(0);
  const std::size_t radix = counts.extent(1);
  Kokkos::parallel_for("distopo::sort_keys::count", Kokkos::RangePolicy<Exec>(0, chunks.count), [=](std::size_t chunk) {
    for (std::size_t d = 0; d < radix; ++d) counts(chunk, d) = 0;
    for (std::size_t i = chunks.begin(chunk), end = chunks.end(chunk, n); i < end; ++i) ++counts(chunk, digit(keys(i)));
  });
  Exec().fence();
}

// Exclusive scan, digit-major then chunk: chunks keep their keys' order,
// which makes each pass stable. Returns the total.
inline std::size_t scan_counts(const ChunkCounts& counts) {
  std::size_t running = 0;
  for (std::size_t d = 0; d < counts.extent(1); ++d) {
    for (std::size_t chunk = 0; chunk < counts.extent(0); ++chunk) running += std::exchange(counts(chunk, d), running);
  }
  return running;
}

}  // namespace distopo::detail
