#pragma once
// Topologies for the neighborhood collective tests, each with an independent
// answer to "which block lands in which receive slot": for every in-slot of
// the calling rank, the sending rank and the out-slot (at the sender) whose
// block belongs there. Computed from the definitions (Cartesian coordinates,
// k-th occurrence of repeated edges), not from distopo's posting orders.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "distopo/cart.hpp"
#include "distopo/distgraph.hpp"
#include "distopo/graph.hpp"
#include "distopo/neighbor.hpp"
#include "mpi_testing.hpp"

namespace distopo::testing {

struct Case {
  std::string name;
  distopo::Comm comm;          // null on ranks outside the topology
  std::vector<int> in_ranks;   // in-slot -> source (MPI_PROC_NULL possible)
  std::vector<int> in_from;    // in-slot -> the source's out-slot
  std::vector<int> out_ranks;  // out-slot -> destination
  bool mpich_correct = true;   // MPICH 4.0's own MPI_Neighbor_* gives the same answer
};

// Position of the k-th (0-based) occurrence of `value` in `list`, or -1.
inline int kth_position(const std::vector<int>& list, int value, int k) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i] == value && k-- == 0) return static_cast<int>(i);
  }
  return -1;
}

inline Case cartesian_case(const std::string& name, std::vector<int> dims, std::vector<distopo::Periodicity> periods) {
  Case c;
  c.name = name;
  int cells = 1;
  for (int d : dims) cells *= d;
  if (cells > world_size()) return c;
  c.comm = distopo::cart_create(MPI_COMM_WORLD, dims, periods);
  if (c.comm.is_null()) return c;
  // Coordinates of our rank (row-major), and the rank at given coordinates.
  std::vector<int> coords(dims.size());
  int rest = c.comm.rank();
  for (std::size_t d = dims.size(); d-- > 0;) {
    coords[d] = rest % dims[d];
    rest /= dims[d];
  }
  auto rank_at = [&](std::vector<int> at) {
    int r = 0;
    for (std::size_t d = 0; d < dims.size(); ++d) r = r * dims[d] + at[d];
    return r;
  };
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const bool periodic = periods[d] == distopo::periodic;
    if (periodic && dims[d] <= 2) c.mpich_correct = false;
    for (int step : {-1, +1}) {
      std::vector<int> at = coords;
      at[d] += step;
      if (periodic) at[d] = (at[d] % dims[d] + dims[d]) % dims[d];
      const bool exists = at[d] >= 0 && at[d] < dims[d];
      c.in_ranks.push_back(exists ? rank_at(at) : MPI_PROC_NULL);
      // The neighbor at -1 sent us its +1 block, the one at +1 its -1 block.
      c.in_from.push_back(static_cast<int>(2 * d) + (step < 0 ? 1 : 0));
    }
  }
  c.out_ranks = c.in_ranks;
  return c;
}

// Rank r's expected pairing: for each in-edge the slot its source sends it
// from (the k-th edge from b is b's k-th out-edge to r), and its out-edges.
inline void record_pairing(Case& c, int r, const std::vector<std::vector<int>>& in,
                           const std::vector<std::vector<int>>& out) {
  std::map<int, int> seen;
  for (int b : in[static_cast<std::size_t>(r)]) {
    const int k = seen[b]++;
    c.in_ranks.push_back(b);
    c.in_from.push_back(kth_position(out[static_cast<std::size_t>(b)], r, k));
  }
  c.out_ranks = out[static_cast<std::size_t>(r)];
}

// Undirected multigraph with self-loops on all ranks: ring edges doubled,
// a self-loop at every even rank, a chord 0 - p/2; each rank's list shuffled.
inline Case graph_case(unsigned seed) {
  Case c;
  c.name = "graph_multi_selfloop";
  c.mpich_correct = false;  // MPICH 4.0 reverses the blocks of repeated graph edges
  const int p = world_size();
  std::vector<std::vector<int>> lists(static_cast<std::size_t>(p));
  auto edge = [&](int a, int b) {
    lists[static_cast<std::size_t>(a)].push_back(b);
    if (a != b) lists[static_cast<std::size_t>(b)].push_back(a);
  };
  for (int r = 0; r < p; ++r) {
    edge(r, (r + 1) % p);
    edge(r, (r + 1) % p);
    if (r % 2 == 0) edge(r, r);
  }
  edge(0, p / 2);
  std::mt19937 rng(seed);
  for (auto& list : lists) std::shuffle(list.begin(), list.end(), rng);
  std::vector<int> index, edges;
  for (const auto& list : lists) {
    edges.insert(edges.end(), list.begin(), list.end());
    index.push_back(static_cast<int>(edges.size()));
  }
  c.comm = distopo::graph_create(MPI_COMM_WORLD, index, edges);
  record_pairing(c, c.comm.rank(), lists, lists);
  return c;
}

// The case's communicator from every rank's in and out lists (unweighted).
inline void adopt_adjacency(Case& c, const std::vector<std::vector<int>>& in,
                            const std::vector<std::vector<int>>& out) {
  const int r = world_rank();
  distopo::DistGraphOptions options;
  options.weighted = false;
  c.comm = distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, in[static_cast<std::size_t>(r)], {},
                                               out[static_cast<std::size_t>(r)], {}, options);
  record_pairing(c, r, in, out);
}

// Random directed multigraph (self-loops, repeated edges, isolated ranks),
// created with dist_graph_create_adjacent; sources in a shuffled order.
inline Case dist_graph_case(unsigned seed, int max_out, bool allow_repeats = true) {
  Case c;
  c.name = "dist_graph_random_" + std::to_string(seed);
  c.mpich_correct = !allow_repeats;  // MPICH 4.0 mispairs repeated edges
  const int p = world_size();
  std::mt19937 rng(seed);
  std::vector<std::vector<int>> out(static_cast<std::size_t>(p)), in(static_cast<std::size_t>(p));
  for (int a = 0; a < p; ++a) {
    const int degree = std::uniform_int_distribution<int>(0, max_out)(rng);
    for (int i = 0; i < degree; ++i) {
      const int b = std::uniform_int_distribution<int>(0, p - 1)(rng);
      auto& list = out[static_cast<std::size_t>(a)];
      if (!allow_repeats && std::find(list.begin(), list.end(), b) != list.end()) continue;
      list.push_back(b);
      in[static_cast<std::size_t>(b)].push_back(a);
    }
  }
  for (auto& list : in) std::shuffle(list.begin(), list.end(), rng);
  adopt_adjacency(c, in, out);
  return c;
}

// Dense multigraph: between every ordered pair of ranks (self included) a
// random number of edges, `min_edges` to 24, so that (by default) some pairs
// carry at least as many edges as distopo puts in one message (16,
// kCoalesceSlots in plan.hpp) and some fewer; both edge lists shuffled, so the edges of
// one pair interleave with the others'.
inline Case dense_multigraph_case(unsigned seed, int min_edges = 0) {
  Case c;
  c.name = "dense_multigraph_" + std::to_string(seed);
  c.mpich_correct = false;  // MPICH 4.0 mispairs repeated edges
  const int p = world_size();
  std::mt19937 rng(seed);
  std::vector<std::vector<int>> out(static_cast<std::size_t>(p)), in(static_cast<std::size_t>(p));
  for (int a = 0; a < p; ++a) {
    for (int b = 0; b < p; ++b) {
      const int edges = std::uniform_int_distribution<int>(min_edges, 24)(rng);
      for (int e = 0; e < edges; ++e) {
        out[static_cast<std::size_t>(a)].push_back(b);
        in[static_cast<std::size_t>(b)].push_back(a);
      }
    }
  }
  for (auto& list : out) std::shuffle(list.begin(), list.end(), rng);
  for (auto& list : in) std::shuffle(list.begin(), list.end(), rng);
  adopt_adjacency(c, in, out);
  return c;
}

// Every case at the current process count (ranks outside a case get a null comm).
inline std::vector<Case> all_cases() {
  using distopo::open;
  using distopo::periodic;
  std::vector<Case> cases;
  cases.push_back(cartesian_case("ring1", {1}, {periodic}));
  cases.push_back(cartesian_case("ring2", {2}, {periodic}));
  cases.push_back(cartesian_case("ring3", {3}, {periodic}));
  cases.push_back(cartesian_case("line_open", {world_size()}, {open}));
  const int p = world_size();
  cases.push_back(cartesian_case("grid2d_mixed", distopo::dims_create(p, 2), {periodic, open}));
  cases.push_back(cartesian_case("grid3d_mixed", distopo::dims_create(p, 3), {open, periodic, periodic}));
  cases.push_back(cartesian_case("grid3d_size1_periodic", {1, 1, p}, {periodic, periodic, open}));
  cases.push_back(graph_case(7));
  cases.push_back(dist_graph_case(11, 4));
  cases.push_back(dist_graph_case(12, 6));
  cases.push_back(dist_graph_case(13, 3, /*allow_repeats=*/false));
  cases.push_back(dist_graph_case(14, 0));  // nobody has neighbors
  cases.push_back(dense_multigraph_case(15));
  return cases;
}

}  // namespace distopo::testing
