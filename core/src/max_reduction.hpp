#pragma once
// A max-reduction (MPI_Allreduce with MPI_MAX) of a few ints over point-to-point
// messages, driven by the caller's probe loop: a dissemination (Hensgen,
// Finkel, Manber 1988) of radix k. In round j rank r sends what it has to
// r + m * k^j and receives from r - m * k^j (m = 1 .. k-1, mod P); after
// ceil(log_k P) rounds every rank has seen every value. MAX does not mind
// seeing a value twice, so any P works without folding ranks onto partners
// (recursive doubling needs two extra steps when P is not a power of two).
// O(k log_k P) messages and memory per rank, nothing of size P.
//
// k = 2: over all seven graph families (distgraph_scaling, two runs each,
// geometric mean of mpich/distopo), k = 2 gave 1.24 / 1.15 / 1.12 at
// P = 4 / 8 / 16, k = 4 gave 1.04 / 1.15 / 1.16 with 0.68 for powerlaw at
// P = 4, where one round reaches every rank and all wait for the hub.
//
// Why not MPI_Iallreduce: MPICH 4.0 builds a schedule for every call, which
// costs 4.3 us at two ranks against 1.3 us for one message exchange (measured
// here), and its schedule storage grows in steps with P.
//
// Why message-driven (the caller probes, this class only receives what it is
// handed): every MPI_Test on a pending request is a progress poll of its own,
// and with more ranks than cores a poll that finds nothing gives the core
// away. The sparse exchange polls once per turn with one MPI_Iprobe for all of
// its messages; testing the reduction's requests as well tripled its polls and
// made the exchange 1.5x slower at 8 ranks on 2 cores (286 -> 184 us).
//
// The offsets m * k^j are distinct and below P, so every partner of a rank
// sends to it exactly once: the source of a message names its round. Messages
// that arrive before this rank reaches their round (or before start()) are
// kept until then.
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
  [[nodiscard]] bool done() const { return started_ && current_ == rounds_.size(); }
  // Waits for this rank's own sends (a few ints each: complete at once).
  void complete_sends();

 private:
  static constexpr long kRadix = 2;

  struct Round {
    std::vector<int> send_to;
    std::vector<int> receive_from;
    std::size_t first_slot = 0;  // of its received values in incoming_
    std::size_t arrived = 0;
  };

  void advance();

  MPI_Comm comm_;
  std::span<int> values_;
  int tag_;
  std::vector<Round> rounds_;
  std::vector<int> outgoing_;  // per round: the values as sent
  std::vector<int> incoming_;  // per partner: the values received
  std::vector<char> slot_arrived_;
  std::vector<MPI_Request> sends_;
  std::size_t current_ = 0;
  bool current_sent_ = false;
  bool started_ = false;
};

}  // namespace distopo::detail
