#pragma once
// Large blocks of edge ends are written once, front to back or scattered by a
// radix pass, right after they are taken: with 4 KiB pages their first touch
// is one page fault per 4 KiB, and a scatter over a few MiB misses the TLB.
// Asking for transparent huge pages (where the kernel leaves that to the
// program: THP "madvise", Debian's default) cuts both; see
// docs/design/distgraph-create.md, "Huge pages".
#include <cstddef>

namespace distopo {

// Advises the kernel to back the malloc'ed `block` of `bytes` with huge pages
// where whole ones fit. The advice covers every page of the allocation, so
// that glibc can still grow the block by remapping it. Only for blocks that
// will be written soon (the advice costs a system call); does nothing for
// blocks smaller than two huge pages, or where the kernel has none.
void advise_huge_pages(void* block, std::size_t bytes) noexcept;

}  // namespace distopo
