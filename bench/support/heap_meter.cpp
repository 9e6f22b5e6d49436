// malloc replacement that forwards to glibc's own allocator (its exported
// __libc_* entry points) and keeps count of usable bytes. Only linked into the
// benchmark driver, never into the library or a sanitizer build.
#include "heap_meter.hpp"

#include <malloc.h>

#include <atomic>
#include <cerrno>

extern "C" {
void* __libc_malloc(std::size_t size);
void __libc_free(void* pointer);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void* __libc_valloc(std::size_t size);
void* __libc_pvalloc(std::size_t size);
}

namespace {

std::atomic<std::size_t> live{0};
std::atomic<std::size_t> peak{0};

void* counted(void* pointer) {
  if (pointer == nullptr) return pointer;
  const std::size_t now =
      live.fetch_add(malloc_usable_size(pointer), std::memory_order_relaxed) + malloc_usable_size(pointer);
  std::size_t high = peak.load(std::memory_order_relaxed);
  while (now > high && !peak.compare_exchange_weak(high, now, std::memory_order_relaxed)) {
  }
  return pointer;
}

void uncount(void* pointer) {
  if (pointer != nullptr) live.fetch_sub(malloc_usable_size(pointer), std::memory_order_relaxed);
}

}  // namespace

namespace heap_meter {
std::size_t live_bytes() { return live.load(std::memory_order_relaxed); }
std::size_t reset_peak() {
  const std::size_t now = live_bytes();
  peak.store(now, std::memory_order_relaxed);
  return now;
}
std::size_t peak_bytes() { return peak.load(std::memory_order_relaxed); }
}  // namespace heap_meter

extern "C" {

void* malloc(std::size_t size) { return counted(__libc_malloc(size)); }

void free(void* pointer) {
  uncount(pointer);
  __libc_free(pointer);
}

void* calloc(std::size_t count, std::size_t size) { return counted(__libc_calloc(count, size)); }

void* realloc(void* pointer, std::size_t size) {
  const std::size_t old_size = pointer != nullptr ? malloc_usable_size(pointer) : 0;
  void* moved = __libc_realloc(pointer, size);
  if (moved == nullptr && size != 0) return nullptr;  // failed: the old block stays
  live.fetch_sub(old_size, std::memory_order_relaxed);
  return counted(moved);
}

void* memalign(std::size_t alignment, std::size_t size) { return counted(__libc_memalign(alignment, size)); }
void* aligned_alloc(std::size_t alignment, std::size_t size) { return counted(__libc_memalign(alignment, size)); }
void* valloc(std::size_t size) { return counted(__libc_valloc(size)); }
void* pvalloc(std::size_t size) { return counted(__libc_pvalloc(size)); }

int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* pointer = __libc_memalign(alignment, size);
  if (pointer == nullptr) return ENOMEM;
  *out = counted(pointer);
  return 0;
}

}  // extern "C"
