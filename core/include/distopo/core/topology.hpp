#pragma once
// The topology record cached on a communicator (the standard: "topology
// information is cached on the communicator"). MPI_Comm_dup carries it (the
// keyval's copy callback shares the immutable record), MPI_Comm_free drops it.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <utility>
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

// One list of a distributed graph record: a read-only view into the
// record's buffer. It reads like a const std::vector<int> (and converts to
// one for code that wants a copy).
class NeighborList {
 public:
  using value_type = int;
  using iterator = const int*;
  using const_iterator = const int*;
  NeighborList() = default;
  NeighborList(const int* data, std::size_t size) : data_(data), size_(size) {}

  [[nodiscard]] const int* begin() const { return data_; }
  [[nodiscard]] const int* end() const { return data_ + size_; }
  [[nodiscard]] const int* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  const int& operator[](std::size_t i) const { return data_[i]; }
  operator std::vector<int>() const { return {begin(), end()}; }  // NOLINT: copies, as a vector member did

  friend bool operator==(const NeighborList& a, const NeighborList& b) { return std::ranges::equal(a, b); }
  friend bool operator==(const NeighborList& a, const std::vector<int>& b) { return std::ranges::equal(a, b); }

 private:
  const int* data_ = nullptr;
  std::size_t size_ = 0;
};

// The memory of a record's lists: std::malloc'ed blocks (malloc, so that a
// failure is std::bad_alloc in every build: AddressSanitizer's operator new
// aborts instead), freed with the last record that shares them. Usually one
// block; dist_graph_create keeps each list where it was written (the sorted
// own lists, the received weights, the room), so up to kMaxBlocks.
class ListStorage {
 public:
  static constexpr std::size_t kMaxBlocks = 3;
  ListStorage() = default;
  ListStorage(const ListStorage&) = delete;
  ListStorage& operator=(const ListStorage&) = delete;
  ~ListStorage();
  [[nodiscard]] int* data() const { return blocks_[0]; }
  // Takes `block` (from std::malloc or null) as the first block, freeing the
  // one held before.
  void adopt(void* block) noexcept;
  // Takes `block` (from std::malloc or null) besides those held; at most
  // kMaxBlocks in all.
  void add(void* block) noexcept;
  // Gives up the first block without freeing it.
  [[nodiscard]] int* release() noexcept { return std::exchange(blocks_[0], nullptr); }

 private:
  std::array<int*, kMaxBlocks> blocks_{};
};

// Only this rank's lists: nothing of size P. The lists are views into
// blocks the record shares with its copies (records are immutable once
// attached), so that dist_graph_create hands over the memory it wrote them
// in without a copy.
struct DistGraphTopology {
  NeighborList sources;
  NeighborList source_weights;  // empty when unweighted
  NeighborList destinations;
  NeighborList destination_weights;  // empty when unweighted
  bool weighted = false;
  std::shared_ptr<const ListStorage> storage;  // holds the lists

  // A record holding copies of the given lists (the weights only when `weighted`).
  static DistGraphTopology copy_of(std::span<const int> sources, std::span<const int> source_weights,
                                   std::span<const int> destinations, std::span<const int> destination_weights,
                                   bool weighted);
};

// The block of a record being written, laid out as [sources | destinations
// | source weights | destination weights]: the ranks of all ends in list
// order are one array, their weights another.
class DistGraphBuffer {
 public:
  // Empty; its record's storage is allocated by prepare() or on first use.
  DistGraphBuffer() = default;
  // Room for `ints` ints; throws std::bad_alloc.
  explicit DistGraphBuffer(std::size_t ints) { allocate(ints); }
  DistGraphBuffer(DistGraphBuffer&& other) noexcept
      : storage_(std::move(other.storage_)), capacity_(std::exchange(other.capacity_, 0)) {}
  DistGraphBuffer& operator=(DistGraphBuffer&& other) noexcept {
    storage_ = std::move(other.storage_);
    capacity_ = std::exchange(other.capacity_, 0);
    return *this;
  }

  // Allocates what the record will share (not the lists), so that nothing
  // is left to allocate when they are handed over; throws std::bad_alloc.
  void prepare();
  // Room for `ints` ints (what it held is dropped first); throws std::bad_alloc.
  void allocate(std::size_t ints);
  // Takes `block` (std::malloc'ed, room for `ints` ints) in place of what it
  // held. Needs prepare() first; allocates nothing.
  void adopt(void* block, std::size_t ints) noexcept;
  // Gives back what the lists do not need (realloc in place); allocates nothing.
  void shrink_to(std::size_t ints) noexcept;
  // Gives up the block (std::malloc'ed) without freeing it, keeping the storage.
  [[nodiscard]] int* release() noexcept {
    capacity_ = 0;
    return storage_ ? storage_->release() : nullptr;
  }

  [[nodiscard]] int* data() const { return storage_ ? storage_->data() : nullptr; }
  [[nodiscard]] std::size_t capacity() const { return capacity_; }

  // The record of the lists written into the buffer (which it then holds).
  // Needs prepare() (or allocate()) first; allocates nothing.
  DistGraphTopology finish(std::size_t indegree, std::size_t outdegree, bool weighted) &&;

  // The record of `lists`, views into `blocks` (each std::malloc'ed or null,
  // at most ListStorage::kMaxBlocks), which the record takes over in place
  // of what the buffer held. Needs prepare() first; allocates nothing.
  DistGraphTopology finish_in(std::span<void* const> blocks, const DistGraphTopology& lists) &&;

 private:
  std::shared_ptr<ListStorage> storage_;
  std::size_t capacity_ = 0;
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
