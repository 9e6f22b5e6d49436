#pragma once
// The single agreement step of a constructor whose arguments must be equal on
// all ranks (cart, graph): every rank contributes its local input error and
// fingerprints of what must be the same on all ranks (the arguments, and the
// settings the call reads: distopo_ranks_per_node); one MPI_MAX allreduce
// decides. On failure every rank throws the same Error (the lowest failing
// rank's, or MPI_ERR_ARG naming the first rank whose fingerprint differs from
// rank 0's), nobody waits.
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <span>

#include "distopo/core/error.hpp"

namespace distopo::detail {

// FNV-1a over ints, folded into 62 bits.
class Fingerprint {
 public:
  void add(std::int64_t value) {
    for (int byte = 0; byte < 8; ++byte) {
      hash_ ^= static_cast<std::uint64_t>(value >> (8 * byte)) & 0xffU;
      hash_ *= 0x100000001b3ULL;
    }
  }
  void add(std::span<const int> values) {
    add(static_cast<std::int64_t>(values.size()));
    for (int v : values) add(v);
  }
  [[nodiscard]] int low() const { return static_cast<int>(hash_ & 0x7fffffffU); }
  [[nodiscard]] int high() const { return static_cast<int>((hash_ >> 31) & 0x7fffffffU); }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

// What must be the same on all ranks, and its name for the mismatch message
// ("ndims, dims, periods or reorder").
struct MustAgree {
  Fingerprint fingerprint;
  const char* what;
};

// Collective over comm. The first item that differs is the one reported.
// `also_max` rides on the same allreduce (MPI_MAX, in place): values the
// caller agrees on without a round of its own (a LeaseOffer's).
void agree_on_arguments(MPI_Comm comm, const std::optional<LocalError>& local, std::span<const MustAgree> items,
                        const char* caller, std::span<int> also_max = {});

}  // namespace distopo::detail
