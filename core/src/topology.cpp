#include "distopo/core/topology.hpp"

#include <new>
#include <string>

#include "distopo/core/error.hpp"
#include "distopo/core/runtime.hpp"

namespace distopo {
namespace {
using SharedRecord = std::shared_ptr<const TopologyRecord>;

int copy_record(MPI_Comm, int, void*, void* attribute_in, void* attribute_out, int* flag) {
  // Records are immutable: the copy shares them.
  auto* copy = new (std::nothrow) SharedRecord(*static_cast<SharedRecord*>(attribute_in));
  if (copy == nullptr) return MPI_ERR_NO_MEM;
  *static_cast<void**>(attribute_out) = copy;
  *flag = 1;
  return MPI_SUCCESS;
}

int delete_record(MPI_Comm, int, void* attribute, void*) {
  delete static_cast<SharedRecord*>(attribute);
  return MPI_SUCCESS;
}

// MPI_Comm_dup and friends carry the record; MPI_Comm_free drops it.
constinit const RuntimeKeyval topology_keyval{copy_record, delete_record};

const char* kind_name(const TopologyRecord& record) {
  switch (record.index()) {
    case 0:
      return "a Cartesian topology";
    case 1:
      return "a graph topology";
    default:
      return "a distributed graph topology";
  }
}

template <class T>
const char* wanted_name() {
  if constexpr (std::is_same_v<T, CartesianTopology>)
    return "a Cartesian topology";
  else if constexpr (std::is_same_v<T, GraphTopology>)
    return "a graph topology";
  else
    return "a distributed graph topology";
}
}  // namespace

void attach_topology(MPI_Comm comm, TopologyRecord record) {
  const int keyval = topology_keyval.get();
  auto* attribute = new SharedRecord(std::make_shared<const TopologyRecord>(std::move(record)));
  const int rc = MPI_Comm_set_attr(comm, keyval, attribute);
  if (rc != MPI_SUCCESS) delete attribute;
  check_mpi(rc, "MPI_Comm_set_attr");
}

const TopologyRecord* find_topology(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return nullptr;
  void* attribute = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, topology_keyval.get(), &attribute, &found), "MPI_Comm_get_attr");
  if (!found) return nullptr;
  return static_cast<SharedRecord*>(attribute)->get();
}

template <class T>
const T& require_topology(MPI_Comm comm, const char* caller) {
  if (comm == MPI_COMM_NULL) throw Error(MPI_ERR_COMM, std::string(caller) + ": communicator is MPI_COMM_NULL");
  const TopologyRecord* record = find_topology(comm);
  if (record == nullptr) {
    throw Error(MPI_ERR_TOPOLOGY,
                std::string(caller) + ": communicator has no topology (" + wanted_name<T>() + " is required)");
  }
  if (const T* wanted = std::get_if<T>(record)) return *wanted;
  throw Error(MPI_ERR_TOPOLOGY,
              std::string(caller) + ": communicator carries " + kind_name(*record) + ", not " + wanted_name<T>());
}

template const CartesianTopology& require_topology<CartesianTopology>(MPI_Comm, const char*);
template const GraphTopology& require_topology<GraphTopology>(MPI_Comm, const char*);
template const DistGraphTopology& require_topology<DistGraphTopology>(MPI_Comm, const char*);

TopologyKind topo_test(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) throw Error(MPI_ERR_COMM, "topo_test: communicator is MPI_COMM_NULL");
  const TopologyRecord* record = find_topology(comm);
  if (record == nullptr) return TopologyKind::undefined;
  switch (record->index()) {
    case 0:
      return TopologyKind::cartesian;
    case 1:
      return TopologyKind::graph;
    default:
      return TopologyKind::dist_graph;
  }
}

}  // namespace distopo
