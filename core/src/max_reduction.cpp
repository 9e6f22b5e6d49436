#include "max_reduction.hpp"

#include <algorithm>
#include <string>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"

namespace distopo::detail {

MaxReduction::MaxReduction(MPI_Comm comm, std::span<int> values, int tag)
    : comm_(comm), values_(values), tag_(tag), rank_(comm_rank(comm)), size_(comm_size(comm)) {
  std::size_t rounds = 0;
  for (long distance = 1; distance < size_; distance *= 2) ++rounds;
  outgoing_.resize(rounds * values_.size());
  incoming_.resize(rounds * values_.size());
  arrived_.assign(rounds, 0);
  sends_.reserve(rounds);
}

MaxReduction::~MaxReduction() {
  // Only reached with pending sends when an MPI call threw; do not leak them.
  for (MPI_Request& request : sends_) {
    if (request != MPI_REQUEST_NULL) PMPI_Request_free(&request);
  }
}

int MaxReduction::partner(std::size_t round, int direction) const {
  const long offset = 1L << round;  // below size_
  return static_cast<int>(((rank_ + direction * offset) % size_ + size_) % size_);
}

void MaxReduction::start() {
  started_ = true;
  advance();
}

void MaxReduction::receive(int source) {
  const std::size_t count = values_.size();
  for (std::size_t round = current_; round < rounds(); ++round) {
    if (partner(round, -1) != source || arrived_[round]) continue;
    check_mpi(MPI_Recv(incoming_.data() + round * count, static_cast<int>(count), MPI_INT, source, tag_, comm_,
                       MPI_STATUS_IGNORE),
              "MPI_Recv");
    arrived_[round] = 1;
    if (started_) advance();
    return;
  }
  throw Error(MPI_ERR_INTERN, "sparse exchange agreement: unexpected message from rank " + std::to_string(source));
}

// Sends and combines as far as the arrived messages allow.
void MaxReduction::advance() {
  const std::size_t count = values_.size();
  while (current_ < rounds()) {
    if (sends_.size() == current_) {
      int* snapshot = outgoing_.data() + current_ * count;
      std::copy(values_.begin(), values_.end(), snapshot);
      sends_.emplace_back();
      check_mpi(MPI_Isend(snapshot, static_cast<int>(count), MPI_INT, partner(current_, +1), tag_, comm_,
                          &sends_.back()),
                "MPI_Isend");
    }
    if (!arrived_[current_]) return;
    const int* received = incoming_.data() + current_ * count;
    std::transform(values_.begin(), values_.end(), received, values_.begin(),
                   [](int a, int b) { return std::max(a, b); });
    ++current_;
  }
}

void MaxReduction::complete_sends() {
  check_mpi(PMPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

}  // namespace distopo::detail
