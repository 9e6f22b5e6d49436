// Heap per simulated rank under SMPI, where all ranks share one process:
// preloaded into smpirun (LD_PRELOAD), it replaces malloc and friends and
// operator new/delete with glibc's own allocator (its exported __libc_* entry
// points) and books every block to the SimGrid actor that allocated it, in a
// header in front of the block, so a block freed by another actor (SMPI's
// copy of a small message, made by the sender and freed by the receiver)
// leaves its owner's account. Allocations made by SimGrid's kernel (simcalls
// run outside any actor) are booked to nobody.
//
// Each rank has two accounts: everything it allocated ("total"), and what its
// own code allocated ("own"): blocks whose allocation was called from outside
// libsimgrid. The difference is the simulated MPI library's own bookkeeping
// (request objects, message copies, collective buffers, and SMPI's global
// tables, which grow in whichever rank's context happens to need more room).
// The driver reads the figures through the functions below (declared weak
// there, so it runs without the meter too).
#include <link.h>
#include <malloc.h>
#include <simgrid/actor.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

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
  void add(std::int64_t bytes) {
    live += bytes;
    if (live > peak) peak = live;
  }
};
struct Accounts {
  Account own;
  Account total;
};
Accounts accounts[kMaxActors];

// libsimgrid's code, found once the meter is armed.
std::uintptr_t simgrid_begin = 0;
std::uintptr_t simgrid_end = 0;

int find_simgrid(dl_phdr_info* info, std::size_t, void*) {
  if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "libsimgrid") == nullptr) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD || (segment.p_flags & PF_X) == 0) continue;
    simgrid_begin = info->dlpi_addr + segment.p_vaddr;
    simgrid_end = simgrid_begin + segment.p_memsz;
  }
  return 1;
}

bool from_simgrid(const void* caller) {
  const auto address = reinterpret_cast<std::uintptr_t>(caller);
  return address >= simgrid_begin && address < simgrid_end;
}
// Nothing is booked until the driver first asks: before the simulation runs,
// there is no actor to ask SimGrid about.
std::atomic<bool> armed{false};

// In front of every block: where the underlying allocation starts, the size
// the caller asked for, and the owner.
struct alignas(16) Header {
  void* base;
  std::size_t size;
  std::uint32_t owner;
  std::uint32_t own;  // 1: booked to the owner's own account too
};

std::uint32_t current_actor() {
  if (!armed.load(std::memory_order_relaxed) || sg_actor_self() == nullptr) return kNobody;
  const auto pid = static_cast<std::size_t>(sg_actor_self_get_pid());
  return pid < kMaxActors ? static_cast<std::uint32_t>(pid) : kNobody;
}

Header* header_of(void* pointer) { return static_cast<Header*>(pointer) - 1; }

// `alignment` is a power of two of at least 16; `caller` is the code that
// asked for the block.
void* allocate(std::size_t size, std::size_t alignment, const void* caller) {
  if (size > SIZE_MAX - alignment - sizeof(Header)) return nullptr;
  const std::size_t front = alignment > sizeof(Header) ? alignment : sizeof(Header);
  void* base = alignment > 16 ? __libc_memalign(alignment, front + size) : __libc_malloc(front + size);
  if (base == nullptr) return nullptr;
  void* user = static_cast<char*>(base) + front;
  Header* header = header_of(user);
  header->base = base;
  header->size = size;
  header->owner = current_actor();
  header->own = header->owner != kNobody && !from_simgrid(caller);
  if (header->owner != kNobody) {
    accounts[header->owner].total.add(static_cast<std::int64_t>(size));
    if (header->own) accounts[header->owner].own.add(static_cast<std::int64_t>(size));
  }
  return user;
}

void release(void* pointer) {
  if (pointer == nullptr) return;
  const Header* header = header_of(pointer);
  if (header->owner != kNobody) {
    accounts[header->owner].total.live -= static_cast<std::int64_t>(header->size);
    if (header->own) accounts[header->owner].own.live -= static_cast<std::int64_t>(header->size);
  }
  __libc_free(header->base);
}

void* aligned(std::size_t alignment, std::size_t size, const void* caller) {
  if (alignment < 16) alignment = 16;
  if ((alignment & (alignment - 1)) != 0) {
    errno = EINVAL;
    return nullptr;
  }
  return allocate(size, alignment, caller);
}

void* resize(void* pointer, std::size_t size, const void* caller) {
  if (pointer == nullptr) return allocate(size, 16, caller);
  if (size == 0) {
    release(pointer);
    return nullptr;
  }
  void* moved = allocate(size, 16, caller);
  if (moved == nullptr) return nullptr;  // the old block stays
  const std::size_t old_size = header_of(pointer)->size;
  std::memcpy(moved, pointer, old_size < size ? old_size : size);
  release(pointer);
  return moved;
}

void* new_or_throw(std::size_t size, std::size_t alignment, const void* caller) {
  void* pointer = allocate(size, alignment, caller);
  if (pointer == nullptr) throw std::bad_alloc();
  return pointer;
}

}  // namespace

extern "C" {

// Starts a measurement for the calling rank; returns its own live bytes.
long long distopo_actor_heap_reset() {
  if (!armed.exchange(true)) dl_iterate_phdr(find_simgrid, nullptr);
  const std::uint32_t actor = current_actor();
  if (actor == kNobody) return 0;
  accounts[actor].own.peak = accounts[actor].own.live;
  accounts[actor].total.peak = accounts[actor].total.live;
  return accounts[actor].own.live;
}

// The calling rank's highest own live bytes since its last reset.
long long distopo_actor_heap_peak() {
  const std::uint32_t actor = current_actor();
  return actor == kNobody ? 0 : accounts[actor].own.peak;
}

// The same, counting the simulated MPI library's blocks too; the baseline is
// the total live bytes at the reset.
long long distopo_actor_heap_total_live() {
  const std::uint32_t actor = current_actor();
  return actor == kNobody ? 0 : accounts[actor].total.live;
}
long long distopo_actor_heap_total_peak() {
  const std::uint32_t actor = current_actor();
  return actor == kNobody ? 0 : accounts[actor].total.peak;
}

void* malloc(std::size_t size) { return allocate(size, 16, __builtin_return_address(0)); }
void free(void* pointer) { release(pointer); }

void* calloc(std::size_t count, std::size_t size) {
  if (size != 0 && count > SIZE_MAX / size) return nullptr;
  void* pointer = allocate(count * size, 16, __builtin_return_address(0));
  if (pointer != nullptr) std::memset(pointer, 0, count * size);
  return pointer;
}

void* realloc(void* pointer, std::size_t size) { return resize(pointer, size, __builtin_return_address(0)); }
void* memalign(std::size_t alignment, std::size_t size) {
  return aligned(alignment, size, __builtin_return_address(0));
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  return aligned(alignment, size, __builtin_return_address(0));
}
void* valloc(std::size_t size) { return aligned(4096, size, __builtin_return_address(0)); }
void* pvalloc(std::size_t size) {
  return aligned(4096, (size + 4095) & ~std::size_t{4095}, __builtin_return_address(0));
}

int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* pointer = aligned(alignment, size, __builtin_return_address(0));
  if (pointer == nullptr) return ENOMEM;
  *out = pointer;
  return 0;
}

std::size_t malloc_usable_size(void* pointer) { return pointer == nullptr ? 0 : header_of(pointer)->size; }

}  // extern "C"

// operator new and delete, so that the caller of `new` (libsimgrid or not)
// is the one recorded.
void* operator new(std::size_t size) { return new_or_throw(size, 16, __builtin_return_address(0)); }
void* operator new[](std::size_t size) { return new_or_throw(size, 16, __builtin_return_address(0)); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return allocate(size, 16, __builtin_return_address(0));
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return allocate(size, 16, __builtin_return_address(0));
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  return new_or_throw(size, std::max<std::size_t>(16, static_cast<std::size_t>(alignment)),
                      __builtin_return_address(0));
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return new_or_throw(size, std::max<std::size_t>(16, static_cast<std::size_t>(alignment)),
                      __builtin_return_address(0));
}
void operator delete(void* pointer) noexcept { release(pointer); }
void operator delete[](void* pointer) noexcept { release(pointer); }
void operator delete(void* pointer, std::size_t) noexcept { release(pointer); }
void operator delete[](void* pointer, std::size_t) noexcept { release(pointer); }
void operator delete(void* pointer, std::align_val_t) noexcept { release(pointer); }
void operator delete[](void* pointer, std::align_val_t) noexcept { release(pointer); }
void operator delete(void* pointer, std::size_t, std::align_val_t) noexcept { release(pointer); }
void operator delete[](void* pointer, std::size_t, std::align_val_t) noexcept { release(pointer); }
