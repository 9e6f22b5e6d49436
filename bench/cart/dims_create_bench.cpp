// distopo::dims_create against MPICH's MPI_Dims_create, same inputs, same run.
// Inputs: small and highly composite counts, powers of two, the largest
// primes below 2^31, and 2^31 - 2; 2, 3, 4 and 8 dimensions.
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <algorithm>
#include <vector>

#include "distopo/cart.hpp"

namespace {

const std::vector<long long> kNodes = {
    1000,        // small
    720720,      // highly composite
    1102701600,  // highly composite, near 2^30
    1073741824,  // 2^30
    2147483646,  // 2^31 - 2 = 2 * 3^2 * 7 * 11 * 31 * 151 * 331
    2147483629,  // largest prime below 2^31 - 1
    2147483647,  // 2^31 - 1, prime
    2147117569,  // 46337^2, square of a prime near sqrt(2^31)
};

void distopo_dims(benchmark::State& state) {
  const auto nnodes = static_cast<int>(state.range(0));
  const auto ndims = static_cast<int>(state.range(1));
  std::vector<int> dims(static_cast<std::size_t>(ndims));
  for (auto _ : state) {
    // The in-place overload, as MPI_Dims_create is called (and as the C API forwards).
    std::fill(dims.begin(), dims.end(), 0);
    distopo::dims_create(nnodes, ndims, dims.data());
    benchmark::DoNotOptimize(dims.data());
  }
}

void mpich_dims(benchmark::State& state) {
  const auto nnodes = static_cast<int>(state.range(0));
  const auto ndims = static_cast<int>(state.range(1));
  std::vector<int> dims(static_cast<std::size_t>(ndims));
  for (auto _ : state) {
    std::fill(dims.begin(), dims.end(), 0);
    MPI_Dims_create(nnodes, ndims, dims.data());
    benchmark::DoNotOptimize(dims.data());
  }
}

// MPICH 4.0.2 dies with SIGFPE (integer divide by zero) in MPI_Dims_create on
// these primes, so it is not timed on them.
bool mpich_crashes_on(long long n) { return n == 2147483629 || n == 2147483647; }

void distopo_arguments(benchmark::internal::Benchmark* benchmark) {
  for (long long n : kNodes) {
    for (long long d : {2, 3, 4, 8}) benchmark->Args({n, d});
  }
}

void mpich_arguments(benchmark::internal::Benchmark* benchmark) {
  for (long long n : kNodes) {
    if (mpich_crashes_on(n)) continue;
    for (long long d : {2, 3, 4, 8}) benchmark->Args({n, d});
  }
}

BENCHMARK(distopo_dims)->Apply(distopo_arguments);
BENCHMARK(mpich_dims)->Apply(mpich_arguments);

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  MPI_Finalize();
  return 0;
}
