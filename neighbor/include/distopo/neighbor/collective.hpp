#pragma once
// What every neighborhood collective front shares: the degrees they count
// slots with, and the algorithm (distopo/neighbor/algorithm.hpp).
#include <mpi.h>

#include "distopo/neighbor/algorithm.hpp"

namespace distopo {

// In- and out-degree as neighborhood collectives count them (Cartesian:
// 2 * ndims each, MPI_PROC_NULL slots included). MPI_ERR_COMM for a null
// communicator, MPI_ERR_TOPOLOGY without a topology. Local.
struct NeighborDegrees {
  int indegree;
  int outdegree;
};
NeighborDegrees neighbor_degrees(MPI_Comm comm);

}  // namespace distopo
