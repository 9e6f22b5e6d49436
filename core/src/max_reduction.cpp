#include "max_reduction.hpp"

#include <algorithm>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"

namespace distopo::detail {

MaxReduction::MaxReduction(MPI_Comm comm, std::span<int> values, int tag)
    : comm_(comm), values_(values), incoming_(values.size()), tag_(tag), rank_(comm_rank(comm)) {
  const int size = comm_size(comm);
  while (power_of_two_ * 2 <= size) power_of_two_ *= 2;
  folded_ = size - power_of_two_;
  const int count = static_cast<int>(values_.size());
  if (rank_ < 2 * folded_ && rank_ % 2 == 0) {
    // Hand our values to the odd neighbor, get the result back at the end.
    check_mpi(MPI_Isend(values_.data(), count, MPI_INT, rank_ + 1, tag_, comm_, &requests_[0]), "MPI_Isend");
    check_mpi(MPI_Irecv(incoming_.data(), count, MPI_INT, rank_ + 1, tag_, comm_, &requests_[1]), "MPI_Irecv");
    stage_ = Stage::fold_out;
    return;
  }
  virtual_rank_ = rank_ < 2 * folded_ ? rank_ / 2 : rank_ - folded_;
  if (rank_ < 2 * folded_) {
    check_mpi(MPI_Irecv(incoming_.data(), count, MPI_INT, rank_ - 1, tag_, comm_, &requests_[1]), "MPI_Irecv");
    expecting_ = true;
    stage_ = Stage::fold_in;
    return;
  }
  stage_ = Stage::fold_in;
  next_stage();
}

MaxReduction::~MaxReduction() {
  // Only reached early when an MPI call threw; nothing sensible is left to do
  // but not leak the requests.
  for (MPI_Request& request : requests_) {
    if (request != MPI_REQUEST_NULL) {
      PMPI_Cancel(&request);
      PMPI_Request_free(&request);
    }
  }
}

int MaxReduction::real_rank(int virtual_rank) const {
  return virtual_rank < folded_ ? 2 * virtual_rank + 1 : virtual_rank + folded_;
}

void MaxReduction::post_exchange(int partner) {
  const int count = static_cast<int>(values_.size());
  check_mpi(MPI_Isend(values_.data(), count, MPI_INT, partner, tag_, comm_, &requests_[0]), "MPI_Isend");
  check_mpi(MPI_Irecv(incoming_.data(), count, MPI_INT, partner, tag_, comm_, &requests_[1]), "MPI_Irecv");
  expecting_ = true;
}

// Called when nothing is pending: combine what arrived, then start the next step.
void MaxReduction::next_stage() {
  if (expecting_) {
    std::transform(values_.begin(), values_.end(), incoming_.begin(), values_.begin(),
                   [](int a, int b) { return std::max(a, b); });
    expecting_ = false;
  }
  switch (stage_) {
    case Stage::fold_in:
      stage_ = Stage::rounds;
      [[fallthrough]];
    case Stage::rounds:
      if (mask_ < power_of_two_) {
        post_exchange(real_rank(virtual_rank_ ^ mask_));
        mask_ <<= 1;
        return;
      }
      if (rank_ < 2 * folded_) {
        // Give the result back to the even neighbor folded onto us.
        check_mpi(MPI_Isend(values_.data(), static_cast<int>(values_.size()), MPI_INT, rank_ - 1, tag_, comm_,
                            &requests_[0]),
                  "MPI_Isend");
        stage_ = Stage::fold_out;
        return;
      }
      stage_ = Stage::done;
      return;
    case Stage::fold_out:
      if (virtual_rank_ < 0) std::copy(incoming_.begin(), incoming_.end(), values_.begin());
      stage_ = Stage::done;
      return;
    case Stage::done:
      return;
  }
}

bool MaxReduction::test() {
  while (stage_ != Stage::done) {
    int finished = 0;
    check_mpi(PMPI_Testall(2, requests_, &finished, MPI_STATUSES_IGNORE), "MPI_Testall");
    if (!finished) return false;
    next_stage();
  }
  return true;
}

}  // namespace distopo::detail
