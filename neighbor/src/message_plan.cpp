#include "message_plan.hpp"

#include <unordered_map>

namespace distopo::detail {

MessagePlan::MessagePlan(std::span<const int> order, std::span<const int> ranks) {
  std::unordered_map<int, std::vector<int>> by_peer;  // each peer's slots, in order
  for (int slot : order) by_peer[ranks[static_cast<std::size_t>(slot)]].push_back(slot);
  slots_.reserve(order.size());
  for (int slot : order) {
    const int peer = ranks[static_cast<std::size_t>(slot)];
    auto& group = by_peer[peer];
    if (group.size() < kCoalesceSlots) {
      slots_.push_back(slot);
    } else if (group.front() == slot) {  // the peer's first slot: the whole group goes here
      slots_.insert(slots_.end(), group.begin(), group.end());
    } else {
      continue;  // already in the peer's message
    }
    peers_.push_back(peer);
    first_.push_back(slots_.size());
  }
}

}  // namespace distopo::detail
