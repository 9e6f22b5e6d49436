// The sending side of dist_graph_create before the exchange, on one rank's
// input of 10^6 edges with distinct weights among P = 4 and 16 ranks, in the
// shapes of the heavy benchmark's families: one source entry of 10^6
// destinations (random_kout, rank0_whole), 10^6 entries of one edge each to
// this rank (incoming_only), and 10^6 entries of one edge each between any
// two ranks (scattered: powerlaw's shape, without its skew).
//
// distopo_bucket_ends: the edge ends bucketed by the rank that stores them
// as single ends (PeerBuckets over edge_ends, what dist_graph_create does
// when the ranks named are many), with the owners looked up in a dense array
// (dense:1) or hashed (dense:0), fresh buffers each time as in a one-off
// call. distopo_outbox: the whole sending side as dist_graph_create runs it
// (for these inputs: runs by owner, direction and neighbor; for one entry of
// this rank's own edges: its sorted list). distopo_tally_give_up: what the
// tally of repeated edges costs before it gives up on an input whose edges do
// not repeat.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "edge_inbox.hpp"
#include "edge_input.hpp"
#include "edge_keys.hpp"
#include "edge_outbox.hpp"
#include "end_tally.hpp"
#include "peer_buckets.hpp"

namespace {

constexpr int kEdges = 1000000;

enum class Shape : int { one_entry = 0, single_edges = 1, scattered = 2 };

struct Input {
  std::vector<int> sources;
  std::vector<int> degrees;
  std::vector<int> destinations;
  std::vector<int> weights;

  [[nodiscard]] distopo::detail::ArrayEdges edges() const {
    return {
        static_cast<int>(sources.size()), sources.data(), degrees.data(), destinations.data(), weights.data(), true};
  }
};

// Rank 0's input.
Input make_input(Shape shape, int ranks) {
  std::mt19937 random(static_cast<unsigned>(ranks));
  std::uniform_int_distribution<int> any_rank(0, ranks - 1);
  std::uniform_int_distribution<int> any_weight(0, (1 << 30) - 1);
  Input input;
  if (shape == Shape::one_entry) {
    input.sources = {0};
    input.degrees = {kEdges};
    for (int e = 0; e < kEdges; ++e) input.destinations.push_back(any_rank(random));
  } else {
    for (int e = 0; e < kEdges; ++e) {
      input.sources.push_back(any_rank(random));
      input.degrees.push_back(1);
      input.destinations.push_back(shape == Shape::scattered ? any_rank(random) : 0);
    }
  }
  for (int e = 0; e < kEdges; ++e) input.weights.push_back(any_weight(random));
  return input;
}

void bucket_bench(benchmark::State& state) {
  const auto ranks = static_cast<int>(state.range(1));
  const Input input = make_input(static_cast<Shape>(state.range(0)), ranks);
  const distopo::detail::ArrayEdges edges = input.edges();
  distopo::detail::InputExtent extent;
  if (edges.validate(0, ranks, extent)) state.SkipWithError("invalid input");
  const std::size_t max_dense = state.range(2) != 0 ? 2 * static_cast<std::size_t>(kEdges) : 0;
  for (auto _ : state) {
    distopo::detail::KeyBuffer own;
    const distopo::detail::PeerBuckets buckets(0, distopo::detail::edge_ends(edges, extent), own, extent.ranks,
                                               max_dense);
    benchmark::DoNotOptimize(own.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 2 * kEdges);
}
BENCHMARK(bucket_bench)
    ->Name("distopo_bucket_ends")
    ->ArgNames({"single_edges", "P", "dense"})
    ->ArgsProduct({{0, 1}, {4, 16}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

void outbox_bench(benchmark::State& state) {
  const auto ranks = static_cast<int>(state.range(1));
  const Input input = make_input(static_cast<Shape>(state.range(0)), ranks);
  const distopo::detail::ArrayEdges edges = input.edges();
  distopo::detail::InputExtent extent;
  if (edges.validate(0, ranks, extent)) state.SkipWithError("invalid input");
  for (auto _ : state) {
    distopo::detail::EdgeInbox inbox(ranks, true, false);
    inbox.prepare();
    const distopo::detail::EdgeOutbox outbox(0, true, edges, extent, inbox);
    benchmark::DoNotOptimize(outbox.messages().data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 2 * kEdges);
}
BENCHMARK(outbox_bench)
    ->Name("distopo_outbox")
    ->ArgNames({"shape", "P"})
    ->ArgsProduct({{0, 1, 2}, {4, 16}})
    ->Unit(benchmark::kMicrosecond);

void tally_bench(benchmark::State& state) {
  const Input input = make_input(Shape::single_edges, 4);
  const distopo::detail::ArrayEdges edges = input.edges();
  for (auto _ : state) {
    // dist_graph_create's limit for 10^6 edges: 2^16 distinct edges.
    const auto tally = distopo::detail::EndTally::of(edges, std::size_t{1} << 16);
    if (tally) state.SkipWithError("the edges were tallied");
  }
}
BENCHMARK(tally_bench)->Name("distopo_tally_give_up")->Unit(benchmark::kMicrosecond);

// The tally of an input that repeats: the heavy families' weights (1-4, a
// function of the two ranks), so 10^6 edges are a few dozen distinct ones.
void tally_repeated_bench(benchmark::State& state) {
  const auto shape = static_cast<Shape>(state.range(0));
  Input input = make_input(shape, 4);
  for (std::size_t e = 0; e < input.weights.size(); ++e) {
    const int source = shape == Shape::one_entry ? input.sources[0] : input.sources[e];
    input.weights[e] = 1 + (source + input.destinations[e]) % 4;
  }
  const distopo::detail::ArrayEdges edges = input.edges();
  for (auto _ : state) {
    const auto tally = distopo::detail::EndTally::of(edges, std::size_t{1} << 16);
    if (!tally) state.SkipWithError("the edges were not tallied");
    benchmark::DoNotOptimize(tally->runs(true).data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kEdges);
}
BENCHMARK(tally_repeated_bench)
    ->Name("distopo_tally_repeated")
    ->ArgNames({"single_edges"})
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
