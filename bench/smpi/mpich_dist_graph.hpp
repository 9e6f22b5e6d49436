#pragma once
// MPICH 4.0.2's MPI_Dist_graph_create edge exchange (MPIR_Dist_graph_create_impl
// in src/mpi/topo/dist_graph_create.c), reimplemented step for step over the
// public MPI API so that it runs where MPICH does not, on SimGrid's SMPI:
//   1. per destination rank: counts and edge arrays, in six arrays of size P;
//   2. a 2P-int array of "do I send in-/out-edges to rank i" flags, reduced
//      with MPI_Reduce_scatter_block(MPI_SUM) so each rank learns how many
//      messages of each kind it will receive;
//   3. one MPI_Isend per peer and kind (2P request slots), then MPI_Probe +
//      MPI_Recv(MPI_ANY_SOURCE) for each expected message, appending to
//      arrays that grow by doubling (realloc), as MPICH does.
// Left out: the communicator copy at the start and the topology attach at the
// end (distopo pays the same), and MPICH's internal context id (the tags
// below run on the caller's communicator instead).
#include <mpi.h>

#include <cstddef>

namespace smpi_bench {

// What MPICH stores on the new communicator: the lists in arrival order.
// Owns malloc'ed arrays, as MPICH's record does.
class MpichLists {
 public:
  MpichLists() = default;
  MpichLists(const MpichLists&) = delete;
  MpichLists& operator=(const MpichLists&) = delete;
  ~MpichLists();

  int indegree = 0;
  int outdegree = 0;
  int* in = nullptr;
  int* in_weights = nullptr;  // null when unweighted
  int* out = nullptr;
  int* out_weights = nullptr;
};

// Collective over `comm`, which must carry no other traffic with the tags
// used here meanwhile. `weights` may be MPI_UNWEIGHTED.
void mpich_dist_graph_exchange(MPI_Comm comm, int n, const int sources[], const int degrees[], const int destinations[],
                               const int weights[], MpichLists& lists);

}  // namespace smpi_bench
