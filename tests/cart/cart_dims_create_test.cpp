// dims_create: the standard's table, known wrong greedy answers, an exhaustive
// check against brute force, large and many-dimensional inputs, and errors.
// Local only: no MPI launch.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <vector>

#include "distopo/cart.hpp"

namespace {

using distopo::dims_create;

int error_class_of(int nnodes, std::vector<int> dims) {
  try {
    dims_create(nnodes, dims);
  } catch (const distopo::Error& error) {
    return error.error_class();
  }
  return MPI_SUCCESS;
}

// Brute force: every non-increasing factorization of n into `slots` factors;
// the smallest max - min wins, ties to the largest smallest entry, then the
// largest second smallest, and so on (MPICH's choice).
struct Brute {
  std::vector<int> divisors;
  std::vector<int> current;
  std::vector<int> best;
  int best_spread = INT_MAX;

  void run(std::size_t depth, int remaining, int high) {
    if (depth == current.size()) {
      if (remaining != 1) return;
      const int spread = current.front() - current.back();
      const bool better_tie = spread == best_spread && std::lexicographical_compare(best.rbegin(), best.rend(),
                                                                                    current.rbegin(), current.rend());
      if (spread < best_spread || better_tie) {
        best_spread = spread;
        best = current;
      }
      return;
    }
    for (int d : divisors) {
      if (d > high || d > remaining) break;
      if (remaining % d != 0) continue;
      current[depth] = d;
      run(depth + 1, remaining / d, d);
    }
  }
};

std::vector<int> brute_force(int n, int slots) {
  Brute brute;
  for (int d = 1; d <= n; ++d) {
    if (n % d == 0) brute.divisors.push_back(d);
  }
  brute.current.assign(static_cast<std::size_t>(slots), 0);
  brute.run(0, n, n);
  return brute.best;
}

TEST(DimsCreate, StandardTable) {
  EXPECT_EQ(dims_create(6, std::vector<int>{0, 0}), (std::vector<int>{3, 2}));
  EXPECT_EQ(dims_create(7, std::vector<int>{0, 0}), (std::vector<int>{7, 1}));
  EXPECT_EQ(dims_create(6, std::vector<int>{0, 3, 0}), (std::vector<int>{2, 3, 1}));
  EXPECT_EQ(error_class_of(7, {0, 3, 0}), MPI_ERR_DIMS);
}

TEST(DimsCreate, GreedyCounterexamples) {
  EXPECT_EQ(dims_create(72, 2), (std::vector<int>{9, 8}));
  EXPECT_EQ(dims_create(432, 3), (std::vector<int>{9, 8, 6}));
}

// Equally balanced answers: the larger smallest entry wins, then the larger
// second smallest, and so on, as MPICH's test suite (dims5) expects.
TEST(DimsCreate, TiesGoToTheLargerSmallestEntry) {
  EXPECT_EQ(dims_create(5040, 3), (std::vector<int>{21, 16, 15}));        // not 20 x 18 x 14
  EXPECT_EQ(dims_create(10800, 3), (std::vector<int>{27, 20, 20}));       // not 25 x 24 x 18
  EXPECT_EQ(dims_create(13104, 4), (std::vector<int>{14, 13, 9, 8}));     // not 13 x 12 x 12 x 7
  EXPECT_EQ(dims_create(5616, 4), (std::vector<int>{13, 9, 8, 6}));       // not 13 x 12 x 6 x 6
  EXPECT_EQ(dims_create(98784, 5), (std::vector<int>{14, 14, 9, 8, 7}));  // not 14 x 12 x 12 x 7 x 7
}

TEST(DimsCreate, RawArrayOverloadKeepsPresets) {
  int dims[4] = {0, 2, 0, 0};
  dims_create(24, 4, dims);
  EXPECT_EQ(std::vector<int>(dims, dims + 4), (std::vector<int>{3, 2, 2, 2}));
  int none[1] = {0};
  dims_create(1, 0, none);  // zero dimensions, nnodes 1: nothing to do
  EXPECT_EQ(none[0], 0);
}

TEST(DimsCreate, MatchesBruteForceUpTo3000In2And3And4Dims) {
  const auto start = std::chrono::steady_clock::now();
  for (int slots : {2, 3, 4}) {
    const int limit = slots == 4 ? 2000 : 3000;
    for (int n = 1; n <= limit; ++n) {
      const std::vector<int> expected = brute_force(n, slots);
      ASSERT_EQ(dims_create(n, slots), expected) << "n = " << n << ", ndims = " << slots;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0);
}

TEST(DimsCreate, PresetEntriesAgainstBruteForce) {
  for (int n = 1; n <= 600; ++n) {
    for (int preset : {2, 3, 5}) {
      if (n % preset != 0) {
        EXPECT_EQ(error_class_of(n, {0, preset, 0}), MPI_ERR_DIMS);
        continue;
      }
      const std::vector<int> free = brute_force(n / preset, 2);
      EXPECT_EQ(dims_create(n, std::vector<int>{0, preset, 0}), (std::vector<int>{free[0], preset, free[1]}));
    }
  }
}

TEST(DimsCreate, LargeValuesAreFast) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(dims_create(INT_MAX, 2), (std::vector<int>{INT_MAX, 1}));  // 2^31 - 1 is prime
  EXPECT_EQ(dims_create(1 << 30, 2), (std::vector<int>{32768, 32768}));
  EXPECT_EQ(dims_create(1 << 30, 3), (std::vector<int>{1024, 1024, 1024}));
  // 2147483629 is the largest prime below 2^31 - 1; 2147483646 = 2 * 3^2 * 7 * 11 * 31 * 151 * 331.
  EXPECT_EQ(dims_create(2147483629, 4), (std::vector<int>{2147483629, 1, 1, 1}));
  const std::vector<int> d = dims_create(2147483646, 4);
  std::int64_t product = 1;
  for (int x : d) product *= x;
  EXPECT_EQ(product, 2147483646);
  EXPECT_TRUE(std::is_sorted(d.rbegin(), d.rend()));
  // 46337^2 (square of a prime near sqrt(2^31)), and a highly composite number.
  EXPECT_EQ(dims_create(46337 * 46337, 2), (std::vector<int>{46337, 46337}));
  const std::vector<int> hc = dims_create(2 * 3 * 5 * 7 * 11 * 13 * 17 * 19 * 23, 8);
  std::int64_t hc_product = 1;
  for (int x : hc) hc_product *= x;
  EXPECT_EQ(hc_product, 223092870);
  for (int slots : {2, 3, 4, 8}) {
    for (int n : {2147483646, 2147483629, 2095133040, 1102701600, 1 << 30, 997 * 991 * 983}) {
      const std::vector<int> r = dims_create(n, slots);
      EXPECT_EQ(static_cast<int>(r.size()), slots);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 2.0);
}

TEST(DimsCreate, ManyDimensions) {
  const std::vector<int> d = dims_create(1 << 30, 100);
  ASSERT_EQ(d.size(), 100U);
  for (std::size_t i = 0; i < 100; ++i) EXPECT_EQ(d[i], i < 30 ? 2 : 1) << i;
  const std::vector<int> p = dims_create(INT_MAX, 64);
  EXPECT_EQ(p[0], INT_MAX);
  EXPECT_EQ(p[63], 1);
  // 4096 = 2^12 over 12 dims is perfectly balanced.
  EXPECT_EQ(dims_create(4096, 12), std::vector<int>(12, 2));
}

TEST(DimsCreate, Errors) {
  EXPECT_EQ(error_class_of(6, {-1, 0}), MPI_ERR_DIMS);
  EXPECT_EQ(error_class_of(6, {4, 0}), MPI_ERR_DIMS);
  EXPECT_EQ(error_class_of(6, {2, 2}), MPI_ERR_DIMS);  // fully preset, product differs
  EXPECT_EQ(error_class_of(6, {2, 3}), MPI_SUCCESS);
  EXPECT_EQ(error_class_of(0, {0, 0}), MPI_ERR_ARG);
  EXPECT_EQ(error_class_of(-4, {0}), MPI_ERR_ARG);
  EXPECT_EQ(error_class_of(5, {}), MPI_ERR_DIMS);  // zero dimensions hold exactly one process
  EXPECT_EQ(error_class_of(1, {}), MPI_SUCCESS);
  EXPECT_EQ(error_class_of(INT_MAX, {65536, 65536, 0}), MPI_ERR_DIMS);  // preset product overflows int
  try {
    dims_create(6, -1);
    ADD_FAILURE() << "no error for ndims = -1";
  } catch (const distopo::Error& error) {
    EXPECT_EQ(error.error_class(), MPI_ERR_ARG);
  }
  try {
    dims_create(7, std::vector<int>{0, 3, 0});
  } catch (const distopo::Error& error) {
    EXPECT_NE(std::string(error.what()).find("dims_create"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("7"), std::string::npos);
  }
}

}  // namespace
