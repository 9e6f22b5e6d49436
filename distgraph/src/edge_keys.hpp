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

}  // namespace distopo::detail
