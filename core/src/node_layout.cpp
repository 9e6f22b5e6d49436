#include "distopo/core/node_layout.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstdlib>
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

namespace {

// MPICH splits one machine into several nodes for MPI_Comm_split_type when
// told to (NUM_CLIQUES, ODD_EVEN_CLIQUES; its tests and ours emulate nodes
// so). Read once, as MPICH reads its settings once, at MPI_Init.
bool mpich_splits_machines() {
  static const bool splits = [] {
    const auto set = [](const char* name, int above) {
      const char* value = std::getenv(name);
      return value != nullptr && std::atoi(value) > above;
    };
    for (const char* prefix : {"MPIR_CVAR_", "MPICH_", "MPIR_PARAM_"}) {
      if (set((std::string(prefix) + "NUM_CLIQUES").c_str(), 1) ||
          set((std::string(prefix) + "ODD_EVEN_CLIQUES").c_str(), 0))
        return true;
    }
    return false;
  }();
  return splits;
}

}  // namespace

// Computed at each call, not kept: SimGrid's simulated ranks share the
// library's variables, and each has its own host.
int host_fingerprint() {
  std::array<char, MPI_MAX_PROCESSOR_NAME> name{};
  int length = 0;
  check_mpi(PMPI_Get_processor_name(name.data(), &length), "MPI_Get_processor_name");
  std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a
  const auto add = [&hash](unsigned char byte) { hash = (hash ^ byte) * 1099511628211ULL; };
  for (int i = 0; i < length; ++i) add(static_cast<unsigned char>(name[i]));
  // Where MPICH splits machines, their names do not tell its nodes apart:
  // the process id makes every process's fingerprint its own, and the nodes
  // are found with MPI_Comm_split_type as without the fingerprint.
  if (mpich_splits_machines()) {
    const auto pid = static_cast<std::uint64_t>(getpid());
    for (int shift = 0; shift < 64; shift += 8) add(static_cast<unsigned char>(pid >> shift));
  }
  const auto value = static_cast<int>(hash % static_cast<std::uint64_t>(INT_MAX));
  return value + 1;
}

int node_count_offer(int known) { return known > 0 ? known : -host_fingerprint(); }

int agreed_node_count(long long max_value, long long max_negation) {
  if (max_value != -max_negation) return 0;
  return max_value > 0 ? static_cast<int>(max_value) : 1;
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
