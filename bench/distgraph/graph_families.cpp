#include "graph_families.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "distopo/cart.hpp"

namespace bench {
namespace {

int weight_of(int source, int destination) { return 1 + (source + destination) % 4; }

// One entry (source, degree) per `max_degree` destinations (all of them in
// one entry when max_degree is 0; an entry of degree 0 when there are none).
void add_source(LocalEdges& edges, int source, const std::vector<int>& destinations, int max_degree = 0) {
  const std::size_t piece =
      max_degree > 0 ? static_cast<std::size_t>(max_degree) : std::max<std::size_t>(destinations.size(), 1);
  std::size_t first = 0;
  do {
    const std::size_t count = std::min(piece, destinations.size() - first);
    edges.sources.push_back(source);
    edges.degrees.push_back(static_cast<int>(count));
    for (std::size_t i = first; i < first + count; ++i) {
      edges.destinations.push_back(destinations[i]);
      edges.weights.push_back(weight_of(source, destinations[i]));
    }
    first += count;
  } while (first < destinations.size());
}

// Periodic 2*ndims-point stencil on the most balanced grid of `size` ranks.
std::vector<int> stencil_neighbors(int rank, int size, int ndims) {
  const std::vector<int> dims = distopo::dims_create(size, ndims);
  std::vector<int> coords(dims.size());
  for (int d = static_cast<int>(dims.size()) - 1, r = rank; d >= 0; --d) {
    coords[static_cast<std::size_t>(d)] = r % dims[static_cast<std::size_t>(d)];
    r /= dims[static_cast<std::size_t>(d)];
  }
  std::vector<int> neighbors;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    for (int step : {-1, 1}) {
      std::vector<int> c = coords;
      c[d] = (c[d] + step + dims[d]) % dims[d];
      int linear = 0;
      for (std::size_t e = 0; e < dims.size(); ++e) linear = linear * dims[e] + c[e];
      neighbors.push_back(linear);
    }
  }
  return neighbors;
}

std::vector<int> random_targets(int rank, int size, int count, unsigned seed) {
  std::mt19937 random(seed * 2654435761U + static_cast<unsigned>(rank));
  std::uniform_int_distribution<int> any(0, size - 1);
  std::vector<int> targets(static_cast<std::size_t>(count));
  for (int& t : targets) t = any(random);
  return targets;
}

// R-MAT: pick a quadrant per bit with probabilities (a, b, c, d) =
// (0.57, 0.19, 0.19, 0.05): low ranks become hubs. Draws outside [0, size)
// are redrawn.
std::pair<int, int> rmat_edge(std::mt19937& random, int size) {
  int bits = 0;
  while ((1 << bits) < size) ++bits;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (;;) {
    int s = 0;
    int d = 0;
    for (int b = 0; b < bits; ++b) {
      const double u = unit(random);
      const int quadrant = u < 0.57 ? 0 : u < 0.76 ? 1 : u < 0.95 ? 2 : 3;
      s = (s << 1) | (quadrant >> 1);
      d = (d << 1) | (quadrant & 1);
    }
    if (s < size && d < size) return {s, d};
  }
}

}  // namespace

const std::vector<std::string>& family_names() {
  static const std::vector<std::string> names = {"ring",     "stencil2d",   "stencil3d",     "random_kout",
                                                 "powerlaw", "rank0_whole", "incoming_only", "unique_pairs"};
  return names;
}

LocalEdges make_family(const std::string& family, int rank, int size, int edges_per_rank, unsigned seed,
                       int max_degree) {
  LocalEdges edges;
  if (family == "ring") {
    add_source(edges, rank, {(rank + 1) % size, (rank + size - 1) % size});
  } else if (family == "stencil2d" || family == "stencil3d") {
    add_source(edges, rank, stencil_neighbors(rank, size, family == "stencil2d" ? 2 : 3));
  } else if (family == "random_kout") {
    add_source(edges, rank, random_targets(rank, size, edges_per_rank, seed), max_degree);
  } else if (family == "powerlaw") {
    std::mt19937 random(seed * 40503U + static_cast<unsigned>(rank));
    for (int i = 0; i < edges_per_rank; ++i) {
      const auto [s, d] = rmat_edge(random, size);
      add_source(edges, s, {d});
    }
  } else if (family == "rank0_whole") {
    // The random k-out graph of every rank, all given by rank 0.
    if (rank == 0) {
      for (int r = 0; r < size; ++r) add_source(edges, r, random_targets(r, size, edges_per_rank, seed), max_degree);
    }
  } else if (family == "incoming_only") {
    // Each rank names only edges into itself, from random senders.
    for (int s : random_targets(rank, size, edges_per_rank, seed + 1)) add_source(edges, s, {rank});
  } else if (family == "unique_pairs") {
    // No (source, destination) pair twice, so no edge end repeats even
    // unweighted: rank r gives (r, r + k mod P) for its first
    // min(edges_per_rank, P) offsets k, in random order (possible only up to
    // P edges per rank).
    std::vector<int> offsets(static_cast<std::size_t>(size));
    for (int k = 0; k < size; ++k) offsets[static_cast<std::size_t>(k)] = k;
    std::mt19937 random(seed * 7919U + static_cast<unsigned>(rank));
    std::shuffle(offsets.begin(), offsets.end(), random);
    offsets.resize(static_cast<std::size_t>(std::min(edges_per_rank, size)));
    for (int& k : offsets) k = (rank + k) % size;
    add_source(edges, rank, offsets, max_degree);
  } else {
    throw std::invalid_argument("unknown graph family: " + family);
  }
  return edges;
}

void make_weights_distinct(LocalEdges& edges) {
  for (std::size_t i = 0; i < edges.weights.size(); ++i) {
    edges.weights[i] = 1 + static_cast<int>((i * 2654435761U) & 0x3fffffffU);
  }
}

void make_weights_random(LocalEdges& edges, unsigned seed) {
  std::mt19937 random(seed);
  for (int& weight : edges.weights) weight = static_cast<int>(random() & 0x3fffffffU);
}

}  // namespace bench
