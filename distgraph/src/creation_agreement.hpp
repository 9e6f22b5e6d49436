#pragma once
// The flags every rank contributes to a constructor's single agreement step:
// its own input error, and what must be equal on all ranks (weighted,
// reorder, and the info keys the constructor reads: distopo_check_adjacent).
// Reduced with MPI_MAX, each slot holds size - r for the lowest rank r where
// the condition holds, 0 where it holds nowhere.
#include <array>
#include <optional>
#include <span>

#include "distopo/core/error.hpp"
#include "distopo/distgraph.hpp"

namespace distopo::detail {

class CreationAgreement {
 public:
  // `weights_argument` names the weights for messages ("weights");
  // `check_adjacent` is this rank's distopo_check_adjacent.
  CreationAgreement(const std::optional<LocalError>& error, const DistGraphOptions& options, int rank, int size,
                    const char* weights_argument, bool check_adjacent = false);

  // An error found after construction (before the reduction).
  void record_error(int rank) { values_[kError] = size_ - rank; }

  // The flags, for a reduction done elsewhere (MPI_MAX, e.g. an exchange's
  // agreement step).
  std::span<int> values() { return values_; }

  // After the reduction, on every rank: the same Error if any rank failed or
  // the ranks disagree on weighted, reorder or distopo_check_adjacent.
  void throw_if_failed(MPI_Comm comm, const std::optional<LocalError>& local, const char* caller) const;

  // Both steps, with an allreduce of its own.
  void reduce_and_throw(MPI_Comm comm, const std::optional<LocalError>& local, const char* caller);

 private:
  enum Slot { kError, kUnweighted, kWeighted, kReorder, kNoReorder, kCheck, kNoCheck, kSlots };
  [[nodiscard]] int first_rank(Slot slot) const { return size_ - values_[slot]; }
  [[nodiscard]] bool differ(Slot yes, Slot no) const { return values_[yes] != 0 && values_[no] != 0; }
  std::array<int, kSlots> values_{};
  int size_;
  const char* weights_argument_;
};

}  // namespace distopo::detail
