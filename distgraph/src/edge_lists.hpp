#pragma once
// From the edge ends a rank stores to its neighbor lists: in-ends become
// sources, out-ends destinations, each sorted by (rank, weight), whatever
// order the ends arrived in.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "distopo/distgraph/edge_key.hpp"
#include "distopo/distgraph/key_sort.hpp"

namespace distopo::detail {

// Below this many weights a comparison sort costs less than a radix sort's
// counters.
inline constexpr std::size_t kMinWeightsToRadix = 96;

// A piece of one list: `count` ends of one direction and neighbor rank, whose
// weights lie together (in a received runs message or in this rank's own
// sorted list), or are all equal (a run that carries one weight: a tally of
// repeated ends, or any run of an unweighted graph).
struct Piece {
  std::uint32_t direction_rank;  // end_messages.hpp: direction (bit 31: out) and rank
  std::uint32_t count;
  std::int32_t weight;     // >= 0: every end has this weight, none is stored; else kWeightsFollow
  bool in_own_list;        // the weights lie in the own list (else in the received ints)
  bool sorted;             // the weights are in ascending order
  std::uint32_t any_bits;  // set in some weight
  std::uint32_t all_bits;  // set in every weight
  std::uint64_t offset;    // of the first weight where they lie
};

// Where the weights of pieces lie.
struct PieceData {
  const int* received;
  const int* own_weights;
};

// The rank whose lists are written, where the ends are all of its ends
// (kNoSelf otherwise: parts of lists, tests): its in-list from itself and
// its out-list to itself hold the same weights, each self-loop giving one end
// to each, so the writers below sort one and copy it to the other (most of a
// hub's ends where graphs concentrate on it, as R-MAT's do on rank 0).
inline constexpr int kNoSelf = -1;

// The lists of every direction that has pieces, from `pieces` (all of them,
// any order; reordered here): in-lists first, then out-lists, each by (rank,
// weight). Weighted: the weights are written to `weights` and the ranks to
// `ranks`, which may be `data.received` (read before it is written: it is
// scratch for the sort, then the ranks); both hold the pieces' ends in all.
// Unweighted (`weights` null): only the ranks. Allocates nothing that it
// cannot do without. `self`: above; `spare_core`: as sort_groups.
void write_pieces(std::span<Piece> pieces, PieceData data, int* weights, int* ranks, int self = kNoSelf,
                  bool spare_core = false);

// Sorts `n` weights that use only the bits of `any` (all having those of
// `all`) ascending, with `scratch` (n ints) beside them and `counts`
// (RadixPlan::counters_for(n, 31), or null: std::sort).
void sort_weights(int* weights, int* scratch, std::size_t n, std::uint32_t any, std::uint32_t all,
                  std::uint32_t* counts);

// Calls sort(group, counters) for every group in [0, groups) of at most
// `largest` weights (none when no group has two): on Kokkos' host threads,
// each with radix counters of its own, when Kokkos runs with more than one; in
// order otherwise. `counters` is null when no group needs them or there is no
// memory for them (sort_weights then needs none). `spare_core`: another core
// idles meanwhile (the other ranks wait asleep for this one, a hub), so with
// Kokkos on one thread, groups of at least kMinWeightsForSecondThread are
// shared with a thread of our own where the process may run on two cores.
inline constexpr std::size_t kMinWeightsForSecondThread = std::size_t{1} << 18;
void sort_groups(std::size_t groups, std::size_t largest,
                 const std::function<void(std::size_t group, std::uint32_t* counters)>& sort, bool spare_core = false);

// The lists of single ends `keys` (any order) in their own memory, laid out
// as [ranks of every end in list order | their weights], the weights through
// `room` (one int per key, or null unweighted). `bits` must have seen every
// key. Few distinct keys are counted; weighted keys of few (direction, rank)
// groups are grouped (write_grouped_keys); others are sorted whole, then
// rewritten in place. `self`: as write_pieces; `spare_core`: as sort_groups.
void write_keys_in_place(std::span<EdgeKey> keys, const KeyBits& bits, int* room, bool weighted, int self = kNoSelf,
                         bool spare_core = false);

// Weighted keys grouped by (direction, rank) in one counting pass, their
// weights scattered to `room` by group, each group's weights sorted there with
// the keys' own memory as scratch (no copy of the keys beside them, where a
// sort of whole keys needs one), then the lists written over the keys. False,
// having written nothing, where the groups' counters would outgrow the keys
// (more than 2^kMaxGroupBits groups, or fewer than kEndsPerGroupCounter keys
// per group) or there is no memory for them.
inline constexpr unsigned kMaxGroupBits = 16;
inline constexpr std::size_t kEndsPerGroupCounter = 8;
bool write_grouped_keys(std::span<EdgeKey> keys, const KeyBits& bits, int* room, int self = kNoSelf,
                        bool spare_core = false);

}  // namespace distopo::detail
