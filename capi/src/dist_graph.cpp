// The distributed graph functions and MPI_Topo_test, forwarded to distopo's
// C++ API. MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are MPICH's own sentinels.
#include <algorithm>
#include <span>
#include <string>

#include "distopo/distgraph.hpp"
#include "error_reporting.hpp"

using distopo::capi::guarded;
using distopo::capi::require_pointer;
using distopo::capi::served;

namespace {

bool is_unweighted(const int weights[]) { return weights == MPI_UNWEIGHTED; }

// The weights array distopo reads: MPI_WEIGHTS_EMPTY (allowed for zero
// edges only) becomes null, which the validation rejects if edges exist.
const int* weights_to_read(const int weights[]) { return weights == MPI_WEIGHTS_EMPTY ? nullptr : weights; }

// May weights be written to this output array?
bool writable_weights(const int weights[]) {
  return weights != nullptr && weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY;
}

void check_max_degree(int value, const char* name) {
  if (value < 0) throw distopo::Error(MPI_ERR_ARG, std::string(name) + " = " + std::to_string(value) + " is negative");
}

}  // namespace

DISTOPO_CAPI int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                                       const int destinations[], const int weights[], MPI_Info info, int reorder,
                                       MPI_Comm* comm_dist_graph) {
  return guarded(comm_old, "MPI_Dist_graph_create", [&] {
    require_pointer(comm_dist_graph, "comm_dist_graph");
    *comm_dist_graph = MPI_COMM_NULL;  // what the caller holds if the call fails
    const distopo::DistGraphOptions options{.weighted = !is_unweighted(weights), .reorder = reorder != 0, .info = info};
    *comm_dist_graph =
        distopo::dist_graph_create(comm_old, n, sources, degrees, destinations, weights_to_read(weights), options)
            .release();
  });
}

DISTOPO_CAPI int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                                const int sourceweights[], int outdegree, const int destinations[],
                                                const int destweights[], MPI_Info info, int reorder,
                                                MPI_Comm* comm_dist_graph) {
  return guarded(comm_old, "MPI_Dist_graph_create_adjacent", [&] {
    require_pointer(comm_dist_graph, "comm_dist_graph");
    *comm_dist_graph = MPI_COMM_NULL;  // what the caller holds if the call fails
    // Weighted unless MPI_UNWEIGHTED; giving it for one side only is an error
    // that distopo's own check reports on every rank, naming the rank and the
    // argument (the sentinel is passed on for that).
    const bool weighted = !is_unweighted(sourceweights) || !is_unweighted(destweights);
    const distopo::DistGraphOptions options{.weighted = weighted, .reorder = reorder != 0, .info = info};
    *comm_dist_graph =
        distopo::dist_graph_create_adjacent(comm_old, indegree, sources, weights_to_read(sourceweights), outdegree,
                                            destinations, weights_to_read(destweights), options)
            .release();
  });
}

DISTOPO_CAPI int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  return served(
      comm, "MPI_Dist_graph_neighbors_count",
      [&] {
        require_pointer(indegree, "indegree");
        require_pointer(outdegree, "outdegree");
        require_pointer(weighted, "weighted");
        const distopo::DistGraphDegrees degrees = distopo::dist_graph_neighbors_count(comm);
        *indegree = degrees.indegree;
        *outdegree = degrees.outdegree;
        *weighted = degrees.weighted ? 1 : 0;
      },
      [&] { return PMPI_Dist_graph_neighbors_count(comm, indegree, outdegree, weighted); });
}

DISTOPO_CAPI int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                                          int maxoutdegree, int destinations[], int destweights[]) {
  return served(
      comm, "MPI_Dist_graph_neighbors",
      [&] {
        check_max_degree(maxindegree, "maxindegree");
        check_max_degree(maxoutdegree, "maxoutdegree");
        const distopo::DistGraphNeighbors& lists = distopo::dist_graph_neighbors(comm);
        // Only the first max*degree entries; weights only where the graph has them
        // and the caller gave an array for them.
        const auto copy_side = [&](std::span<const int> ranks, std::span<const int> weights, int max, int out_ranks[],
                                   int out_weights[], const char* what) {
          const std::size_t n = std::min(ranks.size(), static_cast<std::size_t>(max));
          if (n == 0) return;
          require_pointer(out_ranks, what);
          std::copy_n(ranks.begin(), n, out_ranks);
          if (lists.weighted && writable_weights(out_weights)) std::copy_n(weights.begin(), n, out_weights);
        };
        copy_side(lists.sources, lists.source_weights, maxindegree, sources, sourceweights, "sources");
        copy_side(lists.destinations, lists.destination_weights, maxoutdegree, destinations, destweights,
                  "destinations");
      },
      [&] {
        return PMPI_Dist_graph_neighbors(comm, maxindegree, sources, sourceweights, maxoutdegree, destinations,
                                         destweights);
      });
}

DISTOPO_CAPI int MPI_Topo_test(MPI_Comm comm, int* status) {
  return guarded(comm, "MPI_Topo_test", [&] {
    require_pointer(status, "status");
    switch (distopo::topo_test(comm)) {
      case distopo::TopologyKind::cartesian:
        *status = MPI_CART;
        break;
      case distopo::TopologyKind::graph:
        *status = MPI_GRAPH;
        break;
      case distopo::TopologyKind::dist_graph:
        *status = MPI_DIST_GRAPH;
        break;
      case distopo::TopologyKind::undefined:
        // Perhaps a topology MPICH made without distopo (PMPI_ names).
        distopo::check_mpi(PMPI_Topo_test(comm, status), "MPI_Topo_test");
        break;
    }
  });
}
