#pragma once
// A max-reduction (MPI_Allreduce with MPI_MAX) of a few ints over point-to-point
// messages, driven by the caller's probe loop: a k-ary dissemination (Hensgen,
// Finkel, Manber 1988). In round j rank r sends what it has to r + m k^j and
// receives from r - m k^j (mod P) for m = 1 .. k-1; after ceil(log_k P) rounds
// every rank has seen every value. MAX does not mind seeing a value twice, so
// any P works without folding ranks onto partners (recursive doubling needs
// two extra steps when P is not a power of two). O(k log_k P) messages and
// memory per rank.
//
// k = 2 up to 16 ranks, 4 above: each round costs a network latency, so
// fewer rounds win at scale (the simulated cluster of docs/results/scaling: 1.6x
// faster exchanges at 4096 ranks); on real runs up to 16 ranks radix 4 was
// no faster and slower on hub-heavy graphs at 4. Not MPI_Iallreduce: MPICH builds a schedule
// for every call, which costs more than one message exchange and grows with
// P. Message-driven (the caller probes, this class only receives what it is
// handed) because every MPI_Test on a pending request is a progress poll of
// its own, and with more ranks than cores a poll that finds nothing gives the
// core away: the sparse exchange polls once per turn for all of its messages.
// Measurements: docs/design/sparse-exchange.md.
//
// The offsets m k^j are distinct and below P, so a rank hears from each source
// once: the source of a message names its slot. Messages that arrive before
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

  // Runs over `copy` instead: a copy of the communicator it was made for
  // (the same ranks, so the same partners). Before start().
  void use_copy(MPI_Comm copy) { comm_ = copy; }
  // Contributes `values`, which must not change afterwards.
  void start();
  // The caller probed a message with our tag from `source`: receive it.
  void receive(int source);
  // True once `values` holds the maximum over all ranks.
  [[nodiscard]] bool done() const { return started_ && current_ == rounds(); }
  // Waits for this rank's own sends (a few ints each: complete at once).
  void complete_sends();

 private:
  [[nodiscard]] std::size_t rounds() const { return round_begin_.size() - 1; }
  void advance();

  MPI_Comm comm_;
  std::span<int> values_;
  int tag_;
  // Slots: one partner pair (send to, receive from) each, grouped by round.
  std::vector<int> send_to_;
  std::vector<int> receive_from_;
  std::vector<std::size_t> round_begin_;  // first slot of each round, then the end
  std::vector<int> outgoing_;             // per round: the values as sent
  std::vector<int> incoming_;             // per slot: the values received
  std::vector<char> arrived_;             // per slot
  std::vector<std::size_t> arrivals_;     // per round
  std::vector<MPI_Request> sends_;        // one per slot of the rounds reached
  std::size_t current_ = 0;
  bool started_ = false;
};

}  // namespace distopo::detail
