#pragma once
// Cartesian topologies (MPI_Dims_create, MPI_Cart_create and friends).
//
// No limit on the number of dimensions; zero-dimensional grids behave as the
// standard says. With reorder, ranks on the same machine node get a compact
// sub-block of the grid (Gropp, EuroMPI'18), so fewer neighbor pairs cross
// nodes; see distopo/mapping/cartesian_blocks.hpp.
#include <mpi.h>

#include <initializer_list>
#include <span>
#include <vector>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/node_layout.hpp"
#include "distopo/core/topology.hpp"

namespace distopo {

// Periodicity of one dimension (the enum lives with the topology record).
inline constexpr Periodicity open = Periodicity::open;
inline constexpr Periodicity periodic = Periodicity::periodic;

using CartOptions = ReorderOptions;

// cart_shift's answer: whom to receive from and whom to send to
// (MPI_PROC_NULL past an open end).
struct ShiftResult {
  int source;
  int destination;
  friend bool operator==(const ShiftResult&, const ShiftResult&) = default;
};

// What cart_get reports: dims, periods and the calling rank's coordinates.
using CartGrid = CartesianTopology;

// --- dims_create (local; needs no runtime) ---------------------------------

// The most balanced grid of `nnodes` processes: the free (zero) entries of
// `dims` are filled so that max - min over them is minimal, in non-increasing
// order; nonzero entries are kept. Ties go to the larger smallest entry, then
// the larger second smallest, and so on (MPICH's choice: 5040 in 3-D is
// 21 x 16 x 15, not 20 x 18 x 14). Throws MPI_ERR_DIMS for negative
// entries or when nnodes is not a multiple of the preset entries' product,
// MPI_ERR_ARG for nnodes < 1.
std::vector<int> dims_create(int nnodes, std::span<const int> dims);
// All `ndims` entries free.
std::vector<int> dims_create(int nnodes, int ndims);
// The standard's in/out array.
void dims_create(int nnodes, int ndims, int dims[]);

// --- constructors (collective) ---------------------------------------------
// Bad input on any rank makes every rank throw the same Error (class and
// message of the lowest failing rank): MPI_ERR_ARG for ndims < 0, missing
// arrays, a grid larger than the group, or arguments that differ between
// ranks; MPI_ERR_DIMS for a dimension < 1. Ranks beyond the grid get a null
// Comm. The result also carries MPICH's own Cartesian topology (up to 16
// dimensions, which is what MPICH handles).

Comm cart_create(MPI_Comm comm_old, std::span<const int> dims, std::span<const Periodicity> periods,
                 const CartOptions& options = {});
Comm cart_create(MPI_Comm comm_old, std::span<const int> dims, std::initializer_list<Periodicity> periods,
                 const CartOptions& options = {});
// The standard's arrays (periods[i] != 0 means periodic).
Comm cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], bool reorder,
                 MPI_Info info = MPI_INFO_NULL);

// Collective over comm (node discovery). The rank the calling process would
// have in a grid created with reorder, or MPI_UNDEFINED when it is not part of
// the grid. Same errors as cart_create, except that a grid larger than the
// group is MPI_ERR_DIMS (as in MPICH).
int cart_map(MPI_Comm comm, std::span<const int> dims, std::span<const Periodicity> periods,
             MPI_Info info = MPI_INFO_NULL);
int cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], MPI_Info info = MPI_INFO_NULL);

// Collective over `comm`, which must carry a Cartesian topology. Keeps the
// dimensions with remain_dims[i] true; all false gives a zero-dimensional
// grid of the calling process alone.
Comm cart_sub(MPI_Comm comm, const std::vector<bool>& remain_dims);
Comm cart_sub(MPI_Comm comm, const int remain_dims[]);

// --- local queries ---------------------------------------------------------
// Throw MPI_ERR_TOPOLOGY on a communicator without a Cartesian topology.

int cartdim_get(MPI_Comm comm);
// Valid while `comm` (or a dup of it) lives. Not on a temporary Comm, which
// would free the grid before the reference is used.
const CartGrid& cart_get(MPI_Comm comm);
const CartGrid& cart_get(Comm&& comm) = delete;
// Writes at most maxdims entries of each array (nothing for a 0-dim grid).
void cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);

// Periodic coordinates wrap; out-of-range coordinates on an open dimension are
// MPI_ERR_ARG. coords.size() must be ndims (MPI_ERR_ARG otherwise).
int cart_rank(MPI_Comm comm, std::span<const int> coords);
int cart_rank(MPI_Comm comm, const int coords[]);

// MPI_ERR_RANK unless 0 <= rank < size.
std::vector<int> cart_coords(MPI_Comm comm, int rank);
// Writes at most maxdims entries.
void cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);

// Any displacement (0, negative, larger than the dimension). MPI_ERR_ARG for
// a direction outside [0, ndims), MPI_ERR_TOPOLOGY on a 0-dim grid.
ShiftResult cart_shift(MPI_Comm comm, int direction, int disp);

}  // namespace distopo
