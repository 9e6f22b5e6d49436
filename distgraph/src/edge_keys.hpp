#pragma once
// Growing arrays of edge keys (what a rank buckets, sends and receives in the
// distributed-graph constructors): the memory that grows with the input, so
// where an allocation fails first. Taken with std::malloc, so that a failure
// is a std::bad_alloc the constructors turn into MPI_ERR_NO_MEM on every rank
// in every build: AddressSanitizer's operator new aborts instead of
// throwing, while its malloc returns null (allocator_may_return_null=1).
#include <cstdlib>
#include <limits>
#include <new>
#include <span>
#include <utility>
#include <vector>

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
    if (void* memory = std::malloc(n * sizeof(T))) return static_cast<T*>(memory);
    throw std::bad_alloc();
  }
  void deallocate(T* memory, std::size_t) noexcept { std::free(memory); }
  friend bool operator==(const MallocAllocator&, const MallocAllocator&) = default;
};

using EdgeKeys = std::vector<EdgeKey, MallocAllocator<EdgeKey>>;

// The keys a rank stores: its own, then each message as it arrives, whose
// count nobody knows beforehand. Grown to the exact size with realloc, never
// geometrically: a vector would hold up to twice the keys (and copy them once
// more while growing), and large blocks grow by remapping their pages
// (glibc's mremap), not by copying. Nothing is zero-filled before the
// message overwrites it.
class KeyBuffer {
 public:
  KeyBuffer() = default;
  KeyBuffer(const KeyBuffer&) = delete;
  KeyBuffer& operator=(const KeyBuffer&) = delete;
  ~KeyBuffer() { std::free(keys_); }

  // Room for `capacity` keys in all; throws std::bad_alloc, keeping the keys.
  void reserve(std::size_t capacity) {
    if (capacity <= capacity_) return;
    if (capacity > std::numeric_limits<std::size_t>::max() / sizeof(EdgeKey)) throw std::bad_array_new_length();
    void* grown = std::realloc(keys_, capacity * sizeof(EdgeKey));
    if (grown == nullptr) throw std::bad_alloc();
    keys_ = static_cast<EdgeKey*>(grown);
    capacity_ = capacity;
  }
  // Appends `count` keys left for the caller to write; returns the first.
  EdgeKey* append(std::size_t count) {
    reserve(size_ + count);
    return keys_ + std::exchange(size_, size_ + count);
  }
  void push_back(EdgeKey key) {
    if (size_ == capacity_) reserve(capacity_ < 8 ? 16 : 2 * capacity_);  // callers reserve first; this is the odd case
    keys_[size_++] = key;
  }
  void release() {
    std::free(std::exchange(keys_, nullptr));
    size_ = capacity_ = 0;
  }

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] EdgeKey* data() { return keys_; }
  [[nodiscard]] std::span<EdgeKey> keys() { return {keys_, size_}; }
  [[nodiscard]] std::span<const EdgeKey> keys() const { return {keys_, size_}; }

 private:
  EdgeKey* keys_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace distopo::detail
