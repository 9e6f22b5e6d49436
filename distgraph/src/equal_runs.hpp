#pragma once
// Lists, the own list's slices and the owners' runs are all cut where a key
// changes: one loop for all of them.
#include <cstddef>

namespace distopo::detail {

// visit(first, last) for each maximal run [first, last) of [begin, end) over
// which key(i) stays key(first).
template <class Key, class Visit>
void for_each_equal_run(std::size_t begin, std::size_t end, const Key& key, const Visit& visit) {
  for (std::size_t first = begin; first < end;) {
    std::size_t last = first + 1;
    while (last < end && key(last) == key(first)) ++last;
    visit(first, last);
    first = last;
  }
}

}  // namespace distopo::detail
