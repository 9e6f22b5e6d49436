// The per-end work of dist_graph_create on one rank, stage by stage, for
// inputs whose ends do not repeat (weights distinct below 2^30):
// - distopo_own_sort: a rank's own edges sorted by (neighbor, weight) into
//   its list (sort_own_edges), n edges among P neighbors;
// - distopo_lists_of_runs: the lists of a rank that received its ends as
//   runs from `senders` ranks, each of its 2P groups (direction, neighbor)
//   split among the senders, unsorted (what the hub of powerlaw and the
//   receivers of rank0_whole get) or one sorted run per group from its
//   neighbor (random_kout, incoming_only), messages placed and accepted as
//   the exchange does, then the lists written;
// - distopo_lists_of_keys: the same from single ends (keys messages), n
//   ends among 2P groups, spread evenly or mostly on one neighbor (a hub);
// - distopo_lists_of_rmat_hub: the lists of powerlaw's hub (rank 0), with
//   and without its self-loops' in-list sorted once for both directions;
// - distopo_own_list_of_keys: a rank's out-list from n out-ends received as
//   keys (going by source), sorted in their memory or into a list of its own;
// - distopo_sort_weights: one group's weights, n of them (new weights each
//   time: a comparison sort learns a repeated input's branches), spread as
//   the other benchmarks' (random:0, a multiplicative hash of the index:
//   very even) or drawn at random (random:1);
// - distopo_validate: checking a rank's input (n entries of one edge each).
// Fresh memory every time, as in a one-off call.
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "distopo/distgraph.hpp"
#include "edge_inbox.hpp"
#include "edge_input.hpp"
#include "edge_lists.hpp"
#include "end_messages.hpp"
#include "graph_families.hpp"
#include "own_edges.hpp"
#include "radix_sort.hpp"

namespace {

int distinct_weight(std::size_t i) { return 1 + static_cast<int>((i * 2654435761U) & 0x3fffffffU); }

void own_sort_bench(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto ranks = static_cast<int>(state.range(1));
  std::mt19937 random(static_cast<unsigned>(n));
  const int source = 0;
  const int degree = static_cast<int>(n);
  std::vector<int> destinations(n);
  std::vector<int> weights(n);
  for (std::size_t i = 0; i < n; ++i) {
    destinations[i] = static_cast<int>(random() % static_cast<unsigned>(ranks));
    weights[i] = distinct_weight(i);
  }
  const distopo::detail::ArrayEdges edges(1, &source, &degree, destinations.data(), weights.data(), true);
  distopo::detail::InputExtent extent;
  if (edges.validate(0, ranks, extent)) state.SkipWithError("invalid input");
  for (auto _ : state) {
    const distopo::detail::OwnList list = distopo::detail::sort_own_edges(edges, extent, true, true);
    benchmark::DoNotOptimize(list.ranks());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}
BENCHMARK(own_sort_bench)
    ->Name("distopo_own_sort")
    ->ArgNames({"n", "P"})
    ->ArgsProduct({{10000, 1000000}, {4, 16}})
    ->Unit(benchmark::kMicrosecond);

// A runs message (end_messages.hpp) of one sender: `groups` holds the
// weights of the in-ends from rank g at g < ranks, of the out-ends to rank
// g - ranks after them; empty groups send no run.
std::vector<int> runs_message(const std::vector<std::vector<int>>& groups, std::size_t ranks) {
  std::vector<int> message{0};
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].empty()) continue;
    ++message[0];
    message.push_back(static_cast<int>(distopo::detail::direction_rank(g >= ranks, static_cast<int>(g % ranks))));
    message.push_back(static_cast<int>(groups[g].size()));
    message.push_back(distopo::detail::kWeightsFollow);
  }
  for (const std::vector<int>& group : groups) message.insert(message.end(), group.begin(), group.end());
  return message;
}

// The messages a rank receives: n ends spread over 2P groups.
std::vector<std::vector<int>> runs_messages(std::size_t n, int ranks, int senders, bool sorted_from_neighbor) {
  std::vector<std::vector<std::vector<int>>> weights(  // [sender][group]
      static_cast<std::size_t>(senders), std::vector<std::vector<int>>(2 * static_cast<std::size_t>(ranks)));
  std::mt19937 random(static_cast<unsigned>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t group = random() % weights.front().size();
    const std::size_t sender =
        sorted_from_neighbor ? group % static_cast<std::size_t>(ranks) : random() % weights.size();
    weights[sender % weights.size()][group].push_back(distinct_weight(i));
  }
  std::vector<std::vector<int>> messages;
  for (auto& groups : weights) {
    if (sorted_from_neighbor) {
      for (std::vector<int>& group : groups) std::sort(group.begin(), group.end());
    }
    messages.push_back(runs_message(groups, static_cast<std::size_t>(ranks)));
  }
  return messages;
}

// Each iteration: a fresh inbox of rank `self` among `ranks` takes `messages`
// (of `kind`, one per sender) as the exchange places and accepts them, then
// writes the lists; `ends` items per iteration.
void time_lists(benchmark::State& state, int ranks, distopo::detail::MessageKind kind,
                const std::vector<std::vector<int>>& messages, std::size_t ends, int self = distopo::detail::kNoSelf) {
  for (auto _ : state) {
    distopo::detail::EdgeInbox inbox(ranks, true, false);
    inbox.prepare();
    int source = 0;
    for (const std::vector<int>& message : messages) {
      int* at = inbox.place(source++, kind, static_cast<int>(message.size()));
      std::copy(message.begin(), message.end(), at);
      if (inbox.accept() != distopo::detail::Rejection::none) state.SkipWithError("rejected");
    }
    const distopo::DistGraphTopology lists = std::move(inbox).lists(self);
    benchmark::DoNotOptimize(lists.sources.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(ends));
}

void lists_of_runs_bench(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto ranks = static_cast<int>(state.range(1));
  const auto senders = static_cast<int>(state.range(2));
  const bool sorted = state.range(3) != 0;
  time_lists(state, ranks, distopo::detail::MessageKind::runs,
             runs_messages(n, ranks, sorted ? ranks : senders, sorted), n);
}
BENCHMARK(lists_of_runs_bench)
    ->Name("distopo_lists_of_runs")
    ->ArgNames({"n", "P", "senders", "sorted"})
    ->Args({20000, 4, 4, 0})
    ->Args({2000000, 4, 1, 0})
    ->Args({4600000, 4, 4, 0})
    ->Args({2000000, 16, 16, 0})
    ->Args({2000000, 4, 4, 1})
    ->Unit(benchmark::kMicrosecond);

// What rank 0 receives as the hub of `powerlaw` (R-MAT, graph_families.hpp)
// on `ranks` ranks, distinct weights: from each rank, the ends of its input
// that rank 0 stores, as runs by (direction, neighbor), the way the outbox
// packs them; `ends` gets their number. Its self-loops (edges 0 -> 0) give it
// one end in each direction.
std::vector<std::vector<int>> rmat_hub_messages(int ranks, int edges_per_rank, std::size_t& ends) {
  std::vector<std::vector<int>> messages;
  ends = 0;
  const auto groups_per_direction = static_cast<std::size_t>(ranks);
  for (int sender = 0; sender < ranks; ++sender) {
    bench::LocalEdges edges = bench::make_family("powerlaw", sender, ranks, edges_per_rank, 1);
    bench::make_weights_distinct(edges);
    std::vector<std::vector<int>> groups(2 * groups_per_direction);  // in from g, then out to g
    std::size_t k = 0;
    for (int i = 0; i < edges.n(); ++i) {
      const int source = edges.sources[static_cast<std::size_t>(i)];
      for (int e = 0; e < edges.degrees[static_cast<std::size_t>(i)]; ++e, ++k) {
        const int destination = edges.destinations[k];
        if (source == 0)
          groups[groups_per_direction + static_cast<std::size_t>(destination)].push_back(edges.weights[k]);
        if (destination == 0) groups[static_cast<std::size_t>(source)].push_back(edges.weights[k]);
      }
    }
    for (const std::vector<int>& group : groups) ends += group.size();
    messages.push_back(runs_message(groups, groups_per_direction));
  }
  return messages;
}

// The hub's lists, its in-list from itself sorted once for both directions
// (`self` 1: dist_graph_create's way) or each sorted on its own (0).
void lists_of_rmat_hub_bench(benchmark::State& state) {
  const auto ranks = static_cast<int>(state.range(0));
  std::size_t ends = 0;
  const std::vector<std::vector<int>> messages = rmat_hub_messages(ranks, static_cast<int>(state.range(1)), ends);
  time_lists(state, ranks, distopo::detail::MessageKind::runs, messages, ends,
             state.range(2) != 0 ? 0 : distopo::detail::kNoSelf);
  state.counters["hub_ends"] = static_cast<double>(ends);
}
BENCHMARK(lists_of_rmat_hub_bench)
    ->Name("distopo_lists_of_rmat_hub")
    ->ArgNames({"P", "edges_per_rank", "self"})
    ->ArgsProduct({{4, 16}, {10000, 100000, 1000000}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

// A rank's out-list from the n out-ends sent to it as keys (the second
// round of a create that goes by source), among P destinations: sorted in
// the keys' own memory (`in_place`: EdgeInbox::by_source_as_own_list), or
// into a list of its own as any input of own edges (sort_own_edges). Each
// time the keys arrive anew.
void own_list_of_keys_bench(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto ranks = static_cast<unsigned>(state.range(1));
  const bool in_place = state.range(2) != 0;
  std::mt19937 random(static_cast<unsigned>(n));
  std::vector<distopo::EdgeKey> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = distopo::pack_edge(distopo::EdgeDirection::out, static_cast<int>(random() % ranks), distinct_weight(i));
  }
  for (auto _ : state) {
    distopo::detail::EdgeInbox inbox(static_cast<int>(ranks), true, false);
    std::copy(keys.begin(), keys.end(), inbox.by_source_keys().append(n));
    if (in_place) {
      const distopo::detail::OwnList list = inbox.by_source_as_own_list();
      benchmark::DoNotOptimize(list.ranks());
    } else {
      const distopo::detail::OwnOutEnds input(0, inbox.by_source(), true);
      distopo::detail::InputExtent extent;
      if (input.validate(0, static_cast<int>(ranks), extent)) state.SkipWithError("invalid input");
      const distopo::detail::OwnList list = distopo::detail::sort_own_edges(input, extent, true, true);
      benchmark::DoNotOptimize(list.ranks());
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}
BENCHMARK(own_list_of_keys_bench)
    ->Name("distopo_own_list_of_keys")
    ->ArgNames({"n", "P", "in_place"})
    ->ArgsProduct({{10000, 100000, 1000000}, {8, 256}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

// The lists of a rank that received its n ends as single ends (keys
// messages, one per sender): what the hub of powerlaw gets where P is too
// large for runs. `hub`: 7 in 8 ends have neighbor 0.
void lists_of_keys_bench(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto ranks = static_cast<unsigned>(state.range(1));
  const bool hub = state.range(2) != 0;
  std::mt19937 random(static_cast<unsigned>(n));
  std::vector<std::vector<int>> messages(ranks);  // keys, two ints each
  for (std::size_t i = 0; i < n; ++i) {
    const auto direction = random() % 2 == 0 ? distopo::EdgeDirection::in : distopo::EdgeDirection::out;
    const int neighbor = hub && random() % 8 != 0 ? 0 : static_cast<int>(random() % ranks);
    const distopo::EdgeKey key = distopo::pack_edge(direction, neighbor, distinct_weight(i));
    int ints[2];
    std::memcpy(ints, &key, sizeof(key));
    std::vector<int>& message = messages[random() % ranks];
    message.insert(message.end(), ints, ints + 2);
  }
  time_lists(state, static_cast<int>(ranks), distopo::detail::MessageKind::keys, messages, n);
}
BENCHMARK(lists_of_keys_bench)
    ->Name("distopo_lists_of_keys")
    ->ArgNames({"n", "P", "hub"})
    ->ArgsProduct({{10000, 100000, 1000000}, {16, 256}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

void sort_weights_bench(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const bool random_weights = state.range(1) != 0;
  std::vector<int> weights(n);
  std::vector<int> scratch(n);
  std::vector<std::uint32_t> counts(distopo::detail::RadixPlan::kCounters);
  std::mt19937 random(43);
  std::size_t round = 0;
  for (auto _ : state) {
    state.PauseTiming();
    ++round;
    // The bits that vary, as the lists' writers read them off the weights.
    std::uint32_t any = 0;
    std::uint32_t all = ~std::uint32_t{0};
    for (std::size_t i = 0; i < n; ++i) {
      weights[i] = random_weights ? static_cast<int>(random() & 0x3fffffffU) : distinct_weight(i + round * 7919);
      any |= static_cast<std::uint32_t>(weights[i]);
      all &= static_cast<std::uint32_t>(weights[i]);
    }
    state.ResumeTiming();
    distopo::detail::sort_weights(weights.data(), scratch.data(), n, any, all, counts.data());
    benchmark::DoNotOptimize(weights.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}
BENCHMARK(sort_weights_bench)
    ->Name("distopo_sort_weights")
    ->ArgNames({"n", "random"})
    ->ArgsProduct({{128, 512, 1000, 2000, 10000, 30000, 100000, 1000000, 4000000}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

void validate_bench(benchmark::State& state) {
  const auto n = static_cast<int>(state.range(0));
  std::vector<int> sources(static_cast<std::size_t>(n));
  const std::vector<int> degrees(static_cast<std::size_t>(n), 1);
  const std::vector<int> destinations(static_cast<std::size_t>(n), 0);
  std::vector<int> weights(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    sources[static_cast<std::size_t>(i)] = i % 4;
    weights[static_cast<std::size_t>(i)] = distinct_weight(static_cast<std::size_t>(i));
  }
  const distopo::detail::ArrayEdges edges(n, sources.data(), degrees.data(), destinations.data(), weights.data(), true);
  for (auto _ : state) {
    distopo::detail::InputExtent extent;
    if (edges.validate(0, 4, extent)) state.SkipWithError("invalid input");
    benchmark::DoNotOptimize(extent.edges);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * n);
}
BENCHMARK(validate_bench)->Name("distopo_validate")->ArgName("n")->Arg(10000)->Arg(1000000);

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
