#pragma once
// The messages of dist_graph_create's exchange. Every message is a sequence
// of ints; its kind travels as the message's tag (sparse_exchange.hpp), so the
// receiver knows where to put it before it arrives:
// - keys: single ends as edge keys (two ints each, edge_key.hpp), in no
//   particular order; what a rank sends when the ends it gives to one peer
//   belong to many different neighbors (runs would be a few ends each).
// - runs: ends grouped by (direction, neighbor rank): [R, R run headers of
//   three ints, the weights of the runs that carry them, in header order].
//   A run of ends that all have the same weight (a tally of repeated ends,
//   or any run of an unweighted graph) carries its weight in its header and
//   no weights after it.
// - in_run_from_sender / out_run_from_sender: ends that all have the
//   sender as neighbor, in that direction, with their weights in ascending
//   order (unweighted: one int, the number of ends). What a rank that gives
//   only its own out-edges (or in-edges) sends each peer: a slice of its own
//   sorted list, sent as it lies.
// - out_keys_by_source: out-ends as edge keys, sent to their source only
//   (the first round of a create that goes by source: the source sorts its
//   list and sends each destination its in-ends as a sorted run in a second
//   round, dist_graph_create.cpp).
#include <cstdint>

namespace distopo::detail {

enum class MessageKind : int {
  keys = 0,
  runs = 1,
  in_run_from_sender = 2,
  out_run_from_sender = 3,
  out_keys_by_source = 4
};
inline constexpr int kMessageKinds = 5;

// One run of a runs message: direction (bit 31: out) and neighbor rank,
// count of ends, and their common weight or kWeightsFollow.
struct RunHeader {
  std::uint32_t direction_rank;
  std::int32_t count;
  std::int32_t weight;
};
inline constexpr int kRunHeaderInts = 3;
inline constexpr std::int32_t kWeightsFollow = -1;
inline constexpr std::uint32_t kOutBit = std::uint32_t{1} << 31;

inline constexpr std::uint32_t direction_rank(bool out, int rank) {
  return (out ? kOutBit : 0U) | static_cast<std::uint32_t>(rank);
}
inline constexpr bool is_out(std::uint32_t direction_rank) { return (direction_rank & kOutBit) != 0; }
inline constexpr int rank_of(std::uint32_t direction_rank) { return static_cast<int>(direction_rank & ~kOutBit); }

inline void write_run_header(int* at, const RunHeader& run) {
  at[0] = static_cast<std::int32_t>(run.direction_rank);
  at[1] = run.count;
  at[2] = run.weight;
}
inline RunHeader read_run_header(const int* at) { return {static_cast<std::uint32_t>(at[0]), at[1], at[2]}; }

}  // namespace distopo::detail
