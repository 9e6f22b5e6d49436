#include "creation_agreement.hpp"

#include <string>

namespace distopo::detail {

CreationAgreement::CreationAgreement(const std::optional<LocalError>& error, const DistGraphOptions& options, int rank,
                                     int size, const char* weights_argument, bool check_adjacent)
    : size_(size), weights_argument_(weights_argument) {
  const int me = size - rank;
  values_[kError] = error_flag(error, rank, size);
  values_[kUnweighted] = options.weighted ? 0 : me;
  values_[kWeighted] = options.weighted ? me : 0;
  values_[kReorder] = options.reorder ? me : 0;
  values_[kNoReorder] = options.reorder ? 0 : me;
  values_[kCheck] = check_adjacent ? me : 0;
  values_[kNoCheck] = check_adjacent ? 0 : me;
}

void CreationAgreement::reduce_and_throw(MPI_Comm comm, const std::optional<LocalError>& local, const char* caller) {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values_.data(), kSlots, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  throw_if_failed(comm, local, caller);
}

void CreationAgreement::throw_if_failed(MPI_Comm comm, const std::optional<LocalError>& local,
                                        const char* caller) const {
  throw_agreed_error(comm, values_[kError], local);
  const std::string prefix = std::string(caller) + ": ";
  if (differ(kUnweighted, kWeighted)) {
    throw Error(MPI_ERR_ARG, prefix + "rank " + std::to_string(first_rank(kUnweighted)) + " passes MPI_UNWEIGHTED as " +
                                 weights_argument_ + " but rank " + std::to_string(first_rank(kWeighted)) +
                                 " passes weights; MPI_UNWEIGHTED must be given on all ranks or none");
  }
  if (differ(kReorder, kNoReorder)) {
    throw Error(MPI_ERR_ARG, prefix + "reorder is true on rank " + std::to_string(first_rank(kReorder)) +
                                 " but false on rank " + std::to_string(first_rank(kNoReorder)) +
                                 "; it must be the same on all ranks");
  }
  if (differ(kCheck, kNoCheck)) {
    throw Error(MPI_ERR_ARG, prefix + "info key distopo_check_adjacent is true on rank " +
                                 std::to_string(first_rank(kCheck)) + " but not on rank " +
                                 std::to_string(first_rank(kNoCheck)) + "; it must be the same on all ranks");
  }
}

}  // namespace distopo::detail
