#pragma once
// MPICH 4.0.2's MPI_Neighbor_alltoallv, step for step, over the MPI API (SMPI
// has no neighborhood collectives). What MPICH runs there, from Debian's
// mpich source package:
//   - the blocking call is MPIR_Neighbor_alltoallv_allcomm_nb (the only
//     algorithm maint/tuning/coll/mpir/generic.json lists; ch4's ucx netmod
//     forwards to it): the non-blocking collective, then a wait;
//   - the non-blocking collective is MPIR_Ineighbor_alltoallv_allcomm_sched_linear
//     (src/mpi/coll/ineighbor_alltoallv/): a schedule of one send per
//     out-neighbor, in the topology's order, then one receive per in-neighbor,
//     with no barrier between them, so starting the schedule posts them all;
//   - the persistent form (MPI_Neighbor_alltoallv_init) builds the same
//     schedule once, and every MPI_Start runs it again: the same messages.
// Here: MPI_Isend per out-neighbor, MPI_Irecv per in-neighbor, MPI_Waitall.
#include <mpi.h>

#include <span>
#include <vector>

namespace smpi_bench {

struct NeighborLists {
  std::vector<int> sources;       // in-neighbors, in topology order
  std::vector<int> destinations;  // out-neighbors, in topology order
};

// Counts and displacements in bytes (the blocks are MPI_BYTE runs).
void mpich_neighbor_alltoallv(const NeighborLists& lists, const void* sendbuf, std::span<const int> sendcounts,
                              std::span<const int> sdispls, void* recvbuf, std::span<const int> recvcounts,
                              std::span<const int> rdispls, MPI_Comm comm, int tag);

}  // namespace smpi_bench
