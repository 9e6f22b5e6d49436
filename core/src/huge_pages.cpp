#include "distopo/core/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <fstream>

namespace distopo {
namespace {

// The kernel's huge page size, or 0 where transparent huge pages are absent.
std::size_t huge_page_bytes() {
  static const std::size_t bytes = [] {
    std::size_t size = 0;
    std::ifstream("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size") >> size;
    return size;
  }();
  return bytes;
}

}  // namespace

void advise_huge_pages(void* block, std::size_t bytes) noexcept {
#ifdef MADV_HUGEPAGE
  const std::size_t page = huge_page_bytes();
  if (page == 0 || bytes < 2 * page) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(block);
  const std::uintptr_t first = (begin + page - 1) / page * page;
  const std::uintptr_t last = (begin + bytes) / page * page;
  // Failure leaves the block as it was: the advice is only a speed-up.
  static_cast<void>(madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE));
#else
  static_cast<void>(block);
  static_cast<void>(bytes);
#endif
}

}  // namespace distopo
