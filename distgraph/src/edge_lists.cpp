#include "edge_lists.hpp"

#include <sched.h>

#include <Kokkos_Core.hpp>
#include <Kokkos_UniqueToken.hpp>
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <new>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "end_messages.hpp"
#include "equal_runs.hpp"
#include "kokkos_runtime.hpp"
#include "radix_parts.hpp"
#include "radix_sort.hpp"

namespace distopo::detail {
namespace {

using Exec = Kokkos::DefaultHostExecutionSpace;

// The lists in the buffer's order, [ranks of every end | their weights]: in
// list order the sources come first and the destinations next (the direction
// is a key's highest bit), so position p of the sorted ends is rank p and
// weight ends + p, whatever the direction.
class ListWriter {
 public:
  ListWriter(int* lists, std::size_t ends, bool weighted)
      : ranks_(lists), weights_(weighted ? lists + ends : nullptr) {}

  // `count` copies of the end `key`, after those written so far.
  void append(EdgeKey key, std::size_t count) {
    std::fill_n(ranks_ + next_, count, edge_rank(key));
    if (weights_ != nullptr) std::fill_n(weights_ + next_, count, edge_weight(key));
    next_ += count;
  }

 private:
  int* ranks_;
  int* weights_;
  std::size_t next_ = 0;
};

// Sorted keys turned into the lists in the same memory: the weights go to
// `weights` first (room for one int per key; unweighted: null), then the
// ranks are packed towards the front (rank i lands at or before key i, which
// has been read), then the weights follow them.
void lists_in_place(std::span<const EdgeKey> keys, int* weights) {
  const std::size_t n = keys.size();
  if (weights != nullptr) {
    for (std::size_t i = 0; i < n; ++i) weights[i] = edge_weight(keys[i]);
  }
  auto* const ranks = reinterpret_cast<int*>(const_cast<EdgeKey*>(keys.data()));
  for (std::size_t i = 0; i < n; ++i) ranks[i] = edge_rank(keys[i]);
  if (weights != nullptr) std::copy_n(weights, n, ranks + n);
}

// Copies the weights of one group's pieces (consecutive in `pieces`; those
// with stored weights first, those of one weight after them by weight) to
// `into`, and returns the group as one piece: its ends, the bits of its
// weights, and whether they are in order already.
Piece gather(std::span<const Piece> group, const PieceData& data, int* into) {
  Piece whole{group.front().direction_rank, 0, kWeightsFollow, false, true, 0, ~std::uint32_t{0}, 0};
  bool any_stored = false;
  for (const Piece& piece : group) {
    int* const at = into + whole.count;
    if (piece.weight >= 0) {
      std::fill_n(at, piece.count, piece.weight);
      whole.any_bits |= static_cast<std::uint32_t>(piece.weight);
      whole.all_bits &= static_cast<std::uint32_t>(piece.weight);
    } else {
      const int* const from = (piece.in_own_list ? data.own_weights : data.received) + piece.offset;
      std::memcpy(at, from, piece.count * sizeof(int));
      whole.any_bits |= piece.any_bits;
      whole.all_bits &= piece.all_bits;
      whole.sorted = whole.sorted && piece.sorted;
      any_stored = true;
    }
    whole.count += piece.count;
  }
  // Pieces of one weight each, in order of weight, are in order together;
  // stored weights beside others need sorting.
  if (group.size() > 1 && any_stored) whole.sorted = false;
  return whole;
}

// Radix counters for the sorts: empty without memory for them (sort_groups
// runs after the constructors' agreement, where a failure on one rank alone
// would hang the others, so it sorts without counters instead).
std::vector<std::uint32_t> counters_if_memory(std::size_t n) {
  try {
    return std::vector<std::uint32_t>(n);
  } catch (const std::bad_alloc&) {
    return {};
  }
}

// Whether the scheduler may run this process on two cores at once (a rank
// pinned to one core gains nothing from a second thread).
bool may_run_on_two_cores() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  return sched_getaffinity(0, sizeof(allowed), &allowed) == 0 && CPU_COUNT(&allowed) >= 2;
}

// The groups of write_grouped_keys that hold the in-list from `self` and the
// out-list to it, where both are there with as many ends (kNoSelf).
struct SelfGroups {
  std::size_t in;
  std::size_t out;
};
std::optional<SelfGroups> self_groups_of(int self, const VaryingBits& group_of, std::span<const std::uint32_t> starts) {
  if (self == kNoSelf) return std::nullopt;
  const std::size_t groups = starts.size() - 1;
  const auto group = [&](EdgeDirection direction) -> std::optional<std::size_t> {
    const EdgeKey key = pack_edge(direction, self, 0);
    const std::uint64_t g = group_of.pack(key);
    // A rank that no key names may pack to another rank's group.
    if (g >= groups || group_of.unpack(g) != key || starts[g + 1] == starts[g]) return std::nullopt;
    return static_cast<std::size_t>(g);
  };
  const std::optional<std::size_t> in = group(EdgeDirection::in);
  const std::optional<std::size_t> out = group(EdgeDirection::out);
  if (!in || !out || starts[*in + 1] - starts[*in] != starts[*out + 1] - starts[*out]) return std::nullopt;
  return SelfGroups{*in, *out};
}

// The groups taken in turn by this thread and one more, each with counters
// of its own. False, having sorted nothing, without memory or a thread.
bool sort_on_two_threads(std::size_t groups, std::size_t per_thread,
                         const std::function<void(std::size_t group, std::uint32_t* counters)>& sort) {
  std::vector<std::uint32_t> counters = counters_if_memory(2 * per_thread);
  if (counters.empty()) return false;
  std::atomic<std::size_t> next{0};
  const auto take_groups = [&](std::uint32_t* own) {
    for (std::size_t g = next.fetch_add(1); g < groups; g = next.fetch_add(1)) sort(g, own);
  };
  std::thread helper;
  try {
    helper = std::thread(take_groups, counters.data() + per_thread);
  } catch (const std::system_error&) {
    return false;
  }
  take_groups(counters.data());
  helper.join();
  return true;
}

}  // namespace

void sort_weights(int* weights, int* scratch, std::size_t n, std::uint32_t any, std::uint32_t all,
                  std::uint32_t* counts) {
  const std::uint32_t varying = any ^ all;
  if (varying == 0 || n < 2) return;
  if (n < kMinWeightsToRadix || counts == nullptr) {
    std::sort(weights, weights + n);
    return;
  }
  const auto low = static_cast<unsigned>(std::countr_zero(varying));
  const auto width = static_cast<unsigned>(std::bit_width(varying)) - low;
  // Weights are non-negative ints: ordered as unsigned, they order the same.
  sort_in_place(reinterpret_cast<std::uint32_t*>(weights), reinterpret_cast<std::uint32_t*>(scratch), n, low, width,
                counts);
}

void write_pieces(std::span<Piece> pieces, PieceData data, int* weights, int* ranks, int self, bool spare_core) {
  std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) {
    return a.direction_rank != b.direction_rank ? a.direction_rank < b.direction_rank : a.weight < b.weight;
  });
  // Every group's weights go to `weights` before anything is written to
  // `ranks`, which may hold the pieces' weights. Group g then takes the place
  // of piece g (read already: a group has one piece at least), its offset
  // the group's first position. In-lists come first: the out-list to `self`
  // finds the in-list from it gathered, and is made its copy after the sorts
  // (kNoSelf).
  const bool known_self = self != kNoSelf;
  std::size_t groups = 0;
  std::size_t first = 0;
  std::optional<std::size_t> in_from_self;
  std::optional<std::size_t> out_to_self;
  const auto neighbor = [pieces](std::size_t i) { return pieces[i].direction_rank; };
  for_each_equal_run(0, pieces.size(), neighbor, [&](std::size_t i, std::size_t j) {
    const std::uint32_t key = pieces[i].direction_rank;
    Piece group{key, 0, kWeightsFollow, false, true, 0, 0, 0};
    for (std::size_t k = i; k < j; ++k) group.count += pieces[k].count;
    if (weights != nullptr) {
      if (known_self && key == direction_rank(true, self) && in_from_self &&
          pieces[*in_from_self].count == group.count) {
        out_to_self = groups;  // `sorted`: no sort of its own
      } else {
        group = gather(pieces.subspan(i, j - i), data, weights + first);
        if (known_self && key == direction_rank(false, self)) in_from_self = groups;
      }
    }
    group.offset = first;
    first += group.count;
    pieces[groups++] = group;
  });
  if (weights != nullptr) {
    std::size_t largest = 0;
    for (const Piece& group : pieces.first(groups)) {
      if (!group.sorted) largest = std::max<std::size_t>(largest, group.count);
    }
    sort_groups(
        groups, largest,
        [&](std::size_t g, std::uint32_t* counters) {
          const Piece& group = pieces[g];
          if (group.sorted) return;
          sort_weights(weights + group.offset, ranks + group.offset, group.count, group.any_bits, group.all_bits,
                       counters);
        },
        spare_core);
    if (out_to_self) {
      const Piece& from = pieces[*in_from_self];
      std::memcpy(weights + pieces[*out_to_self].offset, weights + from.offset, from.count * sizeof(int));
    }
  }
  for (const Piece& group : pieces.first(groups)) {
    std::fill_n(ranks + group.offset, group.count, rank_of(group.direction_rank));
  }
}

void sort_groups(std::size_t groups, std::size_t largest,
                 const std::function<void(std::size_t group, std::uint32_t* counters)>& sort, bool spare_core) {
  if (largest < 2) return;  // nothing to sort
  // Groups below kMinWeightsToRadix are sorted without counters.
  const std::size_t per_thread = largest < kMinWeightsToRadix ? 0 : RadixPlan::counters_for(largest, 31);
  if (groups > 1 && per_thread > 0 && Kokkos::is_initialized() && Exec().concurrency() > 1) {
    const KokkosTurn turn;
    std::vector<std::uint32_t> counters;
    std::optional<Kokkos::Experimental::UniqueToken<Exec>> token;
    if (turn) {
      token.emplace();
      counters = counters_if_memory(static_cast<std::size_t>(token->size()) * per_thread);
    }
    if (!counters.empty()) {
      std::uint32_t* const all = counters.data();
      Kokkos::parallel_for("distopo::sort_groups",
                           Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Dynamic>>(0, groups), [&](std::size_t g) {
                             const int id = token->acquire();
                             sort(g, all + static_cast<std::size_t>(id) * per_thread);
                             token->release(id);
                           });
      Exec().fence();
      return;
    }
  }
  if (spare_core && groups > 1 && largest >= kMinWeightsForSecondThread && may_run_on_two_cores() &&
      sort_on_two_threads(groups, per_thread, sort)) {
    return;
  }
  std::vector<std::uint32_t> counters = counters_if_memory(per_thread);
  for (std::size_t g = 0; g < groups; ++g) sort(g, counters.empty() ? nullptr : counters.data());
}

bool write_grouped_keys(std::span<EdgeKey> keys, const KeyBits& bits, int* room, int self, bool spare_core) {
  const std::size_t n = keys.size();
  // Packed (direction, rank) bits number the groups in list order.
  const VaryingBits group_of(bits.all() & ~kEdgeWeightBits, (bits.any() ^ bits.all()) & ~kEdgeWeightBits);
  const std::size_t groups = std::size_t{1} << group_of.width();
  if (group_of.width() > kMaxGroupBits || groups * kEndsPerGroupCounter > n || n > UINT32_MAX) return false;
  std::vector<std::uint32_t> starts;
  std::vector<std::uint32_t> next;
  try {
    starts.assign(groups + 1, 0);
    next.resize(groups);
  } catch (const std::bad_alloc&) {
    return false;  // sort_keys needs no memory when there is none
  }
  for (const EdgeKey key : keys) ++starts[group_of.pack(key) + 1];
  std::size_t largest = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    largest = std::max<std::size_t>(largest, starts[g + 1]);
    starts[g + 1] += starts[g];
  }
  std::copy_n(starts.begin(), groups, next.begin());
  for (const EdgeKey key : keys) room[next[group_of.pack(key)]++] = edge_weight(key);
  const std::optional<SelfGroups> self_groups = self_groups_of(self, group_of, starts);

  // The keys are read: their memory is the sorts' scratch, then the lists.
  auto* const lists = reinterpret_cast<int*>(keys.data());
  const auto any = static_cast<std::uint32_t>(bits.any() & kEdgeWeightBits);
  const auto all = static_cast<std::uint32_t>(bits.all() & kEdgeWeightBits);
  sort_groups(
      groups, largest,
      [&](std::size_t g, std::uint32_t* counters) {
        if (self_groups && g == self_groups->out) return;  // copied below
        sort_weights(room + starts[g], lists + starts[g], starts[g + 1] - starts[g], any, all, counters);
      },
      spare_core);
  if (self_groups) {
    std::copy(room + starts[self_groups->in], room + starts[self_groups->in + 1], room + starts[self_groups->out]);
  }
  for (std::size_t g = 0; g < groups; ++g) {
    std::fill(lists + starts[g], lists + starts[g + 1], edge_rank(group_of.unpack(g)));
  }
  std::copy_n(room, n, lists + n);
  return true;
}

void write_keys_in_place(std::span<EdgeKey> keys, const KeyBits& bits, int* room, bool weighted, int self,
                         bool spare_core) {
  auto* const lists = reinterpret_cast<int*>(keys.data());
  ListWriter writer(lists, keys.size(), weighted);
  // Counting reads every key before the first value is written.
  if (for_each_counted_key(keys, bits, [&](EdgeKey key, std::size_t count) { writer.append(key, count); })) return;
  if (weighted && keys.size() > kComparisonSortLimit && write_grouped_keys(keys, bits, room, self, spare_core)) return;
  sort_keys(keys);
  lists_in_place(keys, weighted ? room : nullptr);
}

}  // namespace distopo::detail
