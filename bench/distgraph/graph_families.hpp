#pragma once
// The graph families of the scaling study, as each rank would hand them to
// MPI_Dist_graph_create: (n, sources, degrees, destinations, weights).
// Deterministic for a given (family, rank, size, edges_per_rank, seed).
#include <string>
#include <vector>

namespace bench {

struct LocalEdges {
  std::vector<int> sources;
  std::vector<int> degrees;
  std::vector<int> destinations;
  std::vector<int> weights;
  [[nodiscard]] int n() const { return static_cast<int>(sources.size()); }
  [[nodiscard]] std::size_t edge_count() const { return destinations.size(); }
};

// ring, stencil2d, stencil3d, random_kout, powerlaw, rank0_whole, incoming_only,
// unique_pairs (no (source, destination) pair twice: at most P edges per rank).
const std::vector<std::string>& family_names();

// Throws std::invalid_argument for an unknown family. `edges_per_rank` is the
// degree of the families that have one (random_kout, powerlaw, rank0_whole,
// incoming_only); ring and stencils have their natural degree. `max_degree`
// (0: no limit) splits the k-out families' edges of one source into entries
// of at most that many edges (degrees[i] <= max_degree, the source repeated),
// as a program that gives its edges in pieces would; powerlaw and
// incoming_only give every edge as its own entry already.
LocalEdges make_family(const std::string& family, int rank, int size, int edges_per_rank, unsigned seed,
                       int max_degree = 0);

// Gives the edges distinct weights in no particular order (i -> 1 + i * odd
// mod 2^30 is one-to-one), so that none of this rank's edges repeats. Every
// rank gives its i-th edge the same weight: edges that several ranks give
// between the same two ranks (R-MAT's hub) may still repeat.
void make_weights_distinct(LocalEdges& edges);

// Gives the edges weights drawn at random below 2^30 (`seed`: a rank's own),
// as uneven as real weights spread over their range: the hash above spreads
// them so evenly that a sort's buckets each hold one or two. A few ends may
// repeat (about n^2 / 2^31 of a rank's n).
void make_weights_random(LocalEdges& edges, unsigned seed);

}  // namespace bench
