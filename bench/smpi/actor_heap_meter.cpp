// Heap per simulated rank under SMPI, where all ranks share one process:
// preloaded into smpirun (LD_PRELOAD), it replaces malloc and friends with
// glibc's own allocator (its exported __libc_* entry points) and books every
// block to the SimGrid actor that allocated it, in a header in front of the
// block, so a block freed by another actor (SMPI's copy of a small message,
// made by the sender and freed by the receiver) leaves its owner's account.
// Allocations made by SimGrid's kernel (simcalls run outside any actor) are
// booked to nobody. The driver reads the figures through the two functions
// below (declared weak there, so it runs without the meter too).
#include <malloc.h>
#include <simgrid/actor.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

extern "C" {
void* __libc_malloc(std::size_t size);
void __libc_free(void* pointer);
void* __libc_memalign(std::size_t alignment, std::size_t size);
}

namespace {

// Actor ids of an SMPI run are 0 (maestro) and 1..P. Static storage (bss).
constexpr std::size_t kMaxActors = std::size_t{1} << 18;
constexpr std::uint32_t kNobody = 0xffffffffU;
struct Account {
  std::int64_t live;
  std::int64_t peak;
};
Account accounts[kMaxActors];
// Nothing is booked until the driver first asks: before the simulation runs,
// there is no actor to ask SimGrid about.
std::atomic<bool> armed{false};

// In front of every block: where the underlying allocation starts, the size
// the caller asked for, and the owner.
struct alignas(16) Header {
  void* base;
  std::size_t size;
  std::uint32_t owner;
  std::uint32_t magic;
};
constexpr std::uint32_t kMagic = 0x5e4a11ecU;

std::uint32_t current_actor() {
  if (!armed.load(std::memory_order_relaxed) || sg_actor_self() == nullptr) return kNobody;
  const auto pid = static_cast<std::size_t>(sg_actor_self_get_pid());
  return pid < kMaxActors ? static_cast<std::uint32_t>(pid) : kNobody;
}

Header* header_of(void* pointer) { return static_cast<Header*>(pointer) - 1; }

// `alignment` is a power of two of at least 16.
void* allocate(std::size_t size, std::size_t alignment) {
  if (size > SIZE_MAX - alignment - sizeof(Header)) return nullptr;
  const std::size_t front = alignment > sizeof(Header) ? alignment : sizeof(Header);
  void* base = alignment > 16 ? __libc_memalign(alignment, front + size) : __libc_malloc(front + size);
  if (base == nullptr) return nullptr;
  void* user = static_cast<char*>(base) + front;
  Header* header = header_of(user);
  header->base = base;
  header->size = size;
  header->owner = current_actor();
  header->magic = kMagic;
  if (header->owner != kNobody) {
    Account& account = accounts[header->owner];
    account.live += static_cast<std::int64_t>(size);
    if (account.live > account.peak) account.peak = account.live;
  }
  return user;
}

void release(void* pointer) {
  if (pointer == nullptr) return;
  Header* header = header_of(pointer);
  if (header->owner != kNobody) accounts[header->owner].live -= static_cast<std::int64_t>(header->size);
  header->magic = 0;
  __libc_free(header->base);
}

}  // namespace

extern "C" {

// Starts a measurement for the calling rank; returns its live bytes.
long long distopo_actor_heap_reset() {
  armed.store(true, std::memory_order_relaxed);
  const std::uint32_t actor = current_actor();
  if (actor == kNobody) return 0;
  accounts[actor].peak = accounts[actor].live;
  return accounts[actor].live;
}

// The calling rank's highest live bytes since its last reset.
long long distopo_actor_heap_peak() {
  const std::uint32_t actor = current_actor();
  return actor == kNobody ? 0 : accounts[actor].peak;
}

void* malloc(std::size_t size) { return allocate(size, 16); }
void free(void* pointer) { release(pointer); }

void* calloc(std::size_t count, std::size_t size) {
  if (size != 0 && count > SIZE_MAX / size) return nullptr;
  void* pointer = allocate(count * size, 16);
  if (pointer != nullptr) std::memset(pointer, 0, count * size);
  return pointer;
}

void* realloc(void* pointer, std::size_t size) {
  if (pointer == nullptr) return allocate(size, 16);
  if (size == 0) {
    release(pointer);
    return nullptr;
  }
  void* moved = allocate(size, 16);
  if (moved == nullptr) return nullptr;  // the old block stays
  const std::size_t old_size = header_of(pointer)->size;
  std::memcpy(moved, pointer, old_size < size ? old_size : size);
  release(pointer);
  return moved;
}

void* memalign(std::size_t alignment, std::size_t size) {
  if (alignment < 16) alignment = 16;
  if ((alignment & (alignment - 1)) != 0) {
    errno = EINVAL;
    return nullptr;
  }
  return allocate(size, alignment);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) { return memalign(alignment, size); }
void* valloc(std::size_t size) { return memalign(4096, size); }
void* pvalloc(std::size_t size) { return memalign(4096, (size + 4095) & ~std::size_t{4095}); }

int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* pointer = memalign(alignment, size);
  if (pointer == nullptr) return ENOMEM;
  *out = pointer;
  return 0;
}

std::size_t malloc_usable_size(void* pointer) { return pointer == nullptr ? 0 : header_of(pointer)->size; }

}  // extern "C"
