// graph_create and graph_map: every rank validates the whole graph, the ranks
// agree once, then one MPI_Comm_split builds the new communicator.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "distopo/core/argument_agreement.hpp"
#include "distopo/core/node_layout.hpp"
#include "distopo/core/runtime.hpp"
#include "distopo/graph.hpp"
#include "graph_mapping.hpp"

namespace distopo {
namespace {

std::optional<LocalError> validate(const char* caller, int nnodes, const int index[], const int edges[], int rank,
                                   int size) {
  if (nnodes < 0) return rank_error(MPI_ERR_ARG, caller, rank, "nnodes = " + std::to_string(nnodes) + " is negative");
  if (nnodes > size) {
    return rank_error(
        MPI_ERR_ARG, caller, rank,
        "nnodes = " + std::to_string(nnodes) + " is larger than the communicator (size " + std::to_string(size) + ")");
  }
  if (nnodes > 0 && index == nullptr) {
    return rank_error(MPI_ERR_ARG, caller, rank, "index is NULL with nnodes = " + std::to_string(nnodes));
  }
  for (int i = 0; i < nnodes; ++i) {
    const int previous = i == 0 ? 0 : index[i - 1];
    if (index[i] < previous) {
      return rank_error(
          MPI_ERR_ARG, caller, rank,
          "index[" + std::to_string(i) + "] = " + std::to_string(index[i]) +
              (i == 0 ? std::string(" is negative")
                      : " is smaller than index[" + std::to_string(i - 1) + "] = " + std::to_string(previous)));
    }
  }
  const int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
  if (nedges > 0 && edges == nullptr) {
    return rank_error(MPI_ERR_ARG, caller, rank, "edges is NULL with " + std::to_string(nedges) + " edges");
  }
  for (int j = 0; j < nedges; ++j) {
    if (edges[j] < 0 || edges[j] >= nnodes) {
      return rank_error(MPI_ERR_ARG, caller, rank,
                        "edges[" + std::to_string(j) + "] = " + std::to_string(edges[j]) +
                            " is not a node of the graph [0, " + std::to_string(nnodes) + ")");
    }
  }
  return std::nullopt;
}

detail::Fingerprint graph_fingerprint(int nnodes, const int index[], const int edges[], bool reorder) {
  detail::Fingerprint fingerprint;
  const auto n = static_cast<std::size_t>(nnodes);
  fingerprint.add(std::span<const int>(index, n));
  const auto nedges = n > 0 ? static_cast<std::size_t>(index[n - 1]) : 0;
  fingerprint.add(std::span<const int>(edges, nedges));
  fingerprint.add(reorder ? 1 : 0);
  return fingerprint;
}

// Validation and agreement shared by graph_create and graph_map.
void validate_collectively(MPI_Comm comm, const char* caller, int nnodes, const int index[], const int edges[],
                           bool reorder, const std::string& misuse) {
  ensure_runtime();
  require_intracommunicator(comm, caller);
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  const auto error = misuse.empty() ? validate(caller, nnodes, index, edges, rank, size)
                                    : rank_error(MPI_ERR_ARG, caller, rank, misuse);
  detail::agree_on_arguments(comm, error,
                             error ? detail::Fingerprint{} : graph_fingerprint(nnodes, index, edges, reorder), caller,
                             "nnodes, index, edges or reorder");
}

// Collective over comm. The caller's graph node after node-aware placement, or MPI_UNDEFINED.
int node_aware_rank(MPI_Comm comm, int nnodes, const int index[], const int edges[], MPI_Info info) {
  const int rank = comm_rank(comm);
  const int identity = rank < nnodes ? rank : MPI_UNDEFINED;
  const NodeLayout layout = discover_nodes(comm, info);
  const int k = layout.ranks_per_node;
  if (k <= 1 || nnodes == 0) return identity;
  const auto n = static_cast<std::size_t>(nnodes);
  const std::span<const int> index_span(index, n);
  const std::span<const int> edge_span(edges, static_cast<std::size_t>(index[n - 1]));
  const auto blocks = detail::graph_node_blocks(nnodes, index_span, edge_span, k);
  const auto node = static_cast<std::size_t>(layout.node);
  const auto local = static_cast<std::size_t>(layout.local_rank);
  if (node >= blocks.size() || local >= blocks[node].size()) return MPI_UNDEFINED;
  return blocks[node][local];
}

std::string length_mismatch(std::span<const int> index, std::span<const int> edges) {
  const std::size_t expected = index.empty() ? 0 : static_cast<std::size_t>(std::max(index.back(), 0));
  if (edges.size() == expected) return {};
  return "edges has " + std::to_string(edges.size()) + " entries but index ends at " + std::to_string(expected);
}

Comm graph_create_impl(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], bool reorder, MPI_Info info,
                       const std::string& misuse) {
  constexpr const char* kCaller = "graph_create";
  validate_collectively(comm_old, kCaller, nnodes, index, edges, reorder, misuse);
  const int rank = comm_rank(comm_old);
  const int new_rank =
      reorder ? node_aware_rank(comm_old, nnodes, index, edges, info) : (rank < nnodes ? rank : MPI_UNDEFINED);
  Comm base = split_by_rank(comm_old, new_rank);
  if (base.is_null()) return base;
  GraphTopology record;
  const auto n = static_cast<std::size_t>(nnodes);
  record.index.assign(index, index + n);
  record.edges.assign(edges, edges + index[n - 1]);
#if DISTOPO_NATIVE_TOPOLOGY
  MPI_Comm native = MPI_COMM_NULL;
  // PMPI: once the interposition library is loaded, MPI_ names are ours.
  // MPICH rejects a NULL edges array even when there are no edges.
  int no_edges = 0;
  check_mpi(PMPI_Graph_create(base, nnodes, record.index.data(), record.edges.empty() ? &no_edges : record.edges.data(),
                              0, &native),
            "MPI_Graph_create");
  base = Comm::adopt(native);
#endif
  attach_topology(base, std::move(record));
  return base;
}

}  // namespace

Comm graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], bool reorder, MPI_Info info) {
  return graph_create_impl(comm_old, nnodes, index, edges, reorder, info, {});
}

Comm graph_create(MPI_Comm comm_old, std::span<const int> index, std::span<const int> edges,
                  const GraphOptions& options) {
  return graph_create_impl(comm_old, static_cast<int>(index.size()), index.data(), edges.data(), options.reorder,
                           options.info, length_mismatch(index, edges));
}

int graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], MPI_Info info) {
  validate_collectively(comm, "graph_map", nnodes, index, edges, true, {});
  return node_aware_rank(comm, nnodes, index, edges, info);
}

int graph_map(MPI_Comm comm, std::span<const int> index, std::span<const int> edges, MPI_Info info) {
  validate_collectively(comm, "graph_map", static_cast<int>(index.size()), index.data(), edges.data(), true,
                        length_mismatch(index, edges));
  return node_aware_rank(comm, static_cast<int>(index.size()), index.data(), edges.data(), info);
}

}  // namespace distopo
