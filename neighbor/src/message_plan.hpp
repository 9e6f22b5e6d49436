#pragma once
// Which point-to-point messages carry a collective's blocks in one direction.
//
// Why: MPICH 4.0.2's ch4:ucx never gives UCX a full tag mask (it clears the
// error bits), so every receive lands in UCX's wildcard expected queue, and
// each arriving message is matched by a linear scan of all posted receives of
// the process. With thousands of multi-edges per peer, a block per message
// made each collective quadratic in the degree (perf: 92% in
// ucp_tag_exp_search_all at degree 2x10^4, P = 4). A peer with many slots now
// gets one message holding all of them, in posting order (a derived datatype
// over the blocks), which is the pairing the per-block messages had: the k-th
// block a sends to b is still the k-th slot b receives from a.
//
// Both ends decide alike: a valid topology has as many edges a->b in a's
// destinations as in b's sources, so a pair is coalesced at both or at none.
#include <cstddef>
#include <span>
#include <vector>

namespace distopo::detail {

// Peers with at least this many slots in one direction get one message.
// Below it a message per block avoids creating a datatype per call (a
// periodic Cartesian dimension of size 1 or 2 has 2 slots per peer).
inline constexpr std::size_t kCoalesceSlots = 8;

class MessagePlan {
 public:
  // Messages for the slots of `order` (posting order), where slot i belongs
  // to rank `ranks[i]`: each peer with kCoalesceSlots or more slots gets one
  // message at the place of its first slot; every other slot a message of
  // its own, in place.
  MessagePlan(std::span<const int> order, std::span<const int> ranks);
  MessagePlan() = default;

  [[nodiscard]] std::size_t size() const noexcept { return peers_.size(); }
  [[nodiscard]] int peer(std::size_t message) const { return peers_[message]; }
  // The slots of `message`, in the order their blocks follow each other.
  [[nodiscard]] std::span<const int> slots(std::size_t message) const {
    return std::span<const int>(slots_).subspan(first_[message], first_[message + 1] - first_[message]);
  }

 private:
  std::vector<int> peers_;
  std::vector<std::size_t> first_ = {0};  // message m holds slots_[first_[m], first_[m + 1])
  std::vector<int> slots_;
};

}  // namespace distopo::detail
