// graph_create and graph_map: every rank validates the whole graph, the ranks
// agree once, then one MPI_Comm_split builds the new communicator.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "distopo/core/argument_agreement.hpp"
#include "distopo/core/native_reservation.hpp"
#include "distopo/core/node_layout.hpp"
#include "distopo/core/runtime.hpp"
#include "distopo/core/shared_channel.hpp"
#include "distopo/graph.hpp"
#include "distopo/mapping/placement.hpp"

namespace distopo {
namespace {

using detail::identity_placement;
using detail::Placement;

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

// Validation and agreement shared by graph_create and graph_map: on success,
// the graph as a record (copied before the agreement, so that a rank that
// cannot hold it fails in the agreement, not alone afterwards) and the
// ranks-per-node setting all ranks agreed on (0 without reorder).
// `native`: with `for_native_copy` (graph_create), the memory MPICH's copy of
// the graph will take, held from before the agreement.
struct AgreedGraph {
  GraphTopology record;
  int ranks_per_node = 0;
  NativeReservation native;
  LeaseOffer lease;  // the result's channel lease, as agreed
};

AgreedGraph validate_collectively(MPI_Comm comm, const char* caller, int nnodes, const int index[], const int edges[],
                                  bool reorder, MPI_Info info, const std::string& misuse, bool for_native_copy) {
  ensure_runtime();
  require_intracommunicator(comm, caller);
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  AgreedGraph agreed;
  const auto error = local_step(caller, rank, "a copy of the graph", [&]() -> std::optional<LocalError> {
    if (!misuse.empty()) return rank_error(MPI_ERR_ARG, caller, rank, misuse);
    if (auto invalid = validate(caller, nnodes, index, edges, rank, size)) return invalid;
    const auto n = static_cast<std::size_t>(nnodes);
    agreed.record.index.assign(index, index + n);
    agreed.record.edges.assign(edges, edges + (n > 0 ? index[n - 1] : 0));
    if (for_native_copy) agreed.native.reserve(agreed.record.index.size() + agreed.record.edges.size());
    return std::nullopt;
  });
  if (reorder) agreed.ranks_per_node = emulated_ranks_per_node(info);
  detail::Fingerprint setting;
  setting.add(agreed.ranks_per_node);
  const std::array<detail::MustAgree, 2> items{
      detail::MustAgree{error ? detail::Fingerprint{} : graph_fingerprint(nnodes, index, edges, reorder),
                        "nnodes, index, edges or reorder"},
      detail::MustAgree{setting, kRanksPerNodeSetting}};
  agreed.lease = LeaseOffer(comm);
  detail::agree_on_arguments(comm, error, items, caller, agreed.lease.values());
  return agreed;
}

// Collective over comm: node discovery, then the node-aware placement.
Placement node_aware_placement(MPI_Comm comm, const AgreedGraph& agreed) {
  return detail::place(comm, agreed.record, discover_nodes(comm, agreed.ranks_per_node));
}

std::string length_mismatch(std::span<const int> index, std::span<const int> edges) {
  const std::size_t expected = index.empty() ? 0 : static_cast<std::size_t>(std::max(index.back(), 0));
  if (edges.size() == expected) return {};
  return "edges has " + std::to_string(edges.size()) + " entries but index ends at " + std::to_string(expected);
}

Comm graph_create_impl(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], bool reorder, MPI_Info info,
                       const std::string& misuse) {
  constexpr const char* kCaller = "graph_create";
  AgreedGraph agreed = validate_collectively(comm_old, kCaller, nnodes, index, edges, reorder, info, misuse, true);
  const Placement placement = reorder ? node_aware_placement(comm_old, agreed) : identity_placement(comm_old, nnodes);
  Comm base = split_by_rank(comm_old, placement.rank);
  if (base.is_null()) return base;
  GraphTopology record = std::move(agreed.record);
#if DISTOPO_NATIVE_TOPOLOGY
  MPI_Comm native = MPI_COMM_NULL;
  // PMPI: once the interposition library is loaded, MPI_ names are ours.
  // MPICH rejects a NULL edges array even when there are no edges.
  int no_edges = 0;
  agreed.native.release();
  check_mpi(PMPI_Graph_create(base, nnodes, record.index.data(), record.edges.empty() ? &no_edges : record.edges.data(),
                              0, &native),
            "MPI_Graph_create");
  base = Comm::adopt(native);
#endif
  attach_topology(base, std::move(record));
  if (placement.same_order) {
    share_channels(comm_old, base);
    agreed.lease.take(base);
  }
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
  const AgreedGraph agreed = validate_collectively(comm, "graph_map", nnodes, index, edges, true, info, {}, false);
  return node_aware_placement(comm, agreed).rank;
}

int graph_map(MPI_Comm comm, std::span<const int> index, std::span<const int> edges, MPI_Info info) {
  const AgreedGraph agreed = validate_collectively(comm, "graph_map", static_cast<int>(index.size()), index.data(),
                                                   edges.data(), true, info, length_mismatch(index, edges), false);
  return node_aware_placement(comm, agreed).rank;
}

}  // namespace distopo
