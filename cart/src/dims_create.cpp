// dims_create: the most balanced factorization of nnodes / prod(preset) into
// the free dimensions. Factor into primes (trial division by a cached table of
// primes up to 46341, enough for any int), list the divisors, then a
// branch-and-bound search over non-increasing divisor sequences that minimizes
// max - min. The search visits sequences in lexicographic order and keeps only
// strict improvements, so among equally balanced answers the first one (the
// smallest largest entry, then lexicographically smallest) wins.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "distopo/cart.hpp"

namespace distopo {
namespace {

constexpr const char* kCaller = "dims_create";

const std::vector<int>& small_primes() {
  static const std::vector<int> primes = [] {
    constexpr int kLimit = 46341;  // > sqrt(INT_MAX)
    std::vector<bool> composite(kLimit + 1, false);
    std::vector<int> list;
    for (int i = 2; i <= kLimit; ++i) {
      if (composite[static_cast<std::size_t>(i)]) continue;
      list.push_back(i);
      for (std::int64_t j = std::int64_t{i} * i; j <= kLimit; j += i) composite[static_cast<std::size_t>(j)] = true;
    }
    return list;
  }();
  return primes;
}

struct PrimePower {
  std::int64_t prime;
  int exponent;
};

std::vector<PrimePower> factor(std::int64_t n) {
  std::vector<PrimePower> factors;
  for (int p : small_primes()) {
    if (std::int64_t{p} * p > n) break;
    if (n % p != 0) continue;
    int e = 0;
    while (n % p == 0) {
      n /= p;
      ++e;
    }
    factors.push_back({p, e});
  }
  if (n > 1) factors.push_back({n, 1});
  return factors;
}

std::vector<std::int64_t> divisors(const std::vector<PrimePower>& factors) {
  std::vector<std::int64_t> list{1};
  for (const auto& [prime, exponent] : factors) {
    const std::size_t count = list.size();
    std::int64_t power = 1;
    for (int e = 1; e <= exponent; ++e) {
      power *= prime;
      for (std::size_t i = 0; i < count; ++i) list.push_back(list[i] * power);
    }
  }
  std::sort(list.begin(), list.end());
  return list;
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
  auto r = static_cast<std::int64_t>(std::pow(static_cast<double>(n), 1.0 / s));
  r = std::max<std::int64_t>(r, 1);
  while (r > 1 && power_capped(r, s, n) > n) --r;
  while (power_capped(r + 1, s, n) <= n) ++r;
  return r;
}

struct BalancedSearch {
  std::vector<std::int64_t> divisors;  // of the whole product, ascending
  int slots = 0;
  std::vector<std::int64_t> current;
  std::vector<std::int64_t> best;
  std::int64_t best_spread = INT64_MAX;

  // Fills current[depth..] with a non-increasing sequence of `slots - depth`
  // divisors, each <= high, whose product is `remaining`.
  void run(int depth, std::int64_t remaining, std::int64_t high) {
    const int left = slots - depth;
    if (left == 0) {
      if (remaining != 1) return;
      const std::int64_t spread = current.front() - current.back();
      if (spread < best_spread) {
        best_spread = spread;
        best = current;
      }
      return;
    }
    if (remaining == 1) {
      // Everything left is 1.
      std::fill(current.begin() + depth, current.end(), 1);
      run(slots, 1, 1);
      return;
    }
    const std::int64_t root = floor_root(remaining, left);
    if (depth > 0 && current.front() - root >= best_spread) return;  // the last entry is at most root
    if (left == 1) {
      if (remaining > high) return;
      current[static_cast<std::size_t>(depth)] = remaining;
      run(depth + 1, 1, remaining);
      return;
    }
    // The largest of the remaining entries is at least ceil(remaining^(1/left)).
    const std::int64_t low = power_capped(root, left, remaining) == remaining ? root : root + 1;
    auto it = std::lower_bound(divisors.begin(), divisors.end(), low);
    for (; it != divisors.end() && *it <= high && *it <= remaining; ++it) {
      const std::int64_t d = *it;
      if (remaining % d != 0) continue;
      // Entries are non-increasing: the first one is the largest, and the
      // smallest cannot exceed root.
      const std::int64_t first = depth == 0 ? d : current.front();
      if (first - root >= best_spread) break;  // larger d only makes the first entry larger
      current[static_cast<std::size_t>(depth)] = d;
      run(depth + 1, remaining / d, d);
    }
  }
};

std::vector<std::int64_t> balanced_factors(std::int64_t product, int slots) {
  if (slots == 0) return {};
  const std::vector<PrimePower> factors = factor(product);
  int prime_count = 0;
  for (const auto& f : factors) prime_count += f.exponent;
  if (prime_count <= slots) {
    // No more prime factors than slots: the primes themselves (then 1s) are
    // optimal, since merging any two raises the maximum or creates a 1.
    std::vector<std::int64_t> result;
    for (auto it = factors.rbegin(); it != factors.rend(); ++it) {
      result.insert(result.end(), static_cast<std::size_t>(it->exponent), it->prime);
    }
    result.resize(static_cast<std::size_t>(slots), 1);
    return result;
  }
  BalancedSearch search;
  search.divisors = divisors(factors);
  search.slots = slots;
  search.current.assign(static_cast<std::size_t>(slots), 1);
  search.run(0, product, product);
  return search.best;
}

}  // namespace

std::vector<int> dims_create(int nnodes, std::span<const int> dims) {
  if (nnodes < 1) {
    throw Error(MPI_ERR_ARG, std::string(kCaller) + ": nnodes = " + std::to_string(nnodes) + " must be positive");
  }
  std::int64_t preset = 1;
  int free_slots = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      throw Error(MPI_ERR_DIMS, std::string(kCaller) + ": dims[" + std::to_string(i) + "] = " +
                                    std::to_string(dims[i]) + " is negative");
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
  const std::vector<std::int64_t> factors = balanced_factors(nnodes / preset, free_slots);
  std::vector<int> result(dims.begin(), dims.end());
  std::size_t next = 0;
  for (int& d : result) {
    if (d == 0) d = static_cast<int>(factors[next++]);
  }
  return result;
}

std::vector<int> dims_create(int nnodes, int ndims) {
  if (ndims < 0) {
    throw Error(MPI_ERR_ARG, std::string(kCaller) + ": ndims = " + std::to_string(ndims) + " is negative");
  }
  return dims_create(nnodes, std::vector<int>(static_cast<std::size_t>(ndims), 0));
}

void dims_create(int nnodes, int ndims, int dims[]) {
  if (ndims < 0) {
    throw Error(MPI_ERR_ARG, std::string(kCaller) + ": ndims = " + std::to_string(ndims) + " is negative");
  }
  if (ndims > 0 && dims == nullptr) {
    throw Error(MPI_ERR_ARG, std::string(kCaller) + ": dims is NULL with ndims = " + std::to_string(ndims));
  }
  const std::vector<int> result = dims_create(nnodes, std::span<const int>(dims, static_cast<std::size_t>(ndims)));
  std::copy(result.begin(), result.end(), dims);
}

}  // namespace distopo
