#include "edge_lists.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <bit>

#include "radix_parts.hpp"

namespace distopo::detail {
namespace {

// An edge key is direction | rank | weight (edge_key.hpp): the bits above the
// weight say which list and which neighbor.
constexpr EdgeKey kWeightBits = 0x7fffffffU;
constexpr EdgeKey kNeighborBits = ~kWeightBits;

// Groups smaller than this sort their weights with std::sort.
constexpr std::size_t kMinWeightsToRadix = 256;

// Sorts weights[0, m) ascending by bits [low, low + width), the only bits in
// which they differ: LSD radix passes through `scratch` (room for m).
void sort_weights(int* weights, int* scratch, std::size_t m, unsigned low, unsigned width) {
  if (m < kMinWeightsToRadix) {
    std::sort(weights, weights + m);
    return;
  }
  const unsigned digit_bits = digit_bits_for(width);
  const std::uint32_t mask = (std::uint32_t{1} << digit_bits) - 1;
  std::array<std::size_t, std::size_t{1} << kMaxDigitBits> offsets{};
  int* from = weights;
  int* to = scratch;
  for (unsigned shift = low; shift < low + width; shift += digit_bits) {
    const auto digit = [=](int weight) { return (static_cast<std::uint32_t>(weight) >> shift) & mask; };
    std::fill_n(offsets.begin(), std::size_t{1} << digit_bits, 0);
    for (std::size_t i = 0; i < m; ++i) ++offsets[digit(from[i])];
    std::size_t running = 0;
    for (std::size_t d = 0; d < (std::size_t{1} << digit_bits); ++d) running += std::exchange(offsets[d], running);
    for (std::size_t i = 0; i < m; ++i) to[offsets[digit(from[i])]++] = from[i];
    std::swap(from, to);
  }
  if (from != weights) std::copy(from, from + m, weights);
}

// The single ends, grouped by (direction, rank) in one counting pass and one
// scatter of their weights straight into the lists; then each group's
// weights are sorted on their own, in cache and in parallel, with the keys'
// memory as scratch. Two passes over the keys where a radix sort of whole
// keys makes one per 11 varying bits and then still writes the lists.
// False (nothing written) where it does not apply: few ends (std::sort is
// faster), no Kokkos, or more (direction, rank) values than are counted.
bool write_grouped(std::span<EdgeKey> keys, const KeyBits& bits, bool weighted, DistGraphTopology& record) {
  const std::size_t n = keys.size();
  if (n <= kComparisonSortLimit || !Kokkos::is_initialized()) return false;
  const EdgeKey varying = bits.any() ^ bits.all();
  const VaryingBits neighbor_bits(bits.all() & kNeighborBits, varying & kNeighborBits);
  if (!countable(n, neighbor_bits.width())) return false;
  const std::size_t groups = std::size_t{1} << neighbor_bits.width();
  const Chunks chunks(n);
  const UnmanagedKeys view(keys.data(), n);
  ChunkCounts offsets;  // per chunk and group: where the chunk's next end of the group goes
  Kokkos::View<std::size_t*, Kokkos::HostSpace> start;  // where each group begins
  std::vector<int*> cursors;                            // offsets as places in the weight lists
  try {
    offsets = ChunkCounts(Kokkos::view_alloc(Kokkos::WithoutInitializing, "distopo::edge_lists::offsets"), chunks.count,
                          groups);
    start = Kokkos::View<std::size_t*, Kokkos::HostSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "distopo::edge_lists::starts"), groups + 1);
    if (weighted) cursors.resize(chunks.count * groups);
  } catch (const std::bad_alloc&) {
    return false;
  }
  const auto group = [=](EdgeKey key) { return static_cast<std::size_t>(neighbor_bits.pack(key)); };
  count_digits(view, chunks, offsets, group);
  scan_counts(offsets);

  // Positions run over the sources, then the destinations: packed values keep
  // the keys' order, and the direction is the highest bit of a key.
  std::size_t in_count = n;
  for (std::size_t g = 0; g < groups; ++g) {
    start(g) = offsets(0, g);
    if (in_count == n && edge_direction(neighbor_bits.unpack(g)) == EdgeDirection::out) in_count = start(g);
  }
  start(groups) = n;
  record.sources.resize(in_count);  // within the room ListRoom took: no allocation
  record.destinations.resize(n - in_count);
  // Position p in the lists: the sources first, then the destinations.
  const auto place = [in_count](int* in_list, int* out_list, std::size_t p) {
    return p < in_count ? in_list + p : out_list + (p - in_count);
  };
  int* const sources = record.sources.data();
  int* const destinations = record.destinations.data();
  Kokkos::parallel_for("distopo::edge_lists::ranks", Kokkos::RangePolicy<Exec>(0, groups), [=](std::size_t g) {
    // A group is one (direction, rank): all of it in one list.
    std::fill_n(place(sources, destinations, start(g)), start(g + 1) - start(g), edge_rank(neighbor_bits.unpack(g)));
  });
  Exec().fence();
  if (!weighted) return true;

  record.source_weights.resize(in_count);
  record.destination_weights.resize(n - in_count);
  int* const source_weights = record.source_weights.data();
  int* const destination_weights = record.destination_weights.data();
  const auto weight_place = [=](std::size_t p) { return place(source_weights, destination_weights, p); };
  // A group lies in one list, so its places are pointers into that list: the
  // scatter then has no branch on the direction, which alternates at random
  // where a message holds both.
  int** const cursor = cursors.data();
  for (std::size_t c = 0; c < chunks.count; ++c) {
    for (std::size_t g = 0; g < groups; ++g) cursor[c * groups + g] = weight_place(offsets(c, g));
  }
  Kokkos::parallel_for("distopo::edge_lists::weights", Kokkos::RangePolicy<Exec>(0, chunks.count),
                       [=](std::size_t chunk) {
                         int** const next = cursor + chunk * groups;
                         for (std::size_t i = chunks.begin(chunk), end = chunks.end(chunk, n); i < end; ++i) {
                           const EdgeKey key = view(i);
                           *next[group(key)]++ = edge_weight(key);
                         }
                       });
  Exec().fence();
  const EdgeKey weight_varying = varying & kWeightBits;
  if (weight_varying == 0) return true;
  const auto low = static_cast<unsigned>(std::countr_zero(weight_varying));
  const auto width = static_cast<unsigned>(std::bit_width(weight_varying)) - low;
  // The keys are read: their memory (room for 2n ints) is the weights' scratch.
  int* const scratch = reinterpret_cast<int*>(keys.data());
  Kokkos::parallel_for("distopo::edge_lists::sort", Kokkos::RangePolicy<Exec>(0, groups), [=](std::size_t g) {
    if (start(g + 1) - start(g) < 2) return;
    sort_weights(weight_place(start(g)), scratch + start(g), start(g + 1) - start(g), low, width);
  });
  Exec().fence();
  return true;
}

void append(DistGraphTopology& record, bool weighted, EdgeKey key, std::size_t count) {
  const bool in = edge_direction(key) == EdgeDirection::in;
  std::vector<int>& ranks = in ? record.sources : record.destinations;
  ranks.insert(ranks.end(), count, edge_rank(key));
  if (!weighted) return;
  std::vector<int>& weights = in ? record.source_weights : record.destination_weights;
  weights.insert(weights.end(), count, edge_weight(key));
}

// Sorted keys, one by one: a plain loop per direction (no call per key).
void append_sorted(DistGraphTopology& record, bool weighted, std::span<const EdgeKey> keys) {
  const auto out = std::partition_point(keys.begin(), keys.end(),
                                        [](EdgeKey key) { return edge_direction(key) == EdgeDirection::in; });
  const auto append_direction = [weighted](std::span<const EdgeKey> ends, std::vector<int>& ranks,
                                           std::vector<int>& weights) {
    for (const EdgeKey key : ends) ranks.push_back(edge_rank(key));
    if (!weighted) return;
    for (const EdgeKey key : ends) weights.push_back(edge_weight(key));
  };
  append_direction(std::span<const EdgeKey>(keys.begin(), out), record.sources, record.source_weights);
  append_direction(std::span<const EdgeKey>(out, keys.end()), record.destinations, record.destination_weights);
}

}  // namespace

// Single ends are counted when they take few distinct values (never
// rewritten), grouped by neighbor when there are no tallied ends, and sorted
// otherwise; tallied ends are merged in: equal keys are the same end, so
// their order does not matter.
DistGraphTopology write_lists(std::span<EdgeKey> keys, const KeyBits& bits, std::span<TalliedEnd> tallied,
                              bool weighted, DistGraphTopology record) {
  record.weighted = weighted;
  std::sort(tallied.begin(), tallied.end(), [](const TalliedEnd& a, const TalliedEnd& b) { return a.key < b.key; });
  auto next = tallied.begin();
  const bool counted = for_each_counted_key(keys, bits, [&](EdgeKey key, std::size_t count) {
    for (; next != tallied.end() && next->key <= key; ++next) append(record, weighted, next->key, next->count);
    append(record, weighted, key, count);
  });
  if (!counted) {
    if (tallied.empty() && write_grouped(keys, bits, weighted, record)) return record;
    sort_keys(keys);
    std::size_t first = 0;
    for (; next != tallied.end(); ++next) {
      const auto until = static_cast<std::size_t>(
          std::upper_bound(keys.begin() + static_cast<std::ptrdiff_t>(first), keys.end(), next->key) - keys.begin());
      append_sorted(record, weighted, keys.subspan(first, until - first));
      first = until;
      append(record, weighted, next->key, next->count);
    }
    append_sorted(record, weighted, keys.subspan(first));
  }
  for (; next != tallied.end(); ++next) append(record, weighted, next->key, next->count);
  return record;
}

}  // namespace distopo::detail
