#include "reorder_graphs.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

#include "distopo/cart.hpp"

namespace bench {
namespace {

struct StencilShape {
  int ndims;
  bool permuted;
  int x_weight;  // weight of the edges along the first dimension
};

StencilShape stencil_shape(const std::string& family) {
  if (family == "stencil2d") return {2, false, 1};
  if (family == "stencil2d_permuted") return {2, true, 1};
  if (family == "stencil3d") return {3, false, 1};
  if (family == "stencil3d_permuted") return {3, true, 1};
  if (family == "aniso2d") return {2, false, 10};
  return {0, false, 1};
}

Adjacency stencil(int size, const StencilShape& shape, unsigned seed) {
  const std::vector<int> dims = distopo::dims_create(size, shape.ndims);
  std::vector<int> number(static_cast<std::size_t>(size));
  std::iota(number.begin(), number.end(), 0);
  if (shape.permuted) {
    std::mt19937 generator(seed);
    std::shuffle(number.begin(), number.end(), generator);
  }
  Adjacency adjacency(static_cast<std::size_t>(size));
  std::vector<int> coords(static_cast<std::size_t>(shape.ndims));
  for (int cell = 0; cell < size; ++cell) {
    for (int d = shape.ndims - 1, rest = cell; d >= 0; --d) {
      coords[static_cast<std::size_t>(d)] = rest % dims[static_cast<std::size_t>(d)];
      rest /= dims[static_cast<std::size_t>(d)];
    }
    int stride = 1;
    for (int d = shape.ndims - 1; d >= 0; --d) {
      const int weight = d == 0 ? shape.x_weight : 1;
      const int c = coords[static_cast<std::size_t>(d)];
      auto& list = adjacency[static_cast<std::size_t>(number[static_cast<std::size_t>(cell)])];
      if (c > 0) list.emplace_back(number[static_cast<std::size_t>(cell - stride)], weight);
      if (c + 1 < dims[static_cast<std::size_t>(d)]) {
        list.emplace_back(number[static_cast<std::size_t>(cell + stride)], weight);
      }
      stride *= dims[static_cast<std::size_t>(d)];
    }
  }
  return adjacency;
}

// Points in the unit square joined within the radius that gives 8 neighbors
// on average; the points come in random order, so the numbering is random.
Adjacency random_geometric(int size, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<std::pair<double, double>> points(static_cast<std::size_t>(size));
  for (auto& point : points) point = {uniform(generator), uniform(generator)};
  const double radius = std::sqrt(8.0 / (M_PI * size));
  const int cells = std::max(1, static_cast<int>(1.0 / radius));
  const auto cell_of = [&](double coordinate) { return std::min(cells - 1, static_cast<int>(coordinate * cells)); };
  std::vector<std::vector<int>> buckets(static_cast<std::size_t>(cells) * static_cast<std::size_t>(cells));
  for (int v = 0; v < size; ++v) {
    const auto [x, y] = points[static_cast<std::size_t>(v)];
    buckets[static_cast<std::size_t>(cell_of(x) * cells + cell_of(y))].push_back(v);
  }
  Adjacency adjacency(static_cast<std::size_t>(size));
  for (int v = 0; v < size; ++v) {
    const auto [x, y] = points[static_cast<std::size_t>(v)];
    for (int cx = std::max(0, cell_of(x) - 1); cx <= std::min(cells - 1, cell_of(x) + 1); ++cx) {
      for (int cy = std::max(0, cell_of(y) - 1); cy <= std::min(cells - 1, cell_of(y) + 1); ++cy) {
        for (const int u : buckets[static_cast<std::size_t>(cx * cells + cy)]) {
          const auto [ux, uy] = points[static_cast<std::size_t>(u)];
          if (u != v && std::hypot(ux - x, uy - y) <= radius) adjacency[static_cast<std::size_t>(v)].emplace_back(u, 1);
        }
      }
    }
    std::sort(adjacency[static_cast<std::size_t>(v)].begin(), adjacency[static_cast<std::size_t>(v)].end());
  }
  return adjacency;
}

}  // namespace

const std::vector<std::string>& reorder_family_names() {
  static const std::vector<std::string> names = {
      "stencil2d", "stencil2d_permuted", "stencil3d", "stencil3d_permuted", "aniso2d", "rgg"};
  return names;
}

Adjacency make_reorder_graph(const std::string& family, int size, unsigned seed) {
  if (family == "rgg") return random_geometric(size, seed);
  const StencilShape shape = stencil_shape(family);
  if (shape.ndims == 0) throw std::invalid_argument("unknown reorder family " + family);
  return stencil(size, shape, seed);
}

std::int64_t best_block_crossing(const std::string& family, int size, int ranks_per_node) {
  const StencilShape shape = stencil_shape(family);
  if (shape.ndims == 0) return -1;
  const std::vector<int> dims = distopo::dims_create(size, shape.ndims);
  std::int64_t best = -1;
  // Every block shape (b0, b1[, b2]) with b0 * b1 * b2 = ranks_per_node that tiles the grid.
  std::vector<int> block(static_cast<std::size_t>(shape.ndims), 1);
  const auto consider = [&] {
    std::int64_t cut = 0;
    for (int d = 0; d < shape.ndims; ++d) {
      const std::int64_t planes = dims[static_cast<std::size_t>(d)] / block[static_cast<std::size_t>(d)] - 1;
      const std::int64_t per_plane = size / dims[static_cast<std::size_t>(d)];
      cut += 2 * planes * per_plane * (d == 0 ? shape.x_weight : 1);
    }
    if (best < 0 || cut < best) best = cut;
  };
  for (int b0 = 1; b0 <= ranks_per_node; ++b0) {
    for (int b1 = 1; b0 * b1 <= ranks_per_node; ++b1) {
      if (ranks_per_node % (b0 * b1) != 0) continue;
      const int b2 = ranks_per_node / (b0 * b1);
      if (shape.ndims == 2 && b2 != 1) continue;
      block = shape.ndims == 2 ? std::vector<int>{b0, b1} : std::vector<int>{b0, b1, b2};
      bool tiles = true;
      for (int d = 0; d < shape.ndims; ++d) {
        tiles = tiles && dims[static_cast<std::size_t>(d)] % block[static_cast<std::size_t>(d)] == 0;
      }
      if (tiles) consider();
    }
  }
  return best;
}

}  // namespace bench
