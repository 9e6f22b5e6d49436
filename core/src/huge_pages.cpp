#include "distopo/core/huge_pages.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

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
  // Every page of the block's allocation, not only the huge pages inside it:
  // glibc maps a large block on its own and grows it with mremap, which
  // fails (and realloc copies the whole block to fresh pages) once the
  // advice has split the mapping in two kinds. malloc_usable_size reaches
  // the mapping's end; its start is the block's page.
  const std::size_t small_page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(block);
  const std::uintptr_t first = begin / small_page * small_page;
  const std::uintptr_t end = begin + malloc_usable_size(block);  // at least `bytes`
  const std::uintptr_t last = (end + small_page - 1) / small_page * small_page;
  // Failure leaves the block as it was: the advice is only a speed-up.
  static_cast<void>(madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE));
#else
  static_cast<void>(block);
  static_cast<void>(bytes);
#endif
}

}  // namespace distopo
