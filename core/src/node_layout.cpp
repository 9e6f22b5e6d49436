#include "distopo/core/node_layout.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/info.hpp"

namespace distopo {

int emulated_ranks_per_node(MPI_Info info) {
  const std::optional<std::string> value = info_or_environment(info, kRanksPerNodeInfoKey, kRanksPerNodeEnv);
  return value ? parse_positive(value->c_str()) : 0;
}

NodeLayout discover_nodes(MPI_Comm comm, int ranks_per_node) {
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  NodeLayout layout;
  if (ranks_per_node > 0) {
    const int k = ranks_per_node;
    layout.emulated = true;
    layout.node = rank / k;
    layout.local_rank = rank % k;
    layout.node_count = (size + k - 1) / k;
    // Uniform when the last node is full, or when one node holds everyone.
    layout.ranks_per_node = size % k == 0 ? k : (size < k ? size : 0);
    layout.largest_node = std::min(k, size);
    return layout;
  }

  MPI_Comm shared = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared), "MPI_Comm_split_type");
  Comm node_comm = Comm::adopt(shared);
  layout.local_rank = node_comm.rank();
  const int local_size = node_comm.size();
  // Leaders (local rank 0) number the nodes in rank order; each node learns its number from its leader.
  int leader = layout.local_rank == 0 ? 1 : 0;
  int node = 0;
  check_mpi(MPI_Exscan(&leader, &node, 1, MPI_INT, MPI_SUM, comm), "MPI_Exscan");
  if (rank == 0) node = 0;  // MPI_Exscan leaves rank 0's result undefined
  check_mpi(MPI_Bcast(&node, 1, MPI_INT, 0, node_comm), "MPI_Bcast");
  layout.node = node;
  std::array<int, 3> counts{local_size, -local_size, node + 1};
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, counts.data(), 3, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  layout.node_count = counts[2];
  layout.ranks_per_node = counts[0] == -counts[1] ? counts[0] : 0;
  layout.largest_node = counts[0];
  return layout;
}

}  // namespace distopo
