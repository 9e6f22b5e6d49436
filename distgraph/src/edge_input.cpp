#include "edge_input.hpp"

#include <algorithm>
#include <climits>

namespace distopo::detail {

__attribute__((target_clones("avx2", "default"))) std::pair<int, int> range_of(const int* values, std::int64_t count) {
  int min = INT_MAX;
  int max = INT_MIN;
  for (std::int64_t i = 0; i < count; ++i) {
    min = std::min(min, values[i]);
    max = std::max(max, values[i]);
  }
  return {min, max};
}

__attribute__((target_clones("avx2", "default"))) std::int64_t sum_of(const int* values, std::int64_t count) {
  std::int64_t sum = 0;
  for (std::int64_t i = 0; i < count; ++i) sum += values[i];
  return sum;
}

}  // namespace distopo::detail
