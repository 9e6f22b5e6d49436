#include "cartesian_blocks.hpp"

#include <limits>

namespace distopo {
namespace {

// Search budget: the number of ways to spread ranks_per_node over many
// dimensions can grow quickly; the best block found so far is kept.
constexpr std::int64_t kMaxVisits = 1 << 20;

// Depth-first over the dimensions: the factor of ranks_per_node each one
// takes, larger factors first. A loop with an explicit stack, not recursion:
// grids may have any number of dimensions (hundreds of thousands of size 1).
struct BlockSearch {
  std::span<const int> dims;
  std::span<const Periodicity> periods;
  std::optional<std::vector<int>> best;
  std::int64_t best_cut = std::numeric_limits<std::int64_t>::max();

  void run(int ranks_per_node) {
    const std::size_t n = dims.size();
    std::vector<int> current(n, 1);
    std::vector<int> remaining(n + 1, 1);  // of ranks_per_node, before dimension d takes its factor
    std::vector<int> next(n + 1, 0);       // the next factor to try at dimension d
    remaining[0] = ranks_per_node;
    next[0] = ranks_per_node;
    std::int64_t visits = 1;
    std::size_t d = 0;
    while (true) {
      if (d == n) {
        if (remaining[n] == 1) consider(current);
        if (n == 0) return;
        --d;
        continue;
      }
      int f = next[d];
      while (f >= 1 && (remaining[d] % f != 0 || dims[d] % f != 0)) --f;
      if (f < 1) {  // dimension d has tried every factor: back up
        current[d] = 1;
        if (d == 0) return;
        --d;
        continue;
      }
      next[d] = f - 1;
      current[d] = f;
      remaining[d + 1] = remaining[d] / f;
      next[d + 1] = remaining[d + 1];
      ++d;
      if (++visits > kMaxVisits && best) return;
    }
  }

  void consider(const std::vector<int>& inner) {
    const std::int64_t cut = block_cut(dims, periods, inner);
    if (cut < best_cut) {  // ties keep the first
      best_cut = cut;
      best = inner;
    }
  }
};

}  // namespace

std::int64_t block_cut(std::span<const int> dims, std::span<const Periodicity> periods, std::span<const int> inner) {
  std::int64_t total = 1;
  for (int d : dims) total *= d;
  std::int64_t cut = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const std::int64_t node_dim = dims[i] / inner[i];
    const bool wraps = periods[i] == Periodicity::periodic;
    // Cut positions along one line of dimension i, each crossed in both directions.
    const std::int64_t positions = wraps ? (node_dim > 1 ? node_dim : 0) : node_dim - 1;
    cut += 2 * positions * (total / dims[i]);
  }
  return cut;
}

std::optional<std::vector<int>> plan_node_block(std::span<const int> dims, std::span<const Periodicity> periods,
                                                int ranks_per_node) {
  if (ranks_per_node < 1 || dims.size() != periods.size()) return std::nullopt;
  std::int64_t total = 1;
  for (int d : dims) {
    if (d < 1) return std::nullopt;
    total *= d;
  }
  if (total % ranks_per_node != 0) return std::nullopt;
  BlockSearch search{dims, periods, std::nullopt};
  search.run(ranks_per_node);
  return search.best;
}

int node_block_rank(std::span<const int> dims, std::span<const int> inner, int node, int local) {
  std::vector<int> node_dims(dims.size());
  for (std::size_t i = 0; i < dims.size(); ++i) node_dims[i] = dims[i] / inner[i];
  std::vector<int> coords = grid_coords(node_dims, node);
  const std::vector<int> inner_coords = grid_coords(inner, local);
  for (std::size_t i = 0; i < dims.size(); ++i) coords[i] = coords[i] * inner[i] + inner_coords[i];
  return grid_rank(dims, coords);
}

}  // namespace distopo
