#pragma once
// Which machine node each rank runs on, for node-aware reordering (Cartesian
// and graph). Nodes come from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), or,
// to emulate several nodes on one machine, from a ranks-per-node setting:
// info key "distopo_ranks_per_node" (wins) or environment variable
// DISTOPO_RANKS_PER_NODE; with k set, rank r is on node r / k.
#include <mpi.h>

namespace distopo {

inline constexpr const char* kRanksPerNodeInfoKey = "distopo_ranks_per_node";
inline constexpr const char* kRanksPerNodeEnv = "DISTOPO_RANKS_PER_NODE";
// The setting as a mismatch message names it.
inline constexpr const char* kRanksPerNodeSetting =
    "the info key distopo_ranks_per_node (or, without it, DISTOPO_RANKS_PER_NODE)";

// The options of the constructors that may reorder by node (cart_create,
// graph_create).
struct ReorderOptions {
  // May ranks be renumbered (node-aware mapping)? Must agree on all ranks.
  bool reorder = false;
  // Info key "distopo_ranks_per_node" = k emulates nodes of k consecutive
  // ranks (see docs/guide/configuration.md). MPI_INFO_NULL is always valid.
  MPI_Info info = MPI_INFO_NULL;
};

struct NodeLayout {
  int node = 0;        // this rank's node, numbered 0 .. node_count-1 in order of the node's lowest rank
  int local_rank = 0;  // this rank's index on its node (order of ranks in comm)
  int node_count = 1;
  int ranks_per_node = 0;  // every node's rank count when all nodes hold the same number, else 0
  int largest_node = 1;    // the rank count of the node that holds the most
  bool emulated = false;   // true when the ranks-per-node setting was used
};

// The emulated ranks per node this rank sees (info key, then environment), or 0
// when none is set or the value is not a positive integer. Local. Callers
// agree on it across ranks before using it (it is part of the constructors'
// argument agreement).
int emulated_ranks_per_node(MPI_Info info);

// Local: a fingerprint of this process's machine (its processor name, as
// MPI_Get_processor_name gives it), in 1 .. INT_MAX, the same for every call.
// Ranks whose fingerprints are all equal run on one machine node: agreements
// made anyway carry it where a node count is not known yet (as -fingerprint,
// so that a known count and a host never read as equal), so that a
// communicator on one node needs no MPI_Comm_split_type to know it. Two
// machines that report the same name read as one node, which only keeps
// relays away. Where MPICH is told to split machines into nodes (its
// NUM_CLIQUES settings), every process's fingerprint differs, so nodes are
// found as without it.
int host_fingerprint();

// The value a rank offers for its node count in an agreement: `known` if it
// is known (> 0), else -host_fingerprint(). After an MPI_MAX of (v, -v),
// agreed_node_count reads the count every rank can rely on: the known count
// when all offered the same, 1 when all offered the same host, else 0.
int node_count_offer(int known);
int agreed_node_count(long long max_value, long long max_negation);

// Collective over `comm`. `ranks_per_node` is the emulation setting, the same
// on every rank: with k > 0 no node discovery takes place; with 0 nodes are
// discovered with MPI_Comm_split_type. O(1) memory per rank: one split, one
// exscan, one bcast and one small allreduce at most.
NodeLayout discover_nodes(MPI_Comm comm, int ranks_per_node);

}  // namespace distopo
