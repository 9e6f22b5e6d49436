#include "edge_outbox.hpp"

namespace distopo::detail {
namespace {

// Whether `count` ends of `distinct` weights go as runs of one weight each
// (three ints a run) rather than as their weights (one int an end).
bool as_runs_of_one_weight(std::size_t distinct, std::size_t count) { return 4 * distinct <= count; }

}  // namespace

void EdgeOutbox::send_own_list(int self, bool weighted, OwnList list, EdgeInbox& inbox) {
  const bool out = list.out();
  const MessageKind kind = out ? MessageKind::in_run_from_sender : MessageKind::out_run_from_sender;
  const std::uint32_t from_self = direction_rank(!out, self);  // what the ends are at their neighbor
  const int* const ranks = list.ranks();
  const int* const weights = list.weights();
  const std::size_t n = list.ends();

  struct Slice {
    int rank;
    std::size_t first;
    std::size_t count;
    std::size_t distinct;  // weights
  };
  std::vector<Slice> slices;
  std::size_t self_first = 0;
  std::size_t self_count = 0;
  std::size_t runs_ints = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && ranks[j] == ranks[i]) ++j;
    if (ranks[i] == self) {
      self_first = i;
      self_count = j - i;
    } else {
      std::size_t distinct = 1;
      if (weighted) {
        for (std::size_t k = i + 1; k < j; ++k) distinct += static_cast<std::size_t>(weights[k] != weights[k - 1]);
        if (as_runs_of_one_weight(distinct, j - i)) runs_ints += 1 + kRunHeaderInts * distinct;
      }
      slices.push_back({ranks[i], i, j - i, distinct});
    }
    i = j;
  }
  if (!weighted) counts_.reserve(slices.size());
  int* runs = runs_.append(runs_ints);
  messages_.reserve(slices.size());
  for (const Slice& slice : slices) {
    if (!weighted) {
      counts_.push_back(static_cast<int>(slice.count));
      add_message(slice.rank, {&counts_.back(), 1}, kind);
    } else if (!as_runs_of_one_weight(slice.distinct, slice.count)) {
      add_message(slice.rank, {weights + slice.first, slice.count}, kind);
    } else {
      int* const message = runs;
      runs += 1 + kRunHeaderInts * slice.distinct;
      message[0] = static_cast<int>(slice.distinct);
      int* header = message + 1;
      const std::size_t end = slice.first + slice.count;
      for (std::size_t k = slice.first; k < end;) {
        std::size_t l = k + 1;
        while (l < end && weights[l] == weights[k]) ++l;
        write_run_header(header, {from_self, static_cast<std::int32_t>(l - k), weights[k]});
        header += kRunHeaderInts;
        k = l;
      }
      add_message(slice.rank, {message, 1 + kRunHeaderInts * slice.distinct}, MessageKind::runs);
    }
  }
  own_verdict_ =
      inbox.adopt_own_list(std::move(list), slices.size() + (self_count > 0 ? 1 : 0), self, self_first, self_count);
}

void EdgeOutbox::send_runs(int self, const std::vector<OwnedRun>& runs, EdgeInbox& inbox) {
  std::size_t peer_ints = 0;
  for (std::size_t i = 0; i < runs.size();) {
    std::size_t j = i + 1;
    while (j < runs.size() && runs[j].owner == runs[i].owner) ++j;
    if (runs[i].owner != self) peer_ints += 1 + kRunHeaderInts * (j - i);
    i = j;
  }
  int* next = runs_.append(peer_ints);
  for (std::size_t i = 0; i < runs.size();) {
    std::size_t j = i + 1;
    while (j < runs.size() && runs[j].owner == runs[i].owner) ++j;
    const std::size_t ints = 1 + kRunHeaderInts * (j - i);
    int* const message = runs[i].owner == self ? inbox.place(self, MessageKind::runs, static_cast<int>(ints)) : next;
    message[0] = static_cast<int>(j - i);
    for (std::size_t k = i; k < j; ++k) write_run_header(message + 1 + kRunHeaderInts * (k - i), runs[k].run);
    if (runs[i].owner == self) {
      own_verdict_ = inbox.accept();
    } else {
      add_message(runs[i].owner, {message, ints}, MessageKind::runs);
      next += ints;
    }
    i = j;
  }
}

}  // namespace distopo::detail
