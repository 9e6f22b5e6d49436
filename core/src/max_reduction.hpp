#pragma once
// A max-reduction (MPI_Allreduce with MPI_MAX) of a few ints over point-to-point
// messages, driven by the caller's probe loop: a dissemination (Hensgen,
// Finkel, Manber 1988). In round j rank r sends what it has to r + 2^j and
// receives from r - 2^j (mod P); after ceil(log2 P) rounds every rank has
// seen every value. MAX does not mind seeing a value twice, so any P works
// without folding ranks onto partners (recursive doubling needs two extra
// steps when P is not a power of two). O(log P) messages and memory per rank.
//
// Radix 2: a higher radix was no faster where it was measured and slower on
// hub-heavy graphs at small P. Not MPI_Iallreduce: MPICH builds a schedule
// for every call, which costs more than one message exchange and grows with
// P. Message-driven (the caller probes, this class only receives what it is
// handed) because every MPI_Test on a pending request is a progress poll of
// its own, and with more ranks than cores a poll that finds nothing gives the
// core away: the sparse exchange polls once per turn for all of its messages.
// Measurements: docs/design/sparse-exchange.md.
//
// The offsets 2^j are distinct and below P, so a rank hears from each source
// once: the source of a message names its round. Messages that arrive before
// this rank reaches their round (or before start()) are kept until then.
#include <mpi.h>

#include <span>
#include <vector>

namespace distopo::detail {

class MaxReduction {
 public:
  // Prepares the reduction of `values` (reduced in place; must outlive it).
  // Sends nothing yet.
  MaxReduction(MPI_Comm comm, std::span<int> values, int tag);
  MaxReduction(const MaxReduction&) = delete;
  MaxReduction& operator=(const MaxReduction&) = delete;
  ~MaxReduction();

  // Contributes `values`, which must not change afterwards.
  void start();
  // The caller probed a message with our tag from `source`: receive it.
  void receive(int source);
  // True once `values` holds the maximum over all ranks.
  [[nodiscard]] bool done() const { return started_ && current_ == rounds(); }
  // Waits for this rank's own sends (a few ints each: complete at once).
  void complete_sends();

 private:
  [[nodiscard]] std::size_t rounds() const { return arrived_.size(); }
  [[nodiscard]] int partner(std::size_t round, int direction) const;  // rank +- 2^round, mod P
  void advance();

  MPI_Comm comm_;
  std::span<int> values_;
  int tag_;
  int rank_;
  int size_;
  std::vector<int> outgoing_;  // per round: the values as sent
  std::vector<int> incoming_;  // per round: the values received
  std::vector<char> arrived_;  // per round
  std::vector<MPI_Request> sends_;  // one per round reached: sends_.size() rounds have sent
  std::size_t current_ = 0;
  bool started_ = false;
};

}  // namespace distopo::detail
