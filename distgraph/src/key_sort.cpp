#include "distopo/distgraph/key_sort.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <bit>
#include <new>
#include <optional>
#include <utility>

#include "kokkos_runtime.hpp"
#include "radix_parts.hpp"

namespace distopo::detail {
// Both masks of KeyBits in one reduction pass.
struct OrAnd {
  std::uint64_t any = 0;
  std::uint64_t all = ~std::uint64_t{0};
  KOKKOS_INLINE_FUNCTION void operator+=(const OrAnd& other) {
    any |= other.any;
    all &= other.all;
  }
  // Kokkos 3 joins reduction values through volatile references.
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile OrAnd& other) volatile {
    any = any | other.any;  // C++20 deprecates compound assignment to volatile
    all = all & other.all;
  }
};
}  // namespace distopo::detail

template <>
struct Kokkos::reduction_identity<distopo::detail::OrAnd> {
  KOKKOS_FORCEINLINE_FUNCTION static distopo::detail::OrAnd sum() { return {}; }
};

namespace distopo {
namespace {

using detail::ChunkCounts;
using detail::Chunks;
using detail::count_digits;
using detail::Exec;
using detail::kComparisonSortLimit;
using detail::OrAnd;
using detail::scan_counts;
using detail::UnmanagedKeys;
using detail::VaryingBits;
using Keys = Kokkos::View<std::uint64_t*, Kokkos::HostSpace>;

KeyBits key_bits(const UnmanagedKeys& keys) {
  OrAnd masks;
  Kokkos::parallel_reduce(
      "distopo::sort_keys::bits", Kokkos::RangePolicy<Exec>(0, keys.extent(0)),
      [=](std::size_t i, OrAnd& value) {
        value.any |= keys(i);
        value.all &= keys(i);
      },
      Kokkos::Sum<OrAnd>(masks));
  KeyBits bits;
  if (keys.extent(0) > 0) {
    bits.add(masks.any);
    bits.add(masks.all);
  }
  return bits;
}

VaryingBits packing_of(const KeyBits& bits) { return VaryingBits(bits.all(), bits.any() ^ bits.all()); }

// Whether the counting sort takes these keys.
bool countable(std::size_t n, const VaryingBits& bits) { return detail::countable(n, bits.width()); }

// How often each packed value occurs: counts(0, v), the chunks' rows summed.
ChunkCounts count_values(const UnmanagedKeys& keys, const VaryingBits& bits) {
  const Chunks chunks(keys.extent(0));
  const std::size_t values = std::size_t{1} << bits.width();
  ChunkCounts counts(Kokkos::view_alloc(Kokkos::WithoutInitializing, "distopo::sort_keys::counts"), chunks.count,
                     values);
  count_digits(keys, chunks, counts, [=](std::uint64_t key) { return static_cast<std::size_t>(bits.pack(key)); });
  for (std::size_t chunk = 1; chunk < chunks.count; ++chunk) {
    for (std::size_t value = 0; value < values; ++value) counts(0, value) += counts(chunk, value);
  }
  return counts;
}

// Few distinct packed values: count each one, then write every value as
// often as it occurred, in order. A key is its packed value plus the common
// bits, so the keys are rebuilt rather than moved: one read and one write
// per key, no scratch copy.
void counting_sort(const UnmanagedKeys& keys, const VaryingBits& bits) {
  const ChunkCounts counts = count_values(keys, bits);
  const std::size_t values = counts.extent(1);
  const Kokkos::View<std::size_t*, Kokkos::HostSpace> starts(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "distopo::sort_keys::starts"), values + 1);
  starts(0) = 0;
  for (std::size_t value = 0; value < values; ++value) starts(value + 1) = starts(value) + counts(0, value);
  Kokkos::parallel_for("distopo::sort_keys::rebuild", Kokkos::RangePolicy<Exec>(0, values), [=](std::size_t value) {
    const std::uint64_t key = bits.unpack(value);
    for (std::size_t i = starts(value); i < starts(value + 1); ++i) keys(i) = key;
  });
  Exec().fence();
}

// LSD radix sort of the packed values, in as few passes of at most
// kMaxDigitBits bits as they need. The keys are packed in place first and
// rebuilt by the last pass's scatter: packing is a bijection here.
void radix_sort(const UnmanagedKeys& input, const VaryingBits& bits) {
  const std::size_t n = input.extent(0);
  const unsigned digit_bits = detail::digit_bits_for(bits.width());
  const Chunks chunks(n);
  ChunkCounts offsets(Kokkos::view_alloc(Kokkos::WithoutInitializing, "distopo::sort_keys::offsets"), chunks.count,
                      std::size_t{1} << digit_bits);
  Keys scratch(Kokkos::view_alloc(Kokkos::WithoutInitializing, "distopo::sort_keys::scratch"), n);

  Kokkos::parallel_for("distopo::sort_keys::pack", Kokkos::RangePolicy<Exec>(0, n),
                       [=](std::size_t i) { input(i) = bits.pack(input(i)); });
  UnmanagedKeys from = input;
  UnmanagedKeys to(scratch.data(), n);
  const std::uint64_t digit_mask = (std::uint64_t{1} << digit_bits) - 1;
  for (unsigned shift = 0; shift < bits.width(); shift += digit_bits) {
    const auto digit = [=](std::uint64_t packed) { return static_cast<std::size_t>((packed >> shift) & digit_mask); };
    const bool last = shift + digit_bits >= bits.width();
    count_digits(from, chunks, offsets, digit);
    scan_counts(offsets);
    Kokkos::parallel_for("distopo::sort_keys::scatter", Kokkos::RangePolicy<Exec>(0, chunks.count),
                         [=](std::size_t chunk) {
                           for (std::size_t i = chunks.begin(chunk), end = chunks.end(chunk, n); i < end; ++i) {
                             const std::uint64_t packed = from(i);
                             to(offsets(chunk, digit(packed))++) = last ? bits.unpack(packed) : packed;
                           }
                         });
    Exec().fence();
    std::swap(from, to);
  }
  if (from.data() != input.data()) {
    Kokkos::deep_copy(input, from);
    Exec().fence();
  }
}

}  // namespace

void sort_keys(std::span<std::uint64_t> keys) {
  const std::size_t n = keys.size();
  // Kokkos belongs to whoever initialized it: an application that finalized it
  // gets the comparison sort, slower on large inputs but the same order; so
  // does a thread while another dispatches Kokkos work.
  const detail::KokkosTurn turn;
  if (n <= kComparisonSortLimit || !Kokkos::is_initialized() || !turn) {
    std::sort(keys.begin(), keys.end());
    return;
  }
  const UnmanagedKeys view(keys.data(), n);
  const VaryingBits bits = packing_of(key_bits(view));
  if (bits.width() == 0) return;  // all keys equal
  try {
    if (countable(n, bits)) {
      counting_sort(view, bits);
    } else {
      radix_sort(view, bits);
    }
  } catch (const std::bad_alloc&) {
    // No room for the counters or the scratch copy (the keys are untouched
    // until both exist): sorting in place needs none. This runs after the
    // constructors' agreement, where a failure on one rank alone would leave
    // the others waiting.
    std::sort(keys.begin(), keys.end());
  }
}

bool for_each_counted_key(std::span<const std::uint64_t> keys, const KeyBits& key_bits,
                          const std::function<void(std::uint64_t key, std::size_t count)>& visit) {
  const std::size_t n = keys.size();
  const detail::KokkosTurn turn;
  if (n <= kComparisonSortLimit || !Kokkos::is_initialized() || !turn) return false;
  const VaryingBits bits = packing_of(key_bits);
  if (!countable(n, bits)) return false;
  std::optional<ChunkCounts> counts;
  try {
    // count_values only reads through the view.
    counts = count_values(UnmanagedKeys(const_cast<std::uint64_t*>(keys.data()), n), bits);
  } catch (const std::bad_alloc&) {
    return false;  // sort_keys needs no memory when there is none
  }
  for (std::size_t value = 0; value < counts->extent(1); ++value) {
    if ((*counts)(0, value) > 0) visit(bits.unpack(value), (*counts)(0, value));
  }
  return true;
}

}  // namespace distopo
