#pragma once
// The communication patterns of the simulated neighborhood collectives: each
// a whole directed graph over P ranks, where an edge s -> d carries one block
// from s to d whose size is proportional to the edge's weight.
//
//   stencil27         a periodic 3-D grid of ranks (dimensions as
//                     MPI_Dims_create chooses them, ranks in row-major order,
//                     the last dimension fastest, as MPI_Cart_create numbers
//                     them without reordering): every rank exchanges with its
//                     26 neighbors, all blocks the same size.
//   laplace27_metis   the halo exchange of a sparse matrix-vector product: the
//                     27-point Laplacian of a 3-D grid of about P *
//                     points_per_rank points, partitioned into P parts with
//                     METIS (part i on rank i); an edge j -> i for every part j
//                     owning a point coupled to a point of part i, weighted by
//                     the number of such points of j (the values i needs from
//                     j), so block sizes vary along with the degrees.
//   matrix125_metis   the same for a matrix coupling every point with the
//                     points up to two steps away in each dimension (125
//                     points, as tri-quadratic finite elements or fourth-order
//                     differences do): more neighbors per part (6-60 at 64
//                     points per part).
//   random_kout       every rank sends to k distinct ranks drawn uniformly at
//                     random (not itself), all blocks the same size.
//
// The simulated ranks share one process (SMPI without privatization), so a
// pattern is built once and read by every rank: pattern_graph() returns the
// same object to all of them.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace smpi_bench {

struct PatternOptions {
  int kout = 16;             // random_kout: destinations per rank
  int points_per_rank = 64;  // *_metis: grid points per part (the largest cube of at most this many)
  unsigned seed = 1;         // random_kout and METIS
};

class CommGraph {
 public:
  CommGraph() = default;
  // Edges (source, destination, weight), any order; no duplicates.
  CommGraph(int size, std::vector<std::int64_t> out_first, std::vector<int> out_rank, std::vector<int> out_weight);

  [[nodiscard]] int size() const noexcept { return size_; }
  // Ranks `rank` sends to, ascending, and their weights.
  [[nodiscard]] std::span<const int> destinations(int rank) const { return slice(out_first_, out_rank_, rank); }
  [[nodiscard]] std::span<const int> destination_weights(int rank) const {
    return slice(out_first_, out_weight_, rank);
  }
  // Ranks `rank` receives from, ascending, and their weights.
  [[nodiscard]] std::span<const int> sources(int rank) const { return slice(in_first_, in_rank_, rank); }
  [[nodiscard]] std::span<const int> source_weights(int rank) const { return slice(in_first_, in_weight_, rank); }

  [[nodiscard]] std::int64_t edge_count() const noexcept { return static_cast<std::int64_t>(out_rank_.size()); }
  [[nodiscard]] double mean_weight() const noexcept { return mean_weight_; }
  // Out-degree range, and the share of edges whose two ranks lie on
  // different machine nodes of `ranks_per_node` consecutive ranks.
  [[nodiscard]] int min_degree() const;
  [[nodiscard]] int max_degree() const;
  [[nodiscard]] double off_node_share(int ranks_per_node) const;
  // Distinct (source node, destination node) pairs with an edge between two
  // different nodes: the messages that leave nodes when they are aggregated.
  [[nodiscard]] std::int64_t node_pairs(int ranks_per_node) const;
  // The same where graph node v lies on machine node node_of[v] (a
  // reordered communicator), and the share of the weight (bytes) that leaves
  // nodes.
  [[nodiscard]] double off_node_share(std::span<const int> node_of) const;
  [[nodiscard]] double off_node_weight_share(std::span<const int> node_of) const;
  [[nodiscard]] std::int64_t node_pairs(std::span<const int> node_of) const;
  // node_of for `ranks_per_node` consecutive ranks per node.
  [[nodiscard]] std::vector<int> consecutive_nodes(int ranks_per_node) const;

 private:
  static std::span<const int> slice(const std::vector<std::int64_t>& first, const std::vector<int>& values, int rank) {
    const auto r = static_cast<std::size_t>(rank);
    return std::span<const int>(values).subspan(static_cast<std::size_t>(first[r]),
                                                static_cast<std::size_t>(first[r + 1] - first[r]));
  }

  int size_ = 0;
  std::vector<std::int64_t> out_first_, in_first_;
  std::vector<int> out_rank_, out_weight_, in_rank_, in_weight_;
  double mean_weight_ = 1.0;
};

[[nodiscard]] const std::vector<std::string>& pattern_names();
[[nodiscard]] CommGraph make_pattern(const std::string& name, int size, const PatternOptions& options);
// make_pattern once per (name, size, options) for the whole process.
[[nodiscard]] const CommGraph& pattern_graph(const std::string& name, int size, const PatternOptions& options);

// The dimensions MPI_Dims_create(size, 3, {0, 0, 0}) returns: as close to
// each other as possible, non-increasing.
[[nodiscard]] std::vector<int> balanced_dims(int size, int ndims);

}  // namespace smpi_bench
