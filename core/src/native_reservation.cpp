#include "distopo/core/native_reservation.hpp"

#include <sys/mman.h>

#include <new>
#include <utility>

namespace distopo {

NativeReservation::NativeReservation(NativeReservation&& other) noexcept
    : held_(std::exchange(other.held_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

NativeReservation& NativeReservation::operator=(NativeReservation&& other) noexcept {
  if (this != &other) {
    release();
    held_ = std::exchange(other.held_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void NativeReservation::reserve([[maybe_unused]] std::uint64_t ints) {
#if DISTOPO_NATIVE_TOPOLOGY
  if (ints < kMinReservedInts) return;
  if (ints > (SIZE_MAX - kMpichOverhead) / sizeof(int)) throw std::bad_alloc();
  const std::size_t bytes = static_cast<std::size_t>(ints) * sizeof(int) + kMpichOverhead;
  if (bytes <= bytes_) return;
#ifdef __linux__
  // Grown as the messages arrive: one system call each, nothing to copy.
  if (held_ != nullptr) {
    void* grown = mremap(held_, bytes_, bytes, MREMAP_MAYMOVE);
    if (grown == MAP_FAILED) throw std::bad_alloc();  // the old room stays held
    held_ = grown;
    bytes_ = bytes;
    return;
  }
#endif
  release();  // the old room goes before the larger one is taken
  void* room = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (room == MAP_FAILED) throw std::bad_alloc();
  held_ = room;
  bytes_ = bytes;
#endif
}

void NativeReservation::release() noexcept {
  if (held_ != nullptr) munmap(held_, bytes_);
  held_ = nullptr;
  bytes_ = 0;
}

}  // namespace distopo
