#pragma once
// Records of 64-bit words for other ranks, sent as one sparse exchange
// (core/sparse_exchange.hpp) with one message per destination: the rounds of
// the distributed reordering.
//
// Every collective step of the distributed reordering is a round of this
// exchange (sums included: they start with one), so a rank that runs out of
// memory between rounds knows what the others wait in: it leaves its work
// (std::bad_alloc), calls abandon(), which joins that round with a failure
// flag, and every rank throws ReorderAbandoned after the same round.
#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <map>
#include <new>
#include <optional>
#include <span>
#include <vector>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/private_channel.hpp"
#include "distopo/core/sparse_exchange.hpp"

namespace distopo::detail {

using Word = std::int64_t;

// Thrown on every rank after the same round when some rank could not go on
// (it ran out of memory, or a message found no room): reordering is a hint,
// so callers keep the identity. Takes no memory to throw.
class ReorderAbandoned : public std::exception {
 public:
  [[nodiscard]] const char* what() const noexcept override { return "reordering abandoned: a rank ran out of memory"; }
};

class RecordExchange {
 public:
  // Collective operations run over private channels of `comm`.
  explicit RecordExchange(MPI_Comm comm) : comm_(comm) {}
  [[nodiscard]] MPI_Comm comm() const { return comm_; }
  // Rounds so far: what the distributed reordering's time at scale is made of.
  [[nodiscard]] std::int64_t rounds() const { return rounds_; }

  void post(int rank, std::initializer_list<Word> words) {
    auto& buffer = outgoing_[rank];
    buffer.insert(buffer.end(), words);
  }
  // For records of variable length.
  std::vector<Word>& to(int rank) { return outgoing_[rank]; }

  // Collective: sends what was posted and hands each message received to
  // on_message(std::span<const Word>). Returns the maximum of `flag` over all
  // ranks (it must not depend on what this round receives). Throws
  // ReorderAbandoned on every rank when a rank abandoned this round, and
  // std::bad_alloc on this rank alone when on_message ran out of memory (the
  // round is completed first, the rest of its messages unread).
  template <class OnMessage>
  int deliver(OnMessage&& on_message, int flag = 0) {
    std::vector<OutgoingMessage<Word>> messages;
    messages.reserve(outgoing_.size());
    for (const auto& [rank, words] : outgoing_) messages.push_back({rank, words});
    bool out_of_memory = false;
    const std::array<int, 2> agreement = exchange(
        messages,
        [&](std::span<const Word> words) {
          if (out_of_memory) return;
          try {
            on_message(words);
          } catch (const std::bad_alloc&) {
            out_of_memory = true;
          }
        },
        flag, 0);
    outgoing_.clear();
    if (agreement[1] != 0) throw ReorderAbandoned();
    if (out_of_memory) throw std::bad_alloc();
    return agreement[0];
  }

  // Collective: `values` summed over all ranks, in place. Nothing may be
  // posted. One round first, so that a rank that abandons on the way is
  // heard before the sum.
  void sum(std::span<Word> values) {
    deliver([](std::span<const Word>) {});
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T, MPI_SUM, comm_),
              "MPI_Allreduce");
  }

  // Collective: the sum of `value` over the ranks below this one. One round
  // first, as for sum().
  Word exclusive_sum(Word value) {
    deliver([](std::span<const Word>) {});
    Word below = 0;
    check_mpi(MPI_Exscan(&value, &below, 1, MPI_INT64_T, MPI_SUM, comm_), "MPI_Exscan");
    return comm_rank(comm_) == 0 ? 0 : below;  // MPI_Exscan leaves rank 0's undefined
  }

  // On a rank that left the reordering between rounds (out of memory): joins
  // the round the other ranks are in, posting nothing and reading nothing,
  // so that every rank throws ReorderAbandoned after it. Returns normally.
  void abandon() {
    outgoing_.clear();
    exchange(
        {}, [](std::span<const Word>) {}, 0, 1);
  }

 private:
  // One round; returns {max of flag, max of failed} over all ranks. A
  // message that found no room counts as failed (every rank sees the same
  // DroppedMessages).
  template <class OnMessage>
  std::array<int, 2> exchange(const std::vector<OutgoingMessage<Word>>& messages, OnMessage&& on_message, int flag,
                              int failed) {
    std::array<int, 2> agreement{flag, failed};
    ++rounds_;
    // A round this rank could not start (out of memory before its first
    // send) is still the others' current one: keep its channel for abandon().
    if (!channel_) channel_ = private_channel(comm_).comm;
    try {
      sparse_exchange<Word>(
          *channel_, std::span<const OutgoingMessage<Word>>(messages),
          [&](int, std::span<const Word> words) { on_message(words); }, agreement);
    } catch (const DroppedMessages&) {
      agreement = {0, 1};
    }
    channel_.reset();
    return agreement;
  }

  MPI_Comm comm_;
  std::int64_t rounds_ = 0;
  std::optional<MPI_Comm> channel_;            // of the round under way
  std::map<int, std::vector<Word>> outgoing_;  // ordered: the same sends in the same order every run
};

// Reads the records of one message in order.
class RecordReader {
 public:
  explicit RecordReader(std::span<const Word> words) : words_(words) {}
  [[nodiscard]] bool more() const { return at_ < words_.size(); }
  Word next() { return words_[at_++]; }
  int next_int() { return static_cast<int>(words_[at_++]); }

 private:
  std::span<const Word> words_;
  std::size_t at_ = 0;
};

}  // namespace distopo::detail
