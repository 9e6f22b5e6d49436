#pragma once
// The topology record cached on a communicator (the standard: "topology
// information is cached on the communicator"). MPI_Comm_dup carries it (the
// keyval's copy callback shares the immutable record), MPI_Comm_free drops it.
#include <mpi.h>

#include <memory>
#include <variant>
#include <vector>

namespace distopo {

// Periodicity of one Cartesian dimension.
enum class Periodicity : bool { open = false, periodic = true };

struct CartesianTopology {
  std::vector<int> dims;
  std::vector<Periodicity> periods;
  std::vector<int> coords;  // of the calling rank
};

struct GraphTopology {
  std::vector<int> index;  // exactly as given to graph_create
  std::vector<int> edges;
};

// Only this rank's lists: nothing of size P.
struct DistGraphTopology {
  std::vector<int> sources;
  std::vector<int> source_weights;  // empty when unweighted
  std::vector<int> destinations;
  std::vector<int> destination_weights;  // empty when unweighted
  bool weighted = false;
};

using TopologyRecord = std::variant<CartesianTopology, GraphTopology, DistGraphTopology>;

// What MPI_Topo_test reports.
enum class TopologyKind { undefined, cartesian, graph, dist_graph };

// Caches `record` on `comm` (replacing any earlier record).
void attach_topology(MPI_Comm comm, TopologyRecord record);

// The record cached on `comm`, or nullptr. Local.
const TopologyRecord* find_topology(MPI_Comm comm);

// The record of kind T on `comm`; throws MPI_ERR_TOPOLOGY naming `caller` if
// `comm` carries no topology or one of another kind.
template <class T>
const T& require_topology(MPI_Comm comm, const char* caller);

TopologyKind topo_test(MPI_Comm comm);

}  // namespace distopo
