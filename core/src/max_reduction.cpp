#include "max_reduction.hpp"

#include <algorithm>
#include <string>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"

namespace distopo::detail {

namespace {
constexpr long radix_for(long size) { return size <= 16 ? 2 : 4; }
}  // namespace

MaxReduction::MaxReduction(MPI_Comm comm, std::span<int> values, int tag) : comm_(comm), values_(values), tag_(tag) {
  const long rank = comm_rank(comm);
  const long size = comm_size(comm);
  const long radix = radix_for(size);
  round_begin_.push_back(0);
  for (long distance = 1; distance < size; distance *= radix) {
    for (long offset = distance; offset < radix * distance && offset < size; offset += distance) {
      send_to_.push_back(static_cast<int>((rank + offset) % size));
      receive_from_.push_back(static_cast<int>((rank - offset + size) % size));
    }
    round_begin_.push_back(send_to_.size());
  }
  outgoing_.resize(rounds() * values_.size());
  incoming_.resize(receive_from_.size() * values_.size());
  arrived_.assign(receive_from_.size(), 0);
  arrivals_.assign(rounds(), 0);
  sends_.reserve(send_to_.size());
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
  for (std::size_t round = current_; round < rounds(); ++round) {
    for (std::size_t slot = round_begin_[round]; slot < round_begin_[round + 1]; ++slot) {
      if (receive_from_[slot] != source || arrived_[slot]) continue;
      check_mpi(MPI_Recv(incoming_.data() + slot * count, static_cast<int>(count), MPI_INT, source, tag_, comm_,
                         MPI_STATUS_IGNORE),
                "MPI_Recv");
      arrived_[slot] = 1;
      ++arrivals_[round];
      if (started_) advance();
      return;
    }
  }
  throw Error(MPI_ERR_INTERN, "sparse exchange agreement: unexpected message from rank " + std::to_string(source));
}

// Sends and combines as far as the arrived messages allow.
void MaxReduction::advance() {
  const std::size_t count = values_.size();
  while (current_ < rounds()) {
    const std::size_t begin = round_begin_[current_];
    const std::size_t end = round_begin_[current_ + 1];
    if (sends_.size() == begin) {
      int* snapshot = outgoing_.data() + current_ * count;
      std::copy(values_.begin(), values_.end(), snapshot);
      for (std::size_t slot = begin; slot < end; ++slot) {
        sends_.emplace_back();
        check_mpi(MPI_Isend(snapshot, static_cast<int>(count), MPI_INT, send_to_[slot], tag_, comm_, &sends_.back()),
                  "MPI_Isend");
      }
    }
    if (arrivals_[current_] < end - begin) return;
    for (std::size_t slot = begin; slot < end; ++slot) {
      const int* received = incoming_.data() + slot * count;
      std::transform(values_.begin(), values_.end(), received, values_.begin(),
                     [](int a, int b) { return std::max(a, b); });
    }
    ++current_;
  }
}

void MaxReduction::complete_sends() {
  check_mpi(PMPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

}  // namespace distopo::detail
