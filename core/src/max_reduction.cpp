#include "max_reduction.hpp"

#include <algorithm>
#include <string>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"

namespace distopo::detail {

MaxReduction::MaxReduction(MPI_Comm comm, std::span<int> values, int tag) : comm_(comm), values_(values), tag_(tag) {
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  std::size_t slots = 0;
  for (long distance = 1; distance < size; distance *= kRadix) {
    Round round;
    round.first_slot = slots;
    for (long m = 1; m < kRadix && m * distance < size; ++m) {
      const int offset = static_cast<int>(m * distance);
      round.send_to.push_back((rank + offset) % size);
      round.receive_from.push_back((rank - offset + size) % size);
    }
    slots += round.receive_from.size();
    rounds_.push_back(std::move(round));
  }
  outgoing_.resize(rounds_.size() * values_.size());
  incoming_.resize(slots * values_.size());
  slot_arrived_.assign(slots, 0);
  sends_.reserve(slots);
}

MaxReduction::~MaxReduction() {
  // Only reached with pending sends when an MPI call threw; do not leak them.
  for (MPI_Request& request : sends_) {
    if (request != MPI_REQUEST_NULL) PMPI_Request_free(&request);
  }
}

void MaxReduction::start() {
  started_ = true;
  advance();
}

void MaxReduction::receive(int source) {
  const std::size_t count = values_.size();
  for (std::size_t r = current_; r < rounds_.size(); ++r) {
    Round& round = rounds_[r];
    for (std::size_t i = 0; i < round.receive_from.size(); ++i) {
      const std::size_t slot = round.first_slot + i;
      if (round.receive_from[i] != source || slot_arrived_[slot]) continue;
      check_mpi(MPI_Recv(incoming_.data() + slot * count, static_cast<int>(count), MPI_INT, source, tag_, comm_,
                         MPI_STATUS_IGNORE),
                "MPI_Recv");
      slot_arrived_[slot] = 1;
      ++round.arrived;
      if (started_) advance();
      return;
    }
  }
  throw Error(MPI_ERR_INTERN, "sparse exchange agreement: unexpected message from rank " + std::to_string(source));
}

// Sends and combines as far as the arrived messages allow.
void MaxReduction::advance() {
  const std::size_t count = values_.size();
  while (current_ < rounds_.size()) {
    Round& round = rounds_[current_];
    if (!current_sent_) {
      int* snapshot = outgoing_.data() + current_ * count;
      std::copy(values_.begin(), values_.end(), snapshot);
      for (int destination : round.send_to) {
        sends_.emplace_back();
        check_mpi(MPI_Isend(snapshot, static_cast<int>(count), MPI_INT, destination, tag_, comm_, &sends_.back()),
                  "MPI_Isend");
      }
      current_sent_ = true;
    }
    if (round.arrived < round.receive_from.size()) return;
    for (std::size_t i = 0; i < round.receive_from.size(); ++i) {
      const int* received = incoming_.data() + (round.first_slot + i) * count;
      std::transform(values_.begin(), values_.end(), received, values_.begin(),
                     [](int a, int b) { return std::max(a, b); });
    }
    ++current_;
    current_sent_ = false;
  }
}

void MaxReduction::complete_sends() {
  check_mpi(PMPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

}  // namespace distopo::detail
