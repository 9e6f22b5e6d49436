// Local Cartesian queries: reads of the record cached on the communicator.
#include <algorithm>
#include <cstdint>
#include <string>

#include "distopo/cart.hpp"
#include "distopo/core/grid.hpp"
#include "distopo/core/runtime.hpp"

namespace distopo {
namespace {

const CartesianTopology& cart_record(MPI_Comm comm, const char* caller) {
  ensure_runtime();
  return require_topology<CartesianTopology>(comm, caller);
}

void check_maxdims(MPI_Comm comm, int maxdims, const char* caller) {
  if (maxdims < 0) {
    throw Error(MPI_ERR_ARG, comm_rank_prefix(caller, comm) + "maxdims = " + std::to_string(maxdims) + " is negative");
  }
}

}  // namespace

int cartdim_get(MPI_Comm comm) { return static_cast<int>(cart_record(comm, "cartdim_get").dims.size()); }

const CartGrid& cart_get(MPI_Comm comm) { return cart_record(comm, "cart_get"); }

void cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  const auto& record = cart_record(comm, "cart_get");
  check_maxdims(comm, maxdims, "cart_get");
  const std::size_t n = std::min(record.dims.size(), static_cast<std::size_t>(maxdims));
  for (std::size_t i = 0; i < n; ++i) {
    if (dims != nullptr) dims[i] = record.dims[i];
    if (periods != nullptr) periods[i] = record.periods[i] == Periodicity::periodic ? 1 : 0;
    if (coords != nullptr) coords[i] = record.coords[i];
  }
}

int cart_rank(MPI_Comm comm, std::span<const int> coords) {
  const auto& record = cart_record(comm, "cart_rank");
  if (coords.size() != record.dims.size()) {
    throw Error(MPI_ERR_ARG, comm_rank_prefix("cart_rank", comm) + "coords has " + std::to_string(coords.size()) +
                                 " entries but the grid has " + std::to_string(record.dims.size()) + " dimensions");
  }
  return cart_rank(comm, coords.data());
}

int cart_rank(MPI_Comm comm, const int coords[]) {
  const auto& record = cart_record(comm, "cart_rank");
  const std::size_t ndims = record.dims.size();
  if (ndims > 0 && coords == nullptr) {
    throw Error(MPI_ERR_ARG,
                comm_rank_prefix("cart_rank", comm) + "coords is NULL with ndims = " + std::to_string(ndims));
  }
  std::vector<int> wrapped(ndims);
  for (std::size_t i = 0; i < ndims; ++i) {
    const std::optional<int> c = wrap_coordinate(coords[i], record.dims[i], record.periods[i]);
    if (!c) {
      throw Error(MPI_ERR_ARG, comm_rank_prefix("cart_rank", comm) + "coords[" + std::to_string(i) +
                                   "] = " + std::to_string(coords[i]) + " is outside the open dimension of size " +
                                   std::to_string(record.dims[i]));
    }
    wrapped[i] = *c;
  }
  return grid_rank(record.dims, wrapped);
}

std::vector<int> cart_coords(MPI_Comm comm, int rank) {
  const auto& record = cart_record(comm, "cart_coords");
  const int size = comm_size(comm);
  if (rank < 0 || rank >= size) {
    throw Error(MPI_ERR_RANK, comm_rank_prefix("cart_coords", comm) + "rank " + std::to_string(rank) +
                                  " is not in the communicator (size " + std::to_string(size) + ")");
  }
  return grid_coords(record.dims, rank);
}

void cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  check_maxdims(comm, maxdims, "cart_coords");
  const std::vector<int> all = cart_coords(comm, rank);
  const std::size_t n = std::min(all.size(), static_cast<std::size_t>(maxdims));
  if (n > 0 && coords == nullptr) {
    throw Error(MPI_ERR_ARG,
                comm_rank_prefix("cart_coords", comm) + "coords is NULL with maxdims = " + std::to_string(maxdims));
  }
  std::copy_n(all.begin(), n, coords);
}

ShiftResult cart_shift(MPI_Comm comm, int direction, int disp) {
  const auto& record = cart_record(comm, "cart_shift");
  const auto ndims = static_cast<int>(record.dims.size());
  if (ndims == 0) {
    throw Error(MPI_ERR_TOPOLOGY, comm_rank_prefix("cart_shift", comm) +
                                      "a zero-dimensional Cartesian topology has no direction to shift in");
  }
  if (direction < 0 || direction >= ndims) {
    throw Error(MPI_ERR_ARG, comm_rank_prefix("cart_shift", comm) + "direction = " + std::to_string(direction) +
                                 " is outside [0, " + std::to_string(ndims) + ")");
  }
  const auto d = static_cast<std::size_t>(direction);
  return {shifted_rank(record, d, -std::int64_t{disp}), shifted_rank(record, d, disp)};
}

}  // namespace distopo
