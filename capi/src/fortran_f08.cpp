// The Fortran 2008 bindings (`use mpi_f08`) of the topology chapter's
// constructors and queries. MPICH's own mpi_f08 wrappers (libmpifort) call
// the PMPI_ names, so a `use mpi_f08` program would get MPICH's topologies
// and never distopo's; these definitions of the same entry points come first
// when libdistopo_mpi.so is preloaded (or linked before libmpifort) and send
// the calls to this library's C entry points. The neighborhood collectives
// need none: MPICH's f08 wrappers (the *_f08ts_ names) call them by their
// MPI_ names. `use mpi` and mpif.h need none either: their wrappers call the
// C MPI_ names.
//
// How gfortran passes the arguments of MPICH's interfaces (module mpi_f08,
// generated from src/binding/fortran/use_mpi_f08 in MPICH's sources): all by
// reference; TYPE(MPI_Comm) and TYPE(MPI_Info) are bind(C) types holding one
// INTEGER; a LOGICAL is a 4-byte integer with .true. = 1, so LOGICAL arrays
// are read and written as C int arrays; explicit-shape and assumed-size
// arrays are plain pointers; an absent OPTIONAL ierror is a null pointer.
// MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are variables of MPICH's module
// mpi_f08_link_constants, recognized by their address as MPICH's wrappers do.
#include <dlfcn.h>
#include <mpi.h>

#include "error_reporting.hpp"

namespace {

MPI_Comm comm_of(const MPI_Fint* comm) { return MPI_Comm_f2c(*comm); }

void set_comm(MPI_Fint* out, MPI_Comm comm) { *out = MPI_Comm_c2f(comm); }

// Stores `code` where the caller asked for it and returns nothing: an absent
// ierror means the error handler alone reports the error.
void finish(MPI_Fint* ierror, int code) {
  if (ierror != nullptr) *ierror = code;
}

// The address of a variable of MPICH's Fortran module, or null while no
// Fortran program is linked. A program built with mpifort holds the variable
// itself (a copy relocation), and the global lookup finds that copy first.
const void* module_variable(const char* symbol) { return dlsym(RTLD_DEFAULT, symbol); }

const void* fortran_unweighted() {
  static const void* const address = module_variable("__mpi_f08_link_constants_MOD_mpi_unweighted");
  return address;
}

const void* fortran_weights_empty() {
  static const void* const address = module_variable("__mpi_f08_link_constants_MOD_mpi_weights_empty");
  return address;
}

// The weights argument as the C API spells it.
int* c_weights(MPI_Fint* weights) {
  if (weights != nullptr && weights == fortran_unweighted()) return MPI_UNWEIGHTED;
  if (weights != nullptr && weights == fortran_weights_empty()) return MPI_WEIGHTS_EMPTY;
  return weights;
}

}  // namespace

DISTOPO_CAPI void mpi_dims_create_f08_(const MPI_Fint* nnodes, const MPI_Fint* ndims, MPI_Fint* dims,
                                       MPI_Fint* ierror) {
  finish(ierror, MPI_Dims_create(*nnodes, *ndims, dims));
}

DISTOPO_CAPI void mpi_cart_create_f08_(const MPI_Fint* comm_old, const MPI_Fint* ndims, const MPI_Fint* dims,
                                       const MPI_Fint* periods, const MPI_Fint* reorder, MPI_Fint* comm_cart,
                                       MPI_Fint* ierror) {
  MPI_Comm result = MPI_COMM_NULL;
  const int code = MPI_Cart_create(comm_of(comm_old), *ndims, dims, periods, *reorder, &result);
  set_comm(comm_cart, result);
  finish(ierror, code);
}

DISTOPO_CAPI void mpi_cartdim_get_f08_(const MPI_Fint* comm, MPI_Fint* ndims, MPI_Fint* ierror) {
  finish(ierror, MPI_Cartdim_get(comm_of(comm), ndims));
}

DISTOPO_CAPI void mpi_cart_get_f08_(const MPI_Fint* comm, const MPI_Fint* maxdims, MPI_Fint* dims, MPI_Fint* periods,
                                    MPI_Fint* coords, MPI_Fint* ierror) {
  finish(ierror, MPI_Cart_get(comm_of(comm), *maxdims, dims, periods, coords));
}

DISTOPO_CAPI void mpi_cart_rank_f08_(const MPI_Fint* comm, const MPI_Fint* coords, MPI_Fint* rank, MPI_Fint* ierror) {
  finish(ierror, MPI_Cart_rank(comm_of(comm), coords, rank));
}

DISTOPO_CAPI void mpi_cart_coords_f08_(const MPI_Fint* comm, const MPI_Fint* rank, const MPI_Fint* maxdims,
                                       MPI_Fint* coords, MPI_Fint* ierror) {
  finish(ierror, MPI_Cart_coords(comm_of(comm), *rank, *maxdims, coords));
}

DISTOPO_CAPI void mpi_cart_shift_f08_(const MPI_Fint* comm, const MPI_Fint* direction, const MPI_Fint* disp,
                                      MPI_Fint* rank_source, MPI_Fint* rank_dest, MPI_Fint* ierror) {
  finish(ierror, MPI_Cart_shift(comm_of(comm), *direction, *disp, rank_source, rank_dest));
}

DISTOPO_CAPI void mpi_cart_sub_f08_(const MPI_Fint* comm, const MPI_Fint* remain_dims, MPI_Fint* newcomm,
                                    MPI_Fint* ierror) {
  MPI_Comm result = MPI_COMM_NULL;
  const int code = MPI_Cart_sub(comm_of(comm), remain_dims, &result);
  set_comm(newcomm, result);
  finish(ierror, code);
}

DISTOPO_CAPI void mpi_cart_map_f08_(const MPI_Fint* comm, const MPI_Fint* ndims, const MPI_Fint* dims,
                                    const MPI_Fint* periods, MPI_Fint* newrank, MPI_Fint* ierror) {
  finish(ierror, MPI_Cart_map(comm_of(comm), *ndims, dims, periods, newrank));
}

DISTOPO_CAPI void mpi_graph_create_f08_(const MPI_Fint* comm_old, const MPI_Fint* nnodes, const MPI_Fint* index,
                                        const MPI_Fint* edges, const MPI_Fint* reorder, MPI_Fint* comm_graph,
                                        MPI_Fint* ierror) {
  MPI_Comm result = MPI_COMM_NULL;
  const int code = MPI_Graph_create(comm_of(comm_old), *nnodes, index, edges, *reorder, &result);
  set_comm(comm_graph, result);
  finish(ierror, code);
}

DISTOPO_CAPI void mpi_graphdims_get_f08_(const MPI_Fint* comm, MPI_Fint* nnodes, MPI_Fint* nedges, MPI_Fint* ierror) {
  finish(ierror, MPI_Graphdims_get(comm_of(comm), nnodes, nedges));
}

DISTOPO_CAPI void mpi_graph_get_f08_(const MPI_Fint* comm, const MPI_Fint* maxindex, const MPI_Fint* maxedges,
                                     MPI_Fint* index, MPI_Fint* edges, MPI_Fint* ierror) {
  finish(ierror, MPI_Graph_get(comm_of(comm), *maxindex, *maxedges, index, edges));
}

DISTOPO_CAPI void mpi_graph_neighbors_count_f08_(const MPI_Fint* comm, const MPI_Fint* rank, MPI_Fint* nneighbors,
                                                 MPI_Fint* ierror) {
  finish(ierror, MPI_Graph_neighbors_count(comm_of(comm), *rank, nneighbors));
}

DISTOPO_CAPI void mpi_graph_neighbors_f08_(const MPI_Fint* comm, const MPI_Fint* rank, const MPI_Fint* maxneighbors,
                                           MPI_Fint* neighbors, MPI_Fint* ierror) {
  finish(ierror, MPI_Graph_neighbors(comm_of(comm), *rank, *maxneighbors, neighbors));
}

DISTOPO_CAPI void mpi_graph_map_f08_(const MPI_Fint* comm, const MPI_Fint* nnodes, const MPI_Fint* index,
                                     const MPI_Fint* edges, MPI_Fint* newrank, MPI_Fint* ierror) {
  finish(ierror, MPI_Graph_map(comm_of(comm), *nnodes, index, edges, newrank));
}

DISTOPO_CAPI void mpi_dist_graph_create_f08_(const MPI_Fint* comm_old, const MPI_Fint* n, const MPI_Fint* sources,
                                             const MPI_Fint* degrees, const MPI_Fint* destinations, MPI_Fint* weights,
                                             const MPI_Fint* info, const MPI_Fint* reorder, MPI_Fint* comm_dist_graph,
                                             MPI_Fint* ierror) {
  MPI_Comm result = MPI_COMM_NULL;
  const int code = MPI_Dist_graph_create(comm_of(comm_old), *n, sources, degrees, destinations, c_weights(weights),
                                         MPI_Info_f2c(*info), *reorder, &result);
  set_comm(comm_dist_graph, result);
  finish(ierror, code);
}

DISTOPO_CAPI void mpi_dist_graph_create_adjacent_f08_(const MPI_Fint* comm_old, const MPI_Fint* indegree,
                                                      const MPI_Fint* sources, MPI_Fint* sourceweights,
                                                      const MPI_Fint* outdegree, const MPI_Fint* destinations,
                                                      MPI_Fint* destweights, const MPI_Fint* info,
                                                      const MPI_Fint* reorder, MPI_Fint* comm_dist_graph,
                                                      MPI_Fint* ierror) {
  MPI_Comm result = MPI_COMM_NULL;
  const int code =
      MPI_Dist_graph_create_adjacent(comm_of(comm_old), *indegree, sources, c_weights(sourceweights), *outdegree,
                                     destinations, c_weights(destweights), MPI_Info_f2c(*info), *reorder, &result);
  set_comm(comm_dist_graph, result);
  finish(ierror, code);
}

DISTOPO_CAPI void mpi_dist_graph_neighbors_count_f08_(const MPI_Fint* comm, MPI_Fint* indegree, MPI_Fint* outdegree,
                                                      MPI_Fint* weighted, MPI_Fint* ierror) {
  finish(ierror, MPI_Dist_graph_neighbors_count(comm_of(comm), indegree, outdegree, weighted));
}

DISTOPO_CAPI void mpi_dist_graph_neighbors_f08_(const MPI_Fint* comm, const MPI_Fint* maxindegree, MPI_Fint* sources,
                                                MPI_Fint* sourceweights, const MPI_Fint* maxoutdegree,
                                                MPI_Fint* destinations, MPI_Fint* destweights, MPI_Fint* ierror) {
  finish(ierror, MPI_Dist_graph_neighbors(comm_of(comm), *maxindegree, sources, c_weights(sourceweights), *maxoutdegree,
                                          destinations, c_weights(destweights)));
}

DISTOPO_CAPI void mpi_topo_test_f08_(const MPI_Fint* comm, MPI_Fint* status, MPI_Fint* ierror) {
  finish(ierror, MPI_Topo_test(comm_of(comm), status));
}
