#include "distopo/core/topology.hpp"

#include <cstdlib>
#include <limits>
#include <new>
#include <string>

#include "distopo/core/comm_cache.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/huge_pages.hpp"
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

// MPI_Comm_dup and friends carry the record; MPI_Comm_free drops it.
constinit const RuntimeKeyval topology_keyval{copy_record, detail::delete_cached<SharedRecord>};

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

namespace distopo {

ListStorage::~ListStorage() {
  for (int* block : blocks_) std::free(block);
}

void ListStorage::adopt(void* block) noexcept {
  std::free(blocks_[0]);
  blocks_[0] = static_cast<int*>(block);
}

void ListStorage::add(void* block) noexcept {
  for (int*& slot : blocks_) {
    if (slot == nullptr) {
      slot = static_cast<int*>(block);
      return;
    }
  }
  std::abort();  // more than kMaxBlocks: a bug of the caller, never input
}

void DistGraphBuffer::prepare() {
  if (!storage_) storage_ = std::make_shared<ListStorage>();
}

void DistGraphBuffer::allocate(std::size_t ints) {
  prepare();
  storage_->adopt(nullptr);  // the old room goes before the new one is taken
  capacity_ = 0;
  if (ints == 0) return;
  if (ints > std::numeric_limits<std::size_t>::max() / sizeof(int)) throw std::bad_array_new_length();
  void* block = std::malloc(ints * sizeof(int));
  if (block == nullptr) throw std::bad_alloc();
  advise_huge_pages(block, ints * sizeof(int));
  storage_->adopt(block);
  capacity_ = ints;
}

void DistGraphBuffer::adopt(void* block, std::size_t ints) noexcept {
  storage_->adopt(block);
  capacity_ = block == nullptr ? 0 : ints;
}

void DistGraphBuffer::shrink_to(std::size_t ints) noexcept {
  if (ints >= capacity_ || ints == 0) return;
  if (void* smaller = std::realloc(storage_->data(), ints * sizeof(int))) {
    static_cast<void>(storage_->release());  // realloc took the old block
    storage_->adopt(smaller);
    capacity_ = ints;
  }
}

DistGraphTopology DistGraphBuffer::finish(std::size_t indegree, std::size_t outdegree, bool weighted) && {
  const std::size_t ends = indegree + outdegree;
  const int* const lists = data();
  DistGraphTopology record;
  record.weighted = weighted;
  if (ends > 0) {
    record.sources = NeighborList(lists, indegree);
    record.destinations = NeighborList(lists + indegree, outdegree);
    if (weighted) {
      record.source_weights = NeighborList(lists + ends, indegree);
      record.destination_weights = NeighborList(lists + ends + indegree, outdegree);
    }
  }
  record.storage = std::move(storage_);
  capacity_ = 0;
  return record;
}

DistGraphTopology DistGraphBuffer::finish_in(std::span<void* const> blocks, const DistGraphTopology& lists) && {
  storage_->adopt(nullptr);
  for (void* block : blocks) {
    if (block != nullptr) storage_->add(block);
  }
  DistGraphTopology record;
  record.sources = lists.sources;
  record.source_weights = lists.source_weights;
  record.destinations = lists.destinations;
  record.destination_weights = lists.destination_weights;
  record.weighted = lists.weighted;
  record.storage = std::move(storage_);
  capacity_ = 0;
  return record;
}

DistGraphTopology DistGraphTopology::copy_of(std::span<const int> sources, std::span<const int> source_weights,
                                             std::span<const int> destinations,
                                             std::span<const int> destination_weights, bool weighted) {
  const std::size_t ends = sources.size() + destinations.size();
  DistGraphBuffer buffer(weighted ? 2 * ends : ends);
  int* const lists = buffer.data();
  std::copy(sources.begin(), sources.end(), lists);
  std::copy(destinations.begin(), destinations.end(), lists + sources.size());
  if (weighted) {
    std::copy_n(source_weights.begin(), sources.size(), lists + ends);
    std::copy_n(destination_weights.begin(), destinations.size(), lists + ends + sources.size());
  }
  return std::move(buffer).finish(sources.size(), destinations.size(), weighted);
}

}  // namespace distopo
