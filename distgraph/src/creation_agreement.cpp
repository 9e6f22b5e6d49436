#include "creation_agreement.hpp"

#include <string>

namespace distopo::detail {

CreationAgreement::CreationAgreement(const std::optional<LocalError>& error, const DistGraphOptions& options, int rank,
                                     int size)
    : size_(size) {
  const int me = size - rank;
  values_[kError] = error_flag(error, rank, size);
  values_[kUnweighted] = options.weighted ? 0 : me;
  values_[kWeighted] = options.weighted ? me : 0;
  values_[kReorder] = options.reorder ? me : 0;
  values_[kNoReorder] = options.reorder ? 0 : me;
}

void CreationAgreement::reduce_and_throw(MPI_Comm comm, const std::optional<LocalError>& local, const char* caller) {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values_.data(), kSlots, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  throw_if_failed(comm, local, caller);
}

void CreationAgreement::throw_if_failed(MPI_Comm comm, const std::optional<LocalError>& local,
                                        const char* caller) const {
  throw_agreed_error(comm, values_[kError], local);
  if (values_[kUnweighted] != 0 && values_[kWeighted] != 0) {
    throw Error(MPI_ERR_ARG, std::string(caller) + ": MPI_UNWEIGHTED given on rank " +
                                 std::to_string(first_rank(kUnweighted)) + " but weights given on rank " +
                                 std::to_string(first_rank(kWeighted)) + "; it must be given on all ranks or none");
  }
  if (values_[kReorder] != 0 && values_[kNoReorder] != 0) {
    throw Error(MPI_ERR_ARG, std::string(caller) + ": reorder is true on rank " + std::to_string(first_rank(kReorder)) +
                                 " but false on rank " + std::to_string(first_rank(kNoReorder)) +
                                 "; it must be the same on all ranks");
  }
}

}  // namespace distopo::detail
