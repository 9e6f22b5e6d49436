#include "distopo/core/grid.hpp"

#include <mpi.h>

namespace distopo {

int grid_rank(std::span<const int> dims, std::span<const int> coords) {
  std::int64_t rank = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) rank = rank * dims[i] + coords[i];
  return static_cast<int>(rank);
}

std::vector<int> grid_coords(std::span<const int> dims, int rank) {
  std::vector<int> coords(dims.size());
  for (std::size_t i = dims.size(); i-- > 0;) {
    coords[i] = rank % dims[i];
    rank /= dims[i];
  }
  return coords;
}

std::optional<int> wrap_coordinate(std::int64_t c, int n, Periodicity periodicity) {
  if (periodicity == Periodicity::periodic) return static_cast<int>(((c % n) + n) % n);
  if (c >= 0 && c < n) return static_cast<int>(c);
  return std::nullopt;
}

int shifted_rank(const CartesianTopology& grid, std::size_t dim, std::int64_t disp) {
  const int own = grid.coords[dim];
  const std::optional<int> c = wrap_coordinate(own + disp, grid.dims[dim], grid.periods[dim]);
  if (!c) return MPI_PROC_NULL;
  std::int64_t stride = 1;
  for (std::size_t i = dim + 1; i < grid.dims.size(); ++i) stride *= grid.dims[i];
  return static_cast<int>(grid_rank(grid.dims, grid.coords) + (*c - own) * stride);
}

std::vector<int> period_flags(std::span<const Periodicity> periods) {
  std::vector<int> flags;
  flags.reserve(periods.size());
  for (Periodicity p : periods) flags.push_back(p == Periodicity::periodic ? 1 : 0);
  return flags;
}

Periodicity periodicity_of(int flag) { return flag != 0 ? Periodicity::periodic : Periodicity::open; }

}  // namespace distopo
