#include "max_reduction.hpp"

#include <algorithm>
#include <string>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"

namespace distopo::detail {

MaxReduction::MaxReduction(MPI_Comm comm, std::span<int> values, int tag) : comm_(comm), values_(values), tag_(tag) {
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  int power_of_two = 1;
  while (power_of_two * 2 <= size) power_of_two *= 2;
  const int folded = size - power_of_two;
  if (rank < 2 * folded && rank % 2 == 0) {
    // Hand our values to the odd neighbor, get the result back at the end.
    steps_.push_back({rank + 1, -1, false});
    steps_.push_back({-1, rank + 1, true});
  } else {
    const bool takes_folded = rank < 2 * folded;
    const int virtual_rank = takes_folded ? rank / 2 : rank - folded;
    const auto real_rank = [folded](int v) { return v < folded ? 2 * v + 1 : v + folded; };
    if (takes_folded) steps_.push_back({-1, rank - 1, false});
    for (int mask = 1; mask < power_of_two; mask <<= 1) {
      const int partner = real_rank(virtual_rank ^ mask);
      steps_.push_back({partner, partner, false});
    }
    if (takes_folded) steps_.push_back({rank - 1, -1, false});  // the result, back to the folded rank
  }
  outgoing_.resize(steps_.size() * values_.size());
  incoming_.resize(steps_.size() * values_.size());
  arrived_.assign(steps_.size(), 0);
  sends_.reserve(steps_.size());
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
  for (std::size_t step = current_; step < steps_.size(); ++step) {
    if (steps_[step].receive_from != source || arrived_[step]) continue;
    check_mpi(MPI_Recv(incoming_.data() + step * count, static_cast<int>(count), MPI_INT, source, tag_, comm_,
                       MPI_STATUS_IGNORE),
              "MPI_Recv");
    arrived_[step] = 1;
    if (started_) advance();
    return;
  }
  throw Error(MPI_ERR_INTERN, "sparse exchange agreement: unexpected message from rank " + std::to_string(source));
}

// Sends and combines as far as the arrived messages allow.
void MaxReduction::advance() {
  const std::size_t count = values_.size();
  while (current_ < steps_.size()) {
    const Step& step = steps_[current_];
    if (!current_sent_ && step.send_to >= 0) {
      int* snapshot = outgoing_.data() + current_ * count;
      std::copy(values_.begin(), values_.end(), snapshot);
      sends_.emplace_back();
      check_mpi(MPI_Isend(snapshot, static_cast<int>(count), MPI_INT, step.send_to, tag_, comm_, &sends_.back()),
                "MPI_Isend");
    }
    current_sent_ = true;
    if (step.receive_from >= 0) {
      if (!arrived_[current_]) return;
      const int* received = incoming_.data() + current_ * count;
      if (step.take_result) {
        std::copy(received, received + count, values_.begin());
      } else {
        std::transform(values_.begin(), values_.end(), received, values_.begin(),
                       [](int a, int b) { return std::max(a, b); });
      }
    }
    ++current_;
    current_sent_ = false;
  }
}

void MaxReduction::complete_sends() {
  check_mpi(PMPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

}  // namespace distopo::detail
