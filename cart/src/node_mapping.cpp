#include "distopo/cart/node_mapping.hpp"

#include <limits>

namespace distopo {
namespace {

// Search budget: the number of ways to spread ranks_per_node over many
// dimensions can grow quickly; the best block found so far is kept.
constexpr std::int64_t kMaxVisits = 1 << 20;

struct BlockSearch {
  std::span<const int> dims;
  std::span<const Periodicity> periods;
  std::vector<int> current;
  std::optional<std::vector<int>> best;
  std::int64_t best_cut = std::numeric_limits<std::int64_t>::max();
  std::int64_t visits = 0;

  void run(std::size_t d, int remaining) {
    if (++visits > kMaxVisits && best) return;
    if (d == dims.size()) {
      if (remaining != 1) return;
      const std::int64_t cut = block_cut(dims, periods, current);
      if (cut < best_cut) {
        best_cut = cut;
        best = current;
      }
      return;
    }
    // Larger blocks along earlier dimensions are tried first; ties keep the first.
    for (int f = remaining; f >= 1; --f) {
      if (remaining % f != 0 || dims[d] % f != 0) continue;
      current[d] = f;
      run(d + 1, remaining / f);
    }
    current[d] = 1;
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
  BlockSearch search{dims, periods, std::vector<int>(dims.size(), 1), std::nullopt};
  search.run(0, ranks_per_node);
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
