#pragma once
// Records of 64-bit words for other ranks, sent as one sparse exchange
// (core/sparse_exchange.hpp) with one message per destination: the rounds of
// the distributed reordering.
#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <span>
#include <vector>

#include "distopo/core/private_channel.hpp"
#include "distopo/core/sparse_exchange.hpp"

namespace distopo::detail {

using Word = std::int64_t;

class RecordExchange {
 public:
  // Collective operations run over private channels of `comm`.
  explicit RecordExchange(MPI_Comm comm) : comm_(comm) {}

  void post(int rank, std::initializer_list<Word> words) {
    auto& buffer = outgoing_[rank];
    buffer.insert(buffer.end(), words);
  }
  // For records of variable length.
  std::vector<Word>& to(int rank) { return outgoing_[rank]; }

  // Collective: sends what was posted and hands each message received to
  // on_message(std::span<const Word>). Returns the maximum of `flag` over all
  // ranks (it must not depend on what this round receives).
  template <class OnMessage>
  int deliver(OnMessage&& on_message, int flag = 0) {
    std::vector<OutgoingMessage<Word>> messages;
    messages.reserve(outgoing_.size());
    for (const auto& [rank, words] : outgoing_) messages.push_back({rank, words});
    std::array<int, 1> agreement{flag};
    sparse_exchange<Word>(
        private_channel(comm_).comm, std::span<const OutgoingMessage<Word>>(messages),
        [&](int, std::span<const Word> words) { on_message(words); }, agreement);
    outgoing_.clear();
    return agreement[0];
  }

 private:
  MPI_Comm comm_;
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
