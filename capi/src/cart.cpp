// MPI_Dims_create and the Cartesian functions, forwarded to distopo's C++ API.
#include "distopo/cart.hpp"

#include "error_reporting.hpp"

using distopo::capi::guarded;
using distopo::capi::require_pointer;
using distopo::capi::served;

DISTOPO_CAPI int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  return guarded(MPI_COMM_NULL, "MPI_Dims_create", [&] { distopo::dims_create(nnodes, ndims, dims); });
}

DISTOPO_CAPI int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                                 MPI_Comm* comm_cart) {
  return guarded(comm_old, "MPI_Cart_create", [&] {
    require_pointer(comm_cart, "comm_cart");
    *comm_cart = MPI_COMM_NULL;  // what the caller holds if the call fails
    *comm_cart = distopo::cart_create(comm_old, ndims, dims, periods, reorder != 0).release();
  });
}

DISTOPO_CAPI int MPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  return served(
      comm, "MPI_Cartdim_get",
      [&] {
        require_pointer(ndims, "ndims");
        *ndims = distopo::cartdim_get(comm);
      },
      [&] { return PMPI_Cartdim_get(comm, ndims); });
}

DISTOPO_CAPI int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  return served(
      comm, "MPI_Cart_get", [&] { distopo::cart_get(comm, maxdims, dims, periods, coords); },
      [&] { return PMPI_Cart_get(comm, maxdims, dims, periods, coords); });
}

DISTOPO_CAPI int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  return served(
      comm, "MPI_Cart_rank",
      [&] {
        require_pointer(rank, "rank");
        *rank = distopo::cart_rank(comm, coords);
      },
      [&] { return PMPI_Cart_rank(comm, coords, rank); });
}

DISTOPO_CAPI int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  return served(
      comm, "MPI_Cart_coords", [&] { distopo::cart_coords(comm, rank, maxdims, coords); },
      [&] { return PMPI_Cart_coords(comm, rank, maxdims, coords); });
}

DISTOPO_CAPI int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  return served(
      comm, "MPI_Cart_shift",
      [&] {
        require_pointer(rank_source, "rank_source");
        require_pointer(rank_dest, "rank_dest");
        const distopo::ShiftResult shift = distopo::cart_shift(comm, direction, disp);
        *rank_source = shift.source;
        *rank_dest = shift.destination;
      },
      [&] { return PMPI_Cart_shift(comm, direction, disp, rank_source, rank_dest); });
}

DISTOPO_CAPI int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  return served(
      comm, "MPI_Cart_sub",
      [&] {
        require_pointer(newcomm, "newcomm");
        *newcomm = MPI_COMM_NULL;  // what the caller holds if the call fails
        *newcomm = distopo::cart_sub(comm, remain_dims).release();
      },
      [&] { return PMPI_Cart_sub(comm, remain_dims, newcomm); });
}

DISTOPO_CAPI int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  return guarded(comm, "MPI_Cart_map", [&] {
    require_pointer(newrank, "newrank");
    *newrank = distopo::cart_map(comm, ndims, dims, periods);
  });
}
