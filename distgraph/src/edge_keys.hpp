#pragma once
// Growing arrays of edge keys (what a rank buckets, sends and receives in the
// distributed-graph constructors): the memory that grows with the input, so
// where an allocation fails first. Taken with std::malloc, so that a failure
// is a std::bad_alloc the constructors turn into MPI_ERR_NO_MEM on every rank
// in every build: AddressSanitizer's operator new aborts instead of
// throwing, while its malloc returns null (allocator_may_return_null=1).
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "distopo/core/huge_pages.hpp"
#include "distopo/distgraph/edge_key.hpp"

namespace distopo::detail {

template <class T>
struct MallocAllocator {
  using value_type = T;
  MallocAllocator() = default;
  template <class U>
  explicit MallocAllocator(const MallocAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
    void* memory = std::malloc(n * sizeof(T));
    if (memory == nullptr) throw std::bad_alloc();
    advise_huge_pages(memory, n * sizeof(T));
    return static_cast<T*>(memory);
  }
  void deallocate(T* memory, std::size_t) noexcept { std::free(memory); }
  friend bool operator==(const MallocAllocator&, const MallocAllocator&) = default;
};

using EdgeKeys = std::vector<EdgeKey, MallocAllocator<EdgeKey>>;

// What a rank stores while the ends arrive (its own ends, then each message,
// whose count nobody knows beforehand), and what it buckets to send. Grown to
// the exact size with realloc, never geometrically: a vector would hold up to
// twice the items (and copy them once more while growing), and large blocks
// grow by remapping their pages (glibc's mremap), not by copying. (Once a
// process has freed a large block, glibc serves blocks up to that size from
// its heap, where realloc copies: so a buffer that holds nothing yet, such
// as the lists' room, is allocated anew instead.) Nothing is zero-filled
// before the message overwrites it.
template <class T>
class GrowingBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "moved with realloc");

 public:
  GrowingBuffer() = default;
  GrowingBuffer(const GrowingBuffer&) = delete;
  GrowingBuffer& operator=(const GrowingBuffer&) = delete;
  GrowingBuffer(GrowingBuffer&& other) noexcept
      : items_(std::exchange(other.items_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  GrowingBuffer& operator=(GrowingBuffer&& other) noexcept {
    std::swap(items_, other.items_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
    return *this;
  }
  ~GrowingBuffer() { std::free(items_); }

  // Room for `capacity` items in all; throws std::bad_alloc, keeping the items.
  void reserve(std::size_t capacity) {
    if (capacity <= capacity_) return;
    if (capacity > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
    if (size_ == 0) {
      // Nothing to keep, where realloc would copy the whole old block.
      std::free(std::exchange(items_, nullptr));
      capacity_ = 0;
    }
    void* grown = std::realloc(items_, capacity * sizeof(T));
    if (grown == nullptr) throw std::bad_alloc();
    advise_huge_pages(grown, capacity * sizeof(T));
    items_ = static_cast<T*>(grown);
    capacity_ = capacity;
  }
  // Room for `capacity` items at least, growing by half at a time when it
  // grows: for what grows with every message of an exchange (a rank of a
  // large P gets many small ones). Throws std::bad_alloc, keeping the items.
  void reserve_growing(std::size_t capacity) {
    if (capacity > capacity_) reserve(std::max(capacity, capacity_ + capacity_ / 2));
  }
  // `size` items (at most the capacity), those beyond the old size left as
  // they are in memory.
  void resize_within(std::size_t size) { size_ = std::min(size, capacity_); }
  // Gives back the room beyond the items (realloc in place); allocates nothing.
  void shrink_to_size() noexcept {
    if (size_ == 0 || size_ >= capacity_) return;
    if (void* smaller = std::realloc(items_, size_ * sizeof(T))) {
      items_ = static_cast<T*>(smaller);
      capacity_ = size_;
    }
  }
  // Appends `count` items left for the caller to write; returns the first.
  T* append(std::size_t count) {
    reserve(size_ + count);
    return items_ + std::exchange(size_, size_ + count);
  }
  void push_back(const T& item) {
    if (size_ == capacity_) reserve(capacity_ < 8 ? 16 : 2 * capacity_);  // callers reserve first; this is the odd case
    items_[size_++] = item;
  }
  // Drops the items from `size` on, keeping the room.
  void truncate(std::size_t size) { size_ = std::min(size, size_); }
  void release() {
    std::free(std::exchange(items_, nullptr));
    size_ = capacity_ = 0;
  }
  // Hands the block (std::malloc'ed, room for capacity() items) to the
  // caller, who frees it; the buffer is empty afterwards.
  [[nodiscard]] T* take_block() {
    size_ = capacity_ = 0;
    return std::exchange(items_, nullptr);
  }
  [[nodiscard]] std::size_t capacity() const { return capacity_; }

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] T* data() { return items_; }
  [[nodiscard]] std::span<T> items() { return {items_, size_}; }
  [[nodiscard]] std::span<const T> items() const { return {items_, size_}; }

 private:
  T* items_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

using KeyBuffer = GrowingBuffer<EdgeKey>;

}  // namespace distopo::detail
