#include "neighbor_patterns.hpp"

#include <metis.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace smpi_bench {

CommGraph::CommGraph(int size, std::vector<std::int64_t> out_first, std::vector<int> out_rank,
                     std::vector<int> out_weight)
    : size_(size),
      out_first_(std::move(out_first)),
      out_rank_(std::move(out_rank)),
      out_weight_(std::move(out_weight)) {
  const auto n = static_cast<std::size_t>(size);
  // Each out-list ascending by destination.
  for (std::size_t r = 0; r < n; ++r) {
    const auto begin = static_cast<std::size_t>(out_first_[r]);
    const auto end = static_cast<std::size_t>(out_first_[r + 1]);
    std::vector<std::pair<int, int>> edges;
    for (std::size_t e = begin; e < end; ++e) edges.emplace_back(out_rank_[e], out_weight_[e]);
    std::sort(edges.begin(), edges.end());
    for (std::size_t e = begin; e < end; ++e) std::tie(out_rank_[e], out_weight_[e]) = edges[e - begin];
  }
  // In-lists by counting; sources come out ascending since sources are visited in order.
  in_first_.assign(n + 1, 0);
  for (const int d : out_rank_) ++in_first_[static_cast<std::size_t>(d) + 1];
  std::partial_sum(in_first_.begin(), in_first_.end(), in_first_.begin());
  in_rank_.resize(out_rank_.size());
  in_weight_.resize(out_rank_.size());
  std::vector<std::int64_t> next(in_first_.begin(), in_first_.end() - 1);
  for (std::size_t r = 0; r < n; ++r) {
    for (auto e = static_cast<std::size_t>(out_first_[r]); e < static_cast<std::size_t>(out_first_[r + 1]); ++e) {
      const auto slot = static_cast<std::size_t>(next[static_cast<std::size_t>(out_rank_[e])]++);
      in_rank_[slot] = static_cast<int>(r);
      in_weight_[slot] = out_weight_[e];
    }
  }
  double total = 0;
  for (const int w : out_weight_) total += w;
  mean_weight_ = out_weight_.empty() ? 1.0 : total / static_cast<double>(out_weight_.size());
}

int CommGraph::min_degree() const {
  int degree = size_ > 0 ? std::numeric_limits<int>::max() : 0;
  for (int r = 0; r < size_; ++r) degree = std::min(degree, static_cast<int>(destinations(r).size()));
  return degree;
}

int CommGraph::max_degree() const {
  int degree = 0;
  for (int r = 0; r < size_; ++r) degree = std::max(degree, static_cast<int>(destinations(r).size()));
  return degree;
}

std::vector<int> CommGraph::consecutive_nodes(int ranks_per_node) const {
  std::vector<int> node_of(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) node_of[static_cast<std::size_t>(r)] = r / ranks_per_node;
  return node_of;
}

double CommGraph::off_node_share(int ranks_per_node) const { return off_node_share(consecutive_nodes(ranks_per_node)); }

std::int64_t CommGraph::node_pairs(int ranks_per_node) const { return node_pairs(consecutive_nodes(ranks_per_node)); }

double CommGraph::off_node_share(std::span<const int> node_of) const {
  std::int64_t off = 0;
  for (int r = 0; r < size_; ++r) {
    for (const int d : destinations(r))
      off += node_of[static_cast<std::size_t>(d)] != node_of[static_cast<std::size_t>(r)];
  }
  return edge_count() == 0 ? 0.0 : static_cast<double>(off) / static_cast<double>(edge_count());
}

double CommGraph::off_node_weight_share(std::span<const int> node_of) const {
  double off = 0;
  double total = 0;
  for (int r = 0; r < size_; ++r) {
    const auto ranks = destinations(r);
    const auto weights = destination_weights(r);
    for (std::size_t k = 0; k < ranks.size(); ++k) {
      total += weights[k];
      if (node_of[static_cast<std::size_t>(ranks[k])] != node_of[static_cast<std::size_t>(r)]) off += weights[k];
    }
  }
  return total == 0 ? 0.0 : off / total;
}

std::int64_t CommGraph::node_pairs(std::span<const int> node_of) const {
  std::vector<std::pair<int, int>> pairs;
  for (int r = 0; r < size_; ++r) {
    const int from = node_of[static_cast<std::size_t>(r)];
    for (const int d : destinations(r)) {
      const int to = node_of[static_cast<std::size_t>(d)];
      if (to != from) pairs.emplace_back(from, to);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return static_cast<std::int64_t>(std::unique(pairs.begin(), pairs.end()) - pairs.begin());
}

std::vector<int> balanced_dims(int size, int ndims) {
  // Exhaustive over factorizations: the smallest largest-over-smallest
  // dimension, as MPI_Dims_create aims for.
  std::vector<int> best;
  std::vector<int> current;
  const auto search = [&](auto&& self, int rest, int max_factor) -> void {
    if (static_cast<int>(current.size()) == ndims - 1) {
      if (rest > max_factor) return;
      current.push_back(rest);
      if (best.empty() || current.front() - current.back() < best.front() - best.back()) best = current;
      current.pop_back();
      return;
    }
    for (int f = std::min(rest, max_factor); f >= 1; --f) {
      if (rest % f != 0) continue;
      current.push_back(f);
      self(self, rest / f, f);
      current.pop_back();
    }
  };
  search(search, size, size);
  return best;
}

namespace {

using Offsets = std::vector<std::array<int, 3>>;

// The offsets of a (2 radius + 1)^3-point stencil, the point itself excluded.
Offsets stencil_offsets(int radius = 1) {
  Offsets offsets;
  for (int a = -radius; a <= radius; ++a)
    for (int b = -radius; b <= radius; ++b)
      for (int c = -radius; c <= radius; ++c)
        if (a != 0 || b != 0 || c != 0) offsets.push_back({a, b, c});
  return offsets;
}

struct EdgeList {
  std::vector<std::int64_t> first;
  std::vector<int> rank;
  std::vector<int> weight;
};

CommGraph stencil27(int size) {
  const std::vector<int> dims = balanced_dims(size, 3);
  for (const int d : dims) {
    if (d < 3) throw std::invalid_argument("stencil27 needs every dimension >= 3 (no repeated neighbors): P too small");
  }
  EdgeList out;
  out.first.push_back(0);
  const Offsets offsets = stencil_offsets();
  for (int r = 0; r < size; ++r) {
    const int c0 = r / (dims[1] * dims[2]);
    const int c1 = (r / dims[2]) % dims[1];
    const int c2 = r % dims[2];
    for (const auto& [a, b, c] : offsets) {
      const int n0 = (c0 + a + dims[0]) % dims[0];
      const int n1 = (c1 + b + dims[1]) % dims[1];
      const int n2 = (c2 + c + dims[2]) % dims[2];
      out.rank.push_back((n0 * dims[1] + n1) * dims[2] + n2);
      out.weight.push_back(1);
    }
    out.first.push_back(static_cast<std::int64_t>(out.rank.size()));
  }
  return CommGraph(size, std::move(out.first), std::move(out.rank), std::move(out.weight));
}

CommGraph random_kout(int size, const PatternOptions& options) {
  if (options.kout >= size) throw std::invalid_argument("random_kout needs k < P");
  EdgeList out;
  out.first.push_back(0);
  for (int r = 0; r < size; ++r) {
    std::mt19937_64 engine(static_cast<std::uint64_t>(options.seed) * 0x9E3779B97F4A7C15ULL +
                           static_cast<std::uint64_t>(r));
    std::uniform_int_distribution<int> pick(0, size - 1);
    std::vector<int> chosen;
    while (static_cast<int>(chosen.size()) < options.kout) {
      const int d = pick(engine);
      if (d != r && std::find(chosen.begin(), chosen.end(), d) == chosen.end()) chosen.push_back(d);
    }
    for (const int d : chosen) {
      out.rank.push_back(d);
      out.weight.push_back(1);
    }
    out.first.push_back(static_cast<std::int64_t>(out.rank.size()));
  }
  return CommGraph(size, std::move(out.first), std::move(out.rank), std::move(out.weight));
}

CommGraph stencil_metis(int size, int radius, const PatternOptions& options) {
  // A grid of (edge * dims) points, about points_per_rank per part.
  const std::vector<int> dims = balanced_dims(size, 3);
  int edge = 1;
  while ((edge + 1) * (edge + 1) * (edge + 1) <= options.points_per_rank) ++edge;
  const std::array<int, 3> grid = {dims[0] * edge, dims[1] * edge, dims[2] * edge};
  const std::int64_t points = static_cast<std::int64_t>(grid[0]) * grid[1] * grid[2];
  const auto index = [&](int a, int b, int c) { return (static_cast<std::int64_t>(a) * grid[1] + b) * grid[2] + c; };
  const Offsets offsets = stencil_offsets(radius);

  // The matrix graph (27-point couplings, non-periodic) in METIS' CSR.
  std::vector<idx_t> xadj(static_cast<std::size_t>(points) + 1, 0);
  std::vector<idx_t> adjncy;
  adjncy.reserve(static_cast<std::size_t>(points) * offsets.size());
  for (int a = 0; a < grid[0]; ++a)
    for (int b = 0; b < grid[1]; ++b)
      for (int c = 0; c < grid[2]; ++c) {
        for (const auto& [da, db, dc] : offsets) {
          const int na = a + da, nb = b + db, nc = c + dc;
          if (na < 0 || nb < 0 || nc < 0 || na >= grid[0] || nb >= grid[1] || nc >= grid[2]) continue;
          adjncy.push_back(static_cast<idx_t>(index(na, nb, nc)));
        }
        xadj[static_cast<std::size_t>(index(a, b, c)) + 1] = static_cast<idx_t>(adjncy.size());
      }
  idx_t vertices = static_cast<idx_t>(points);
  idx_t constraints = 1;
  idx_t parts = size;
  idx_t cut = 0;
  std::vector<idx_t> part(static_cast<std::size_t>(points));
  std::array<idx_t, METIS_NOPTIONS> metis_options{};
  METIS_SetDefaultOptions(metis_options.data());
  metis_options[METIS_OPTION_SEED] = static_cast<idx_t>(options.seed);
  const int status = METIS_PartGraphKway(&vertices, &constraints, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr,
                                         &parts, nullptr, nullptr, metis_options.data(), &cut, part.data());
  if (status != METIS_OK) throw std::runtime_error("METIS_PartGraphKway failed");

  // Edge q -> p weighted by the points of q that some point of p couples to.
  std::unordered_map<std::int64_t, int> weight;  // key: source part * size + destination part
  std::vector<idx_t> needing;
  for (std::int64_t v = 0; v < points; ++v) {
    const idx_t owner = part[static_cast<std::size_t>(v)];
    needing.clear();
    for (idx_t e = xadj[static_cast<std::size_t>(v)]; e < xadj[static_cast<std::size_t>(v) + 1]; ++e) {
      const idx_t other = part[static_cast<std::size_t>(adjncy[static_cast<std::size_t>(e)])];
      if (other != owner && std::find(needing.begin(), needing.end(), other) == needing.end()) needing.push_back(other);
    }
    for (const idx_t p : needing) ++weight[static_cast<std::int64_t>(owner) * size + p];
  }
  std::vector<std::tuple<int, int, int>> edges;
  edges.reserve(weight.size());
  for (const auto& [key, w] : weight) edges.emplace_back(static_cast<int>(key / size), static_cast<int>(key % size), w);
  std::sort(edges.begin(), edges.end());
  EdgeList out;
  out.first.assign(static_cast<std::size_t>(size) + 1, 0);
  for (const auto& [s, d, w] : edges) {
    ++out.first[static_cast<std::size_t>(s) + 1];
    out.rank.push_back(d);
    out.weight.push_back(w);
  }
  std::partial_sum(out.first.begin(), out.first.end(), out.first.begin());
  return CommGraph(size, std::move(out.first), std::move(out.rank), std::move(out.weight));
}

}  // namespace

const std::vector<std::string>& pattern_names() {
  static const std::vector<std::string> names = {"stencil27", "laplace27_metis", "matrix125_metis", "random_kout"};
  return names;
}

CommGraph make_pattern(const std::string& name, int size, const PatternOptions& options) {
  if (name == "stencil27") return stencil27(size);
  if (name == "laplace27_metis") return stencil_metis(size, 1, options);
  if (name == "matrix125_metis") return stencil_metis(size, 2, options);
  if (name == "random_kout") return random_kout(size, options);
  throw std::invalid_argument("unknown pattern " + name);
}

const CommGraph& pattern_graph(const std::string& name, int size, const PatternOptions& options) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, int, int, int, unsigned>, std::unique_ptr<CommGraph>> built;
  const std::lock_guard lock(mutex);
  auto& slot = built[{name, size, options.kout, options.points_per_rank, options.seed}];
  if (!slot) slot = std::make_unique<CommGraph>(make_pattern(name, size, options));
  return *slot;
}

}  // namespace smpi_bench
