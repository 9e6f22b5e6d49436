// The local sort of dist_graph_create: distopo::sort_keys (Kokkos radix sort
// of packed (direction, rank, weight) keys) against std::sort on the same keys.
// Inputs are what a rank sees after the exchange: n edge ends whose ranks are
// spread over P ranks, with constant weights (the common unweighted case) or
// random ones, or skewed towards a few hub ranks.
//
// Kokkos' thread count is the benchmark's own: --kokkos-threads=N (or
// OMP_NUM_THREADS) in an OpenMP build of Kokkos; the output's context names
// the execution space and its threads. std::sort always runs on one thread.
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "distopo/distgraph/edge_key.hpp"
#include "distopo/distgraph/key_sort.hpp"

namespace {

enum class Weights : int { constant = 0, random = 1 };
enum class Spread : int { uniform = 0, hubs = 1 };

std::vector<distopo::EdgeKey> make_keys(std::size_t n, int ranks, Weights weights, Spread spread) {
  std::mt19937_64 random(n * 7919 + static_cast<std::size_t>(ranks));
  std::uniform_int_distribution<int> any_rank(0, ranks - 1);
  std::uniform_int_distribution<int> hub(0, 7);
  std::uniform_int_distribution<int> any_weight(0, 1 << 20);
  std::bernoulli_distribution to_hub(0.8);
  std::vector<distopo::EdgeKey> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto direction = (i & 1) ? distopo::EdgeDirection::out : distopo::EdgeDirection::in;
    const int rank = spread == Spread::hubs && to_hub(random) ? hub(random) : any_rank(random);
    keys[i] = distopo::pack_edge(direction, rank, weights == Weights::constant ? 1 : any_weight(random));
  }
  return keys;
}

template <bool kDistopo>
void sort_bench(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto input = make_keys(n, static_cast<int>(state.range(1)), static_cast<Weights>(state.range(2)),
                               static_cast<Spread>(state.range(3)));
  std::vector<distopo::EdgeKey> keys(n);
  for (auto _ : state) {
    state.PauseTiming();
    keys = input;
    state.ResumeTiming();
    if constexpr (kDistopo)
      distopo::sort_keys(keys);
    else
      std::sort(keys.begin(), keys.end());
    benchmark::DoNotOptimize(keys.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}

// n from 64 to 4M keys (and 10^6, the size the parallel sort is judged at);
// P = 1e3 and 1e5; constant/random weights; uniform/hub ranks.
void arguments(benchmark::internal::Benchmark* bench) {
  bench->ArgNames({"n", "P", "random_weights", "hubs"});
  for (std::int64_t n : {64, 1024, 2048, 4096, 8192, 16384, 262144, 1000000, 4194304}) {
    for (std::int64_t p : {1000, 100000}) {
      for (std::int64_t weights : {0, 1}) bench->Args({n, p, weights, 0});
      bench->Args({n, p, 0, 1});
    }
  }
}

BENCHMARK(sort_bench<true>)->Name("distopo_sort_keys")->Apply(arguments)->Unit(benchmark::kMicrosecond);
BENCHMARK(sort_bench<false>)->Name("std_sort")->Apply(arguments)->Unit(benchmark::kMicrosecond);

// What the memory allows one radix pass, on Kokkos' threads: `copy` reads and
// writes n keys in order; `scatter` writes them where a pass over a random
// 11-bit digit would (2048 write streams; destinations precomputed, so it
// also reads 8 bytes more per key). How much faster 2 threads make these is
// the most they can make a pass faster.
enum class Pattern : int { copy = 0, scatter = 1 };

void memory_bench(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto pattern = static_cast<Pattern>(state.range(1));
  constexpr int kDigitBits = 11;
  Kokkos::View<distopo::EdgeKey*, Kokkos::HostSpace> from("from", n);
  Kokkos::View<distopo::EdgeKey*, Kokkos::HostSpace> to("to", n);
  Kokkos::View<std::size_t*, Kokkos::HostSpace> destination("destination", n);
  std::mt19937_64 random(n);
  std::vector<std::size_t> start(std::size_t{1} << kDigitBits, 0);
  std::vector<unsigned> digit(n);
  for (std::size_t i = 0; i < n; ++i) {
    from(i) = random();
    digit[i] = static_cast<unsigned>(from(i) & ((1U << kDigitBits) - 1));
    ++start[digit[i]];
  }
  std::size_t sum = 0;
  for (auto& s : start) sum += std::exchange(s, sum);
  for (std::size_t i = 0; i < n; ++i) destination(i) = pattern == Pattern::copy ? i : start[digit[i]]++;
  const Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace> range(0, n);
  for (auto _ : state) {
    if (pattern == Pattern::copy) {
      Kokkos::parallel_for("copy", range, [=](std::size_t i) { to(i) = from(i); });
    } else {
      Kokkos::parallel_for("scatter", range, [=](std::size_t i) { to(destination(i)) = from(i); });
    }
    Kokkos::fence();
    benchmark::DoNotOptimize(to.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}
BENCHMARK(memory_bench)
    ->Name("memory_pass")
    ->ArgNames({"n", "scatter"})
    ->ArgsProduct({{1000000, 4194304}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);  // takes --kokkos-threads=N out of argv
  benchmark::AddCustomContext("kokkos_execution_space", Kokkos::DefaultHostExecutionSpace::name());
  benchmark::AddCustomContext("kokkos_threads", std::to_string(Kokkos::DefaultHostExecutionSpace().concurrency()));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
