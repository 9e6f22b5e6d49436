#pragma once
// The flags every rank contributes to a constructor's single agreement step:
// its own input error, what must be equal on all ranks (weighted, reorder,
// and the info keys the constructor reads), whether dist_graph_create takes
// a second round or sends to a hub, and the result's channel lease
// (LeaseOffer, core/shared_channel.hpp), which so needs no round of its own.
// Reduced with MPI_MAX: the error's slot holds size - r for the lowest rank r
// that failed (0: none), the flags that must agree one bit each, with their
// negation beside them (equal everywhere when max = -max of the negation),
// the second round and the hub 1 where they hold on any rank; the lease's
// values follow. Every rank sends these values in each round of the
// agreement, and on hosts of many ranks the host's network adapter sends
// them one after another, so they are kept few: which ranks gave which
// flags is asked for only when they differ (docs/design/sparse-exchange.md).
#include <array>
#include <optional>
#include <span>
#include <string>

#include "distopo/core/error.hpp"
#include "distopo/core/shared_channel.hpp"
#include "distopo/distgraph.hpp"

namespace distopo::detail {

// This rank's values of the info flags a constructor reads.
struct InfoFlags {
  bool check_adjacent = false;  // distopo_check_adjacent
  bool native_weights = false;  // distopo_native_weights
};

class CreationAgreement {
 public:
  // `weights_argument` names the weights for messages ("weights"); `lease`:
  // the result's lease to agree on (none: LeaseOffer{}).
  CreationAgreement(const std::optional<LocalError>& error, const DistGraphOptions& options, int rank, int size,
                    const char* weights_argument, InfoFlags flags, LeaseOffer lease = {});

  // An error found after construction (before the reduction).
  void record_error(int rank) { values_[kError] = size_ - rank; }

  // This rank sent its out-ends to their sources only: the create takes a
  // second round (dist_graph_create.cpp). After the reduction, any_by_source()
  // tells whether any rank did.
  void note_by_source() { values_[kBySource] = 1; }
  [[nodiscard]] bool any_by_source() const { return values_[kBySource] != 0; }

  // This rank sends one peer far more than the others: that peer may take
  // long to write its lists, and the ranks wait for each other politely
  // before MPICH's copy of the topology, whose collective would poll
  // (dist_graph_create.cpp).
  void note_hub() { values_[kHub] = 1; }
  [[nodiscard]] bool any_hub() const { return values_[kHub] != 0; }

  // The flags, for a reduction done elsewhere (MPI_MAX, e.g. an exchange's
  // agreement step).
  std::span<int> values() { return values_; }

  // After the reduction: the lease offer as every rank agreed on it.
  [[nodiscard]] LeaseOffer agreed_lease() const;

  // After the reduction, on every rank: the same Error if any rank failed or
  // the ranks disagree on weighted, reorder or an info flag.
  void throw_if_failed(MPI_Comm comm, const std::optional<LocalError>& local, const char* caller) const;

  // The reduction in an allreduce of its own, started (MPI_Iallreduce) so
  // that the constructor's other collective work (MPICH's copy) runs while it
  // is in flight, then waited for: every rank throws the same Error, or none.
  void start_reduction(MPI_Comm comm);
  void wait_for_reduction();
  void finish_and_throw(MPI_Comm comm, const std::optional<LocalError>& local, const char* caller);

  CreationAgreement(const CreationAgreement&) = delete;
  CreationAgreement& operator=(const CreationAgreement&) = delete;
  ~CreationAgreement();  // waits for a reduction still in flight (an exception left it)

 private:
  enum Slot { kError, kFlags, kNotFlags, kBySource, kHub, kSlots };
  // Per flag and value, this rank's size - rank where it gave that value, 0
  // where not: reduced only when the flags differ, to name the first rank of each.
  enum Flag {
    kUnweighted,
    kWeighted,
    kReorder,
    kNoReorder,
    kCheck,
    kNoCheck,
    kNativeWeights,
    kNoNativeWeights,
    kFlagSlots
  };
  using FlagRanks = std::array<int, kFlagSlots>;
  // After the flags' own reduction (`first`): whether some rank gave each
  // value, and the first rank that gave `flag`.
  static bool differ(const FlagRanks& first, Flag yes, Flag no) { return first[yes] != 0 && first[no] != 0; }
  [[nodiscard]] std::string rank_of(const FlagRanks& first, Flag flag) const {
    return std::to_string(size_ - first[flag]);
  }
  void note(bool value, Flag yes, Flag no, int bit, int me);
  void throw_if_flag_differs(const FlagRanks& first, Flag yes, Flag no, const char* key,
                             const std::string& prefix) const;
  std::array<int, kSlots + LeaseOffer::kValues> values_{};
  FlagRanks flag_ranks_{};
  MPI_Request reduction_ = MPI_REQUEST_NULL;
  LeaseOffer lease_;
  int size_;
  const char* weights_argument_;
};

}  // namespace distopo::detail
