// dims_create: the most balanced factorization of nnodes / prod(preset) into
// the free dimensions, without touching the heap: MPI_Dims_create is called in
// start-up code and must not cost more than MPICH's (docs/design/dims-create.md).
//  1. Factor into primes: powers of two by counting zero bits, odd primes up
//     to sqrt(2^31) by trial division with a multiplication instead of a
//     division (n * p^-1 mod 2^32 <= (2^32 - 1) / p iff p divides n).
//  2. Fast answers: no more prime factors than slots (the primes, then 1s),
//     a prime power (exponents spread evenly), a perfect power (all entries
//     equal).
//  3. Otherwise a branch-and-bound search over non-increasing divisor
//     sequences that minimizes max - min. Among equally balanced answers the
//     one with the largest smallest entry wins, then the largest second
//     smallest, and so on: MPICH's choice, which its test suite
//     (test/mpi/topo/dims5, 75395 cases) expects.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "distopo/cart.hpp"

namespace distopo {
namespace {

constexpr const char* kCaller = "dims_create";

// An odd prime with what its divisibility test needs.
struct TrialDivisor {
  std::uint32_t prime;
  std::uint32_t inverse;  // prime * inverse == 1 (mod 2^32)
  std::uint32_t limit;    // (2^32 - 1) / prime
};

const std::vector<TrialDivisor>& odd_primes() {
  static const std::vector<TrialDivisor> primes = [] {
    constexpr std::uint32_t kLimit = 46341;  // > sqrt(INT_MAX)
    std::vector<bool> composite(kLimit + 1, false);
    std::vector<TrialDivisor> list;
    for (std::uint32_t i = 3; i <= kLimit; i += 2) {
      if (composite[i]) continue;
      std::uint32_t inverse = i;  // Newton's iteration doubles the correct low bits
      for (int step = 0; step < 5; ++step) inverse *= 2 - i * inverse;
      list.push_back({i, inverse, UINT32_MAX / i});
      for (std::uint64_t j = std::uint64_t{i} * i; j <= kLimit; j += 2 * i) composite[j] = true;
    }
    return list;
  }();
  return primes;
}

struct PrimePower {
  std::uint32_t prime;
  int exponent;
};

// An int has at most 9 distinct prime factors (2*3*5*...*29 > 2^31).
struct Factorization {
  std::array<PrimePower, 10> powers;
  int distinct = 0;
  int total = 0;  // prime factors with multiplicity
  void add(std::uint32_t prime, int exponent) {
    powers[static_cast<std::size_t>(distinct++)] = {prime, exponent};
    total += exponent;
  }
};

Factorization factor(std::uint32_t n) {
  Factorization f;
  if (const int twos = std::countr_zero(n); twos > 0) {
    f.add(2, twos);
    n >>= twos;
  }
  for (const TrialDivisor& d : odd_primes()) {
    if (d.prime * d.prime > n) break;  // prime <= 46341: the square fits in 32 bits
    if (n * d.inverse > d.limit) continue;
    int exponent = 0;
    do {
      n *= d.inverse;  // exact division
      ++exponent;
    } while (n * d.inverse <= d.limit);
    f.add(d.prime, exponent);
  }
  if (n > 1) f.add(n, 1);
  return f;
}

// x^s, saturating above `limit`.
std::int64_t power_capped(std::int64_t x, int s, std::int64_t limit) {
  std::int64_t result = 1;
  for (int i = 0; i < s; ++i) {
    if (result > limit / x) return limit + 1;
    result *= x;
  }
  return result;
}

// Largest r with r^s <= n (n >= 1, s >= 1).
std::int64_t floor_root(std::int64_t n, int s) {
  if (s == 1) return n;
  if (s == 2) {
    auto r = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
    while (r * r > n) --r;
    while ((r + 1) * (r + 1) <= n) ++r;
    return r;
  }
  auto r = static_cast<std::int64_t>(std::pow(static_cast<double>(n), 1.0 / s));
  r = std::max<std::int64_t>(r, 1);
  while (r > 1 && power_capped(r, s, n) > n) --r;
  while (power_capped(r + 1, s, n) <= n) ++r;
  return r;
}

// The search runs only with fewer slots than prime factors (at most 30), and an
// int has at most 1600 divisors.
constexpr std::size_t kMaxSearchSlots = 31;
constexpr std::size_t kMaxDivisors = 1600;

struct BalancedSearch {
  std::array<std::int64_t, kMaxDivisors> divisors;  // of the whole product, ascending
  std::size_t divisor_count = 0;
  int slots = 0;
  std::array<std::int64_t, kMaxSearchSlots> current;
  std::array<std::int64_t, kMaxSearchSlots> best;
  std::int64_t best_spread = INT64_MAX;
  bool have_best = false;

  // Is `current` better than `best` among equally balanced answers? Compared
  // from the smallest entry up: the larger smallest entry wins, then the
  // larger second smallest, and so on.
  bool larger_from_the_smallest_end() const {
    if (!have_best) return true;
    for (int i = slots - 1; i >= 0; --i) {
      const auto k = static_cast<std::size_t>(i);
      if (current[k] != best[k]) return current[k] > best[k];
    }
    return false;
  }

  void list_divisors(const Factorization& f) {
    divisors[0] = 1;
    divisor_count = 1;
    for (int i = 0; i < f.distinct; ++i) {
      const auto [prime, exponent] = f.powers[static_cast<std::size_t>(i)];
      const std::size_t count = divisor_count;
      std::int64_t power = 1;
      for (int e = 1; e <= exponent; ++e) {
        power *= prime;
        for (std::size_t j = 0; j < count; ++j) divisors[divisor_count++] = divisors[j] * power;
      }
    }
    std::sort(divisors.begin(), divisors.begin() + static_cast<std::ptrdiff_t>(divisor_count));
  }

  // Fills current[depth..] with a non-increasing sequence of `slots - depth`
  // divisors, each <= high, whose product is `remaining`.
  void run(int depth, std::int64_t remaining, std::int64_t high) {
    const int left = slots - depth;
    if (left == 0) {
      if (remaining != 1) return;
      const std::int64_t spread = current[0] - current[static_cast<std::size_t>(slots - 1)];
      if (spread < best_spread || (spread == best_spread && larger_from_the_smallest_end())) {
        best_spread = spread;
        best = current;
        have_best = true;
      }
      return;
    }
    if (remaining == 1) {
      // Everything left is 1.
      std::fill(current.begin() + depth, current.begin() + slots, 1);
      run(slots, 1, 1);
      return;
    }
    // Where the candidates for this entry (the largest of the `left` still
    // to choose) start. Below the first entry, every entry left must lie in
    // [current[0] - best_spread, current[0]] to match the best: if even that
    // floor is too big for the product, nothing below can work. The first
    // entry starts at the left-th root, which also bounds the smallest entry.
    std::int64_t start = 1;
    std::int64_t root = 0;
    if (depth > 0) {
      const std::int64_t floor_entry = current[0] - best_spread;
      if (floor_entry > 1 && power_capped(floor_entry, left, remaining) > remaining) return;
      start = std::max<std::int64_t>(floor_entry, 1);
    } else {
      root = floor_root(remaining, left);
      start = root;
    }
    if (left == 1) {
      if (remaining > high) return;
      current[static_cast<std::size_t>(depth)] = remaining;
      run(depth + 1, 1, remaining);
      return;
    }
    const auto end = divisors.begin() + static_cast<std::ptrdiff_t>(divisor_count);
    const auto rest = static_cast<std::uint32_t>(remaining);
    for (auto it = std::lower_bound(divisors.begin(), end, start); it != end && *it <= high && *it <= remaining; ++it) {
      const std::int64_t d = *it;
      if (rest % static_cast<std::uint32_t>(d) != 0) continue;
      // d is the largest of the entries left, so d^left >= remaining.
      if (power_capped(d, left, remaining) < remaining) continue;
      // The smallest entry is at most root: a larger first entry only widens the spread.
      if (depth == 0 && d - root > best_spread) break;
      current[static_cast<std::size_t>(depth)] = d;
      run(depth + 1, remaining / d, d);
    }
  }
};

// Writes the most balanced factorization of `product` into the zero entries
// of `dims`, largest first.
void fill_free_dims(std::uint32_t product, int slots, std::span<int> dims) {
  if (slots == 0) return;
  auto next_free = dims.begin();
  const auto put = [&](std::int64_t value) {
    next_free = std::find(next_free, dims.end(), 0);
    *next_free++ = static_cast<int>(value);
  };
  const Factorization f = factor(product);
  if (f.total <= slots) {
    // No more prime factors than slots: the primes themselves (then 1s) are
    // optimal, since merging any two raises the maximum or creates a 1.
    for (int i = f.distinct - 1; i >= 0; --i) {
      const PrimePower& power = f.powers[static_cast<std::size_t>(i)];
      for (int e = 0; e < power.exponent; ++e) put(power.prime);
    }
    for (int i = f.total; i < slots; ++i) put(1);
    return;
  }
  if (f.distinct == 1) {
    // p^e: exponents differing by at most one make the largest entry as small
    // and the smallest as large as they can be.
    const auto [prime, exponent] = f.powers[0];
    const int base = exponent / slots;
    const int bigger = exponent % slots;
    for (int i = 0; i < slots; ++i) put(power_capped(prime, base + (i < bigger ? 1 : 0), INT32_MAX));
    return;
  }
  // A perfect power (every exponent a multiple of slots): all entries equal.
  if (std::all_of(f.powers.begin(), f.powers.begin() + f.distinct,
                  [slots](const PrimePower& power) { return power.exponent % slots == 0; })) {
    std::int64_t root = 1;
    for (int i = 0; i < f.distinct; ++i) {
      const PrimePower& power = f.powers[static_cast<std::size_t>(i)];
      root *= power_capped(power.prime, power.exponent / slots, INT32_MAX);
    }
    for (int i = 0; i < slots; ++i) put(root);
    return;
  }
  thread_local BalancedSearch search;
  search.list_divisors(f);
  search.slots = slots;
  // A greedy answer bounds the search from the start: the largest prime
  // factors first, each into the slot with the smallest product. Ties with it
  // stay admissible, so the search still applies the tie rule.
  std::array<std::int64_t, kMaxSearchSlots> greedy;
  std::fill(greedy.begin(), greedy.begin() + slots, 1);
  for (int i = f.distinct - 1; i >= 0; --i) {
    const PrimePower& power = f.powers[static_cast<std::size_t>(i)];
    for (int e = 0; e < power.exponent; ++e) *std::min_element(greedy.begin(), greedy.begin() + slots) *= power.prime;
  }
  const auto [low_entry, high_entry] = std::minmax_element(greedy.begin(), greedy.begin() + slots);
  search.best_spread = *high_entry - *low_entry;
  search.have_best = false;
  std::fill(search.current.begin(), search.current.end(), 1);
  search.run(0, product, product);
  for (int i = 0; i < slots; ++i) put(search.best[static_cast<std::size_t>(i)]);
}

// Validates `dims` against nnodes and fills its zero entries in place.
void dims_create_in_place(int nnodes, std::span<int> dims) {
  if (nnodes < 1) {
    throw Error(MPI_ERR_ARG, std::string(kCaller) + ": nnodes = " + std::to_string(nnodes) + " must be positive");
  }
  std::int64_t preset = 1;
  int free_slots = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      throw Error(MPI_ERR_DIMS, std::string(kCaller) + ": dims[" + std::to_string(i) +
                                    "] = " + std::to_string(dims[i]) + " is negative");
    }
    if (dims[i] == 0) {
      ++free_slots;
    } else {
      preset *= dims[i];
      if (preset > nnodes) preset = std::int64_t{nnodes} + 1;  // cannot divide; keep it from overflowing
    }
  }
  if (nnodes % preset != 0 || (free_slots == 0 && preset != nnodes)) {
    std::string given;
    for (std::size_t i = 0; i < dims.size(); ++i) given += (i ? "," : "") + std::to_string(dims[i]);
    throw Error(MPI_ERR_DIMS, std::string(kCaller) + ": nnodes = " + std::to_string(nnodes) +
                                  " is not a multiple of the product of the preset dims (" + given + ")" +
                                  (free_slots == 0 ? " or differs from it" : ""));
  }
  fill_free_dims(static_cast<std::uint32_t>(nnodes / preset), free_slots, dims);
}

}  // namespace

std::vector<int> dims_create(int nnodes, std::span<const int> dims) {
  std::vector<int> result(dims.begin(), dims.end());
  dims_create_in_place(nnodes, result);
  return result;
}

std::vector<int> dims_create(int nnodes, int ndims) {
  if (ndims < 0) {
    throw Error(MPI_ERR_ARG, std::string(kCaller) + ": ndims = " + std::to_string(ndims) + " is negative");
  }
  std::vector<int> result(static_cast<std::size_t>(ndims), 0);
  dims_create_in_place(nnodes, result);
  return result;
}

void dims_create(int nnodes, int ndims, int dims[]) {
  if (ndims < 0) {
    throw Error(MPI_ERR_ARG, std::string(kCaller) + ": ndims = " + std::to_string(ndims) + " is negative");
  }
  if (ndims > 0 && dims == nullptr) {
    throw Error(MPI_ERR_ARG, std::string(kCaller) + ": dims is NULL with ndims = " + std::to_string(ndims));
  }
  // Validate before writing: on error the caller's array stays as it was.
  dims_create_in_place(nnodes, std::span<int>(dims, static_cast<std::size_t>(ndims)));
}

}  // namespace distopo
