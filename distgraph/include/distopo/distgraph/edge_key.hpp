#pragma once
// One edge end packed in a 64-bit word: direction | rank | weight. Ranks and
// weights are non-negative ints (31 bits each), so ordering the words orders
// edges by (direction, rank, weight), and a sort needs no bins indexed by rank.
#include <cstdint>

namespace distopo {

using EdgeKey = std::uint64_t;

// Seen from the rank that stores the edge: `in` keys carry the source, `out`
// keys the destination.
enum class EdgeDirection : std::uint64_t { in = 0, out = 1 };

// The bits of a key that hold the weight (its lowest 31).
inline constexpr EdgeKey kEdgeWeightBits = 0x7fffffffU;

constexpr EdgeKey pack_edge(EdgeDirection direction, int rank, int weight) {
  return (static_cast<EdgeKey>(direction) << 62) | (static_cast<EdgeKey>(static_cast<std::uint32_t>(rank)) << 31) |
         static_cast<EdgeKey>(static_cast<std::uint32_t>(weight));
}
constexpr EdgeDirection edge_direction(EdgeKey key) { return static_cast<EdgeDirection>(key >> 62); }
constexpr int edge_rank(EdgeKey key) { return static_cast<int>((key >> 31) & 0x7fffffffU); }
constexpr int edge_weight(EdgeKey key) { return static_cast<int>(key & kEdgeWeightBits); }

}  // namespace distopo
