#pragma once
// Radix sorts for dist_graph_create's lists: LSD passes, and for a few
// thousand wide keys one bucket pass (sort_in_place). The number of passes is a
// template parameter of the loops (the digit width is not): counting every
// digit in one read with a loop the compiler unrolls, and scatter loops with
// no pass arithmetic inside, run about 1.5x faster than the same loops over a
// run-time number of passes (docs/design/distgraph-create.md).
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace distopo::detail {

// How many passes over how wide digits sort n keys that differ in their low
// `width` bits: the fewest passes of digits of at most 11 bits, the width
// spread evenly over them (30-bit weights: 3 passes of 10 bits, 20-25 %
// faster than 4 of 8 from 2^16 to 10^6 keys), and narrower digits for a few
// hundred keys, whose counters would cost more than the passes they save
// (docs/design/distgraph-create.md).
struct RadixPlan {
  unsigned passes = 0;
  unsigned digit_bits = 0;

  static constexpr unsigned kMaxPasses = 11;  // 64-bit keys in digits of 6
  static constexpr unsigned kMaxDigitBits = 11;
  static constexpr std::size_t kCounters = std::size_t{kMaxPasses} << kMaxDigitBits;
  static RadixPlan of(std::size_t n, unsigned width) {
    if (width == 0) return {};
    const unsigned widest = n < 384 ? 6 : n < 1536 ? 8 : kMaxDigitBits;
    const unsigned passes = (width + widest - 1) / widest;
    return {passes, (width + passes - 1) / passes};
  }
  [[nodiscard]] std::size_t radix() const { return std::size_t{1} << digit_bits; }

  // The counters every sort of at most `largest` keys of `width` bits needs
  // (the widest plan among the sizes up to it; kCounters bounds them all).
  static std::size_t counters_for(std::size_t largest, unsigned width) {
    std::size_t most = 0;
    for (const std::size_t last_of_regime : {std::size_t{383}, std::size_t{1535}, largest}) {
      const RadixPlan plan = of(std::min(last_of_regime, largest), width);
      most = std::max(most, plan.passes * plan.radix());
    }
    return most;
  }
};

namespace radix {

// One LSD pass: every key of from[0, n) to the next place of its digit
// (bits [shift, shift + bit_width(mask))) in `to`, `next` holding each
// digit's next place. Two keys a turn, the second placed right after the
// first where their digits agree, without reading back the counter the
// first just advanced: keys of one digit in a row (weights that repeat or
// cluster, as the same weights sent by several ranks do at a hub) otherwise
// wait for that store each time (docs/design/key-sort.md).
template <class Key>
void scatter_pass(const Key* from, Key* to, std::size_t n, std::uint32_t* next, unsigned shift, Key mask) {
  std::size_t i = 0;
  for (; i + 1 < n; i += 2) {
    const Key a = from[i];
    const Key b = from[i + 1];
    const auto digit_a = static_cast<std::size_t>((a >> shift) & mask);
    const auto digit_b = static_cast<std::size_t>((b >> shift) & mask);
    const std::uint32_t at_a = next[digit_a];
    const std::uint32_t at_b = digit_a == digit_b ? at_a + 1 : next[digit_b];
    to[at_a] = a;
    next[digit_a] = at_a + 1;
    to[at_b] = b;
    next[digit_b] = at_b + 1;
  }
  if (i < n) to[next[static_cast<std::size_t>((from[i] >> shift) & mask)]++] = from[i];
}

// f(std::integral_constant<unsigned, passes>()) for passes in 1 ... kMax:
// the loops get their number of passes at compile time.
template <unsigned kMax, class F>
void with_passes(unsigned passes, const F& f) {
  if constexpr (kMax > 1) {
    if (passes < kMax) return with_passes<kMax - 1>(passes, f);
  }
  f(std::integral_constant<unsigned, kMax>());
}

// Counts every pass's digits in one walk and turns the counts into each
// digit's first position. `counts`: kPasses rows of `radix`.
template <unsigned kPasses, class Key, class EachKey>
void count_digits(const EachKey& each_key, const RadixPlan& plan, std::uint32_t* counts) {
  const std::size_t radix = plan.radix();
  const Key mask = static_cast<Key>(radix - 1);
  std::memset(counts, 0, sizeof(std::uint32_t) * kPasses * radix);
  each_key([&](Key key) {
    for (unsigned pass = 0; pass < kPasses; ++pass) {
      ++counts[pass * radix + static_cast<std::size_t>((key >> (pass * plan.digit_bits)) & mask)];
    }
  });
  for (unsigned pass = 0; pass < kPasses; ++pass) {
    std::uint32_t running = 0;
    for (std::uint32_t* count = counts + pass * radix; count != counts + (pass + 1) * radix; ++count) {
      running += std::exchange(*count, running);
    }
  }
}

template <unsigned kPasses, class Key, class EachKey, class Sink>
void sort(std::size_t n, const EachKey& each_key, const RadixPlan& plan, Key* sink_scratch, Key* free_scratch,
          const Sink& sink, std::uint32_t* counts) {
  count_digits<kPasses, Key>(each_key, plan, counts);
  const std::size_t radix = plan.radix();
  const Key mask = static_cast<Key>(radix - 1);
  const auto digit = [&](Key key, unsigned pass) {
    return static_cast<std::size_t>((key >> (pass * plan.digit_bits)) & mask);
  };
  if constexpr (kPasses == 1) {
    each_key([&](Key key) { sink(counts[digit(key, 0)]++, key); });
  } else {
    // The passes before the last write into scratch arrays, the last of them
    // into free_scratch.
    Key* into = (kPasses - 1) % 2 == 1 ? free_scratch : sink_scratch;
    Key* other = into == free_scratch ? sink_scratch : free_scratch;
    {
      Key* const first = into;
      each_key([&](Key key) { first[counts[digit(key, 0)]++] = key; });
    }
    for (unsigned pass = 1; pass + 1 < kPasses; ++pass) {
      std::uint32_t* const next = counts + pass * radix;
      std::swap(into, other);
      scatter_pass(other, into, n, next, pass * plan.digit_bits, mask);
    }
    std::uint32_t* const last = counts + (kPasses - 1) * radix;
    const unsigned shift = (kPasses - 1) * plan.digit_bits;
    for (std::size_t i = 0; i < n; ++i) {
      const Key key = into[i];
      sink(last[static_cast<std::size_t>((key >> shift) & mask)]++, key);
    }
  }
}

// Sorts the n keys at `keys` by bits [low, low + kPasses * digit_bits),
// scattering to `scratch` and back; the result is in `keys`.
template <unsigned kPasses, class Key>
void sort_in_place(Key* keys, Key* scratch, std::size_t n, unsigned low, const RadixPlan& plan, std::uint32_t* counts) {
  const Key* const input = keys;
  count_digits<kPasses, Key>(
      [&](auto&& visit) {
        for (std::size_t i = 0; i < n; ++i) visit(static_cast<Key>(input[i] >> low));
      },
      plan, counts);
  const std::size_t radix = plan.radix();
  const Key mask = static_cast<Key>(radix - 1);
  Key* from = keys;
  Key* to = scratch;
  for (unsigned pass = 0; pass < kPasses; ++pass) {
    std::uint32_t* const next = counts + pass * radix;
    scatter_pass(from, to, n, next, low + pass * plan.digit_bits, mask);
    std::swap(from, to);
  }
  if (from != keys) std::memcpy(keys, from, n * sizeof(Key));
}

}  // namespace radix

// Sorts the n keys of a walk over the input (each_key(visit) calls
// visit(key) for every key, in the same order each time; it runs twice:
// once to count every digit, once to scatter the first) ascending by their
// low `width` bits (the bits above must be equal in all keys), and hands
// them to sink(position, key) in the last pass, so that packing the keys and
// writing the lists need no passes of their own. `sink_scratch` and
// `free_scratch` hold n keys each; the sink may write into sink_scratch (the
// last pass reads free_scratch only). `counts`: RadixPlan::counters_for(n, width).
template <class Key, class EachKey, class Sink>
void radix_sort(std::size_t n, unsigned width, const EachKey& each_key, Key* sink_scratch, Key* free_scratch,
                const Sink& sink, std::uint32_t* counts) {
  const RadixPlan plan = RadixPlan::of(n, width);
  if (plan.passes == 0) {
    std::size_t position = 0;
    each_key([&](Key key) { sink(position++, key); });
    return;
  }
  radix::with_passes<RadixPlan::kMaxPasses>(plan.passes, [&](auto passes) {
    radix::sort<passes()>(n, each_key, plan, sink_scratch, free_scratch, sink, counts);
  });
}

// Below this many keys, keys the radix passes would sort in three or more
// passes (distinct weights: far more possible values than keys) are
// bucketed once and insertion-sorted instead: three walks over the keys
// (count, scatter, insert) where the passes make four to six
// (docs/design/key-sort.md).
inline constexpr std::size_t kMaxKeysToBucket = 4096;

// Above this many keys, the sorts of 32-bit keys below first split them by
// their top byte and sort each part on its own, in the caches: faster than
// LSD passes over the whole from about half a million keys on, where parts
// of up to 4096 keys take the bucket sort (docs/design/key-sort.md).
inline constexpr std::size_t kMinKeysToSplitFirst = std::size_t{1} << 19;

namespace radix {

// The bucket sort of a few thousand keys that differ only in bits [low, low
// + width): one pass scattering them from `from` into `to` by the top
// bit_width(n) - 1 of those bits (one or two keys a bucket where the values
// spread), then insertion, which moves no key out of its bucket. Where any
// bucket would get more than kCrowded keys (clustered values), or there
// are fewer than 2, it returns false having written nothing. `counters`:
// how many `counts` holds.
inline bool scatter_to_buckets(const std::uint32_t* from, std::uint32_t* to, std::size_t n, unsigned low,
                               unsigned width, std::uint32_t* counts, std::size_t counters) {
  constexpr std::uint32_t kCrowded = 16;
  if (n < 2) return false;
  const unsigned bits = std::min(width, static_cast<unsigned>(std::bit_width(n)) - 1);
  const std::size_t buckets = std::size_t{1} << bits;
  if (bits == 0 || buckets > counters) return false;
  const unsigned shift = low + width - bits;
  const auto mask = static_cast<std::uint32_t>(buckets - 1);
  std::fill_n(counts, buckets, 0U);
  for (std::size_t i = 0; i < n; ++i) ++counts[(from[i] >> shift) & mask];
  std::uint32_t running = 0;
  for (std::size_t d = 0; d < buckets; ++d) {
    if (counts[d] > kCrowded) return false;
    running += std::exchange(counts[d], running);
  }
  scatter_pass(from, to, n, counts, shift, mask);
  return true;
}

// The insertion after scatter_to_buckets, from `from` (bucketed) to `to`,
// which may be the same array.
inline void insert_within_buckets(const std::uint32_t* from, std::uint32_t* to, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t key = from[i];
    std::size_t j = i;
    for (; j > 0 && to[j - 1] > key; --j) to[j] = to[j - 1];
    to[j] = key;
  }
}

// The bucket sort where it applies (below kMaxKeysToBucket keys, whose
// radix `plan` makes three or more passes): `from` scattered into `via`,
// then inserted into `to` (which may be `from`). False, having written
// nothing, where it does not apply or scatter_to_buckets declines.
inline bool sort_by_buckets(const std::uint32_t* from, std::uint32_t* via, std::uint32_t* to, std::size_t n,
                            unsigned low, unsigned width, const RadixPlan& plan, std::uint32_t* counts,
                            std::size_t counters) {
  if (n >= kMaxKeysToBucket || plan.passes < 3 || !scatter_to_buckets(from, via, n, low, width, counts, counters)) {
    return false;
  }
  insert_within_buckets(via, to, n);
  return true;
}

// LSD passes over the n keys of a walk (each_key(visit), run twice) by bits
// [low, low + width), through `into` and `scratch` (n keys each); the
// result is in `into`. `walk_reads_scratch`: the walk's keys lie in
// `scratch`, so the first pass must write `into` (and an even number of
// passes ends with a copy).
template <unsigned kPasses, class EachKey>
void sort_walk(std::size_t n, const EachKey& each_key, unsigned low, const RadixPlan& plan, std::uint32_t* into,
               std::uint32_t* scratch, bool walk_reads_scratch, std::uint32_t* counts) {
  count_digits<kPasses, std::uint32_t>([&](auto&& visit) { each_key([&](std::uint32_t key) { visit(key >> low); }); },
                                       plan, counts);
  const std::size_t radix = plan.radix();
  const std::uint32_t mask = static_cast<std::uint32_t>(radix) - 1;
  // Unless the walk reads scratch, the first pass writes where the last one
  // ends in `into`.
  std::uint32_t* to = kPasses % 2 == 1 || walk_reads_scratch ? into : scratch;
  std::uint32_t* from = to == into ? scratch : into;
  {
    std::uint32_t* const first = to;
    each_key([&](std::uint32_t key) { first[counts[(key >> low) & mask]++] = key; });
  }
  for (unsigned pass = 1; pass < kPasses; ++pass) {
    std::swap(from, to);
    std::uint32_t* const next = counts + pass * radix;
    scatter_pass(from, to, n, next, low + pass * plan.digit_bits, mask);
  }
  if (to != into) std::memcpy(into, to, n * sizeof(std::uint32_t));
}

// Sorts many keys that differ in more than 19 bits (splits_first) as
// sort_in_place does: by their top byte into scratch, then each part back,
// sorted on its own, in the caches.
inline void split_then_sort(std::uint32_t* keys, std::uint32_t* scratch, std::size_t n, unsigned low, unsigned width,
                            std::uint32_t* counts) {
  constexpr unsigned top = 8;
  const RadixPlan whole = RadixPlan::of(n, width);
  const std::size_t counters = whole.passes * whole.radix();  // what `counts` holds at least
  const unsigned shift = low + width - top;
  const std::uint32_t mask = (1U << top) - 1;
  std::uint32_t starts[(1U << 8) + 1] = {};
  for (std::size_t i = 0; i < n; ++i) ++starts[((keys[i] >> shift) & mask) + 1];
  for (unsigned d = 0; d < (1U << top); ++d) starts[d + 1] += starts[d];
  std::uint32_t next[1U << 8];
  std::copy_n(starts, 1U << top, next);
  scatter_pass(keys, scratch, n, next, shift, mask);
  for (unsigned d = 0; d < (1U << top); ++d) {
    const std::size_t first = starts[d];
    const std::size_t count = starts[d + 1] - first;
    const std::uint32_t* const part = scratch + first;
    const RadixPlan plan = RadixPlan::of(count, width - top);
    if (plan.passes == 0) {
      std::copy_n(part, count, keys + first);
      continue;
    }
    if (sort_by_buckets(part, keys + first, keys + first, count, low, width - top, plan, counts, counters)) continue;
    with_passes<6>(plan.passes, [&](auto passes) {
      sort_walk<passes()>(
          count,
          [&](auto&& visit) {
            for (std::size_t i = 0; i < count; ++i) visit(part[i]);
          },
          low, plan, keys + first, scratch + first, true, counts);
    });
  }
}

inline bool splits_first(std::size_t n, unsigned width) {
  return n >= kMinKeysToSplitFirst && width > RadixPlan::kMaxDigitBits + 8;
}

}  // namespace radix

// Sorts `n` 32-bit keys that differ only in bits [low, low + width)
// ascending, with `scratch` (n keys) beside them; the result is in `keys`.
// `counts`: RadixPlan::counters_for(n, width).
inline void sort_in_place(std::uint32_t* keys, std::uint32_t* scratch, std::size_t n, unsigned low, unsigned width,
                          std::uint32_t* counts) {
  if (radix::splits_first(n, width)) {
    radix::split_then_sort(keys, scratch, n, low, width, counts);
    return;
  }
  const RadixPlan plan = RadixPlan::of(n, width);
  if (plan.passes == 0 ||
      radix::sort_by_buckets(keys, scratch, keys, n, low, width, plan, counts, plan.passes * plan.radix())) {
    return;
  }
  radix::with_passes<6>(plan.passes,
                        [&](auto passes) { radix::sort_in_place<passes()>(keys, scratch, n, low, plan, counts); });
}

}  // namespace distopo::detail
