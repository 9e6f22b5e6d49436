#include "creation_agreement.hpp"

#include <algorithm>
#include <utility>

#include "edge_input.hpp"
#include "install_topology.hpp"

namespace distopo::detail {

CreationAgreement::CreationAgreement(const std::optional<LocalError>& error, const DistGraphOptions& options, int rank,
                                     int size, const char* weights_argument, InfoFlags flags, LeaseOffer lease)
    : lease_(std::move(lease)), size_(size), weights_argument_(weights_argument) {
  std::ranges::copy(lease_.values(), values_.begin() + kSlots);
  values_[kError] = error_flag(error, rank, size);
  const int me = size - rank;
  note(options.weighted, kWeighted, kUnweighted, 0, me);
  note(options.reorder, kReorder, kNoReorder, 1, me);
  note(flags.check_adjacent, kCheck, kNoCheck, 2, me);
  note(flags.native_weights, kNativeWeights, kNoNativeWeights, 3, me);
  values_[kNotFlags] = -values_[kFlags];
}

void CreationAgreement::note(bool value, Flag yes, Flag no, int bit, int me) {
  flag_ranks_[value ? yes : no] = me;
  if (value) values_[kFlags] |= 1 << bit;
}

LeaseOffer CreationAgreement::agreed_lease() const {
  LeaseOffer agreed = lease_;
  std::copy(values_.begin() + kSlots, values_.end(), agreed.values().begin());
  return agreed;
}

#ifdef DISTOPO_SMPI_BUILD
// SimGrid SMPI 3.32's MPI_Iallreduce sends every rank's values to every other
// rank (P^2 messages: at 1024 ranks most of a simulation's real time), where its
// MPI_Allreduce runs the algorithm the model sets: simulated, the agreement
// is blocking and MPICH's copy follows it.
void CreationAgreement::start_reduction(MPI_Comm comm) {
  check_mpi(PMPI_Allreduce(MPI_IN_PLACE, values_.data(), static_cast<int>(values_.size()), MPI_INT, MPI_MAX, comm),
            "MPI_Allreduce");
}
#else
void CreationAgreement::start_reduction(MPI_Comm comm) {
  check_mpi(PMPI_Iallreduce(MPI_IN_PLACE, values_.data(), static_cast<int>(values_.size()), MPI_INT, MPI_MAX, comm,
                            &reduction_),
            "MPI_Iallreduce");
}
#endif

void CreationAgreement::wait_for_reduction() { check_mpi(PMPI_Wait(&reduction_, MPI_STATUS_IGNORE), "MPI_Wait"); }

void CreationAgreement::finish_and_throw(MPI_Comm comm, const std::optional<LocalError>& local, const char* caller) {
  wait_for_reduction();
  throw_if_failed(comm, local, caller);
}

CreationAgreement::~CreationAgreement() {
  if (reduction_ != MPI_REQUEST_NULL) PMPI_Wait(&reduction_, MPI_STATUS_IGNORE);
}

void CreationAgreement::throw_if_failed(MPI_Comm comm, const std::optional<LocalError>& local,
                                        const char* caller) const {
  throw_agreed_error(comm, values_[kError], local);
  if (values_[kFlags] == -values_[kNotFlags]) return;  // every rank gave the same flags
  // Some differ (every rank sees it): a reduction of its own names the first
  // rank that gave each value.
  FlagRanks first = flag_ranks_;
  check_mpi(PMPI_Allreduce(MPI_IN_PLACE, first.data(), kFlagSlots, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  const std::string prefix = std::string(caller) + ": ";
  if (differ(first, kUnweighted, kWeighted)) {
    throw Error(MPI_ERR_ARG, prefix + "rank " + rank_of(first, kUnweighted) + " passes MPI_UNWEIGHTED as " +
                                 weights_argument_ + " but rank " + rank_of(first, kWeighted) +
                                 " passes weights; MPI_UNWEIGHTED must be given on all ranks or none");
  }
  if (differ(first, kReorder, kNoReorder)) {
    throw Error(MPI_ERR_ARG, prefix + "reorder is true on rank " + rank_of(first, kReorder) + " but false on rank " +
                                 rank_of(first, kNoReorder) + "; it must be the same on all ranks");
  }
  throw_if_flag_differs(first, kCheck, kNoCheck, kCheckAdjacentKey, prefix);
  throw_if_flag_differs(first, kNativeWeights, kNoNativeWeights, kNativeWeightsKey, prefix);
  throw Error(MPI_ERR_INTERN, prefix + "the ranks' flags differed in the agreement but not when named");
}

void CreationAgreement::throw_if_flag_differs(const FlagRanks& first, Flag yes, Flag no, const char* key,
                                              const std::string& prefix) const {
  if (!differ(first, yes, no)) return;
  throw Error(MPI_ERR_ARG, prefix + "info key " + key + " is true on rank " + rank_of(first, yes) +
                               " but not on rank " + rank_of(first, no) + "; it must be the same on all ranks");
}

}  // namespace distopo::detail
