#pragma once
// Row-major grid arithmetic, the numbering cart_rank defines (the last
// dimension varies fastest): used by the Cartesian constructors and queries
// and by the neighborhood collectives' neighbor sequence.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "distopo/core/topology.hpp"

namespace distopo {

// Rank of `coords` (each within [0, dims[i])), and the inverse.
int grid_rank(std::span<const int> dims, std::span<const int> coords);
std::vector<int> grid_coords(std::span<const int> dims, int rank);

// Coordinate `c` along a dimension of extent `n`: wrapped when periodic,
// nullopt outside an open dimension.
std::optional<int> wrap_coordinate(std::int64_t c, int n, Periodicity periodicity);

// The rank `disp` steps (any displacement) from the calling rank along
// dimension `dim`; MPI_PROC_NULL past an open end.
int shifted_rank(const CartesianTopology& grid, std::size_t dim, std::int64_t disp);

// The standard's int flags (periods[i] != 0 means periodic) and back.
std::vector<int> period_flags(std::span<const Periodicity> periods);
Periodicity periodicity_of(int flag);

}  // namespace distopo
