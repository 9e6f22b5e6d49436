#include "failing_allocation.hpp"

#include <cstdlib>
#include <new>

namespace {

long allocations = 0;
long fail_at = -1;
bool armed = false;
bool failed = false;

}  // namespace

namespace distopo::testing {

void arm_failing_allocation(long failing) { allocations = 0, fail_at = failing, armed = true, failed = false; }
void disarm_failing_allocation() { armed = false; }
long allocations_counted() { return allocations; }
bool allocation_failed() { return failed; }

}  // namespace distopo::testing

// Every form a library call may use, so that new and delete always pair
// (the sanitizers check it). GCC takes free() of what operator new returned
// for a mismatch; here operator new is malloc.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  if (armed && allocations++ == fail_at) {
    failed = true;
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return ::operator new(size, tag); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
