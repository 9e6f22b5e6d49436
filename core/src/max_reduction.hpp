#pragma once
// A max-reduction (MPI_Allreduce with MPI_MAX) of a few ints over point-to-point
// messages, driven by the caller's probe loop: recursive doubling, with the
// ranks beyond the largest power of two folded onto a partner first (Thakur,
// Rabenseifner, Gropp 2005). log2(P) rounds of one message, O(values) memory.
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
// A rank hears from each partner exactly once, so the source of a message
// names its step; messages that arrive before this rank reaches their step
// (or before start()) are kept until then.
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
  [[nodiscard]] bool done() const { return started_ && current_ == steps_.size(); }
  // Waits for this rank's own sends (a few ints each: complete at once).
  void complete_sends();

 private:
  struct Step {
    int send_to;       // -1: nothing to send
    int receive_from;  // -1: nothing to receive
    bool take_result;  // the received values replace ours (folded rank)
  };

  void advance();

  MPI_Comm comm_;
  std::span<int> values_;
  int tag_;
  std::vector<Step> steps_;
  std::vector<int> outgoing_;  // per step: the values as sent
  std::vector<int> incoming_;  // per step: the values received
  std::vector<char> arrived_;
  std::vector<MPI_Request> sends_;
  std::size_t current_ = 0;
  bool current_sent_ = false;
  bool started_ = false;
};

}  // namespace distopo::detail
