#include "distopo/core/argument_agreement.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "distopo/core/comm.hpp"

namespace distopo::detail {

namespace {
constexpr std::size_t kSlotsPerItem = 4;  // low, -low, high, -high

// Error path only: the first rank whose fingerprint differs from rank 0's.
int first_differing_rank(MPI_Comm comm, const Fingerprint& fingerprint, int rank, int size) {
  std::array<int, 2> reference{fingerprint.low(), fingerprint.high()};
  check_mpi(MPI_Bcast(reference.data(), 2, MPI_INT, 0, comm), "MPI_Bcast");
  const bool differs = reference[0] != fingerprint.low() || reference[1] != fingerprint.high();
  int first = differs ? size - rank : 0;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  return size - first;
}
}  // namespace

void agree_on_arguments(MPI_Comm comm, const std::optional<LocalError>& local, std::span<const MustAgree> items,
                        const char* caller, std::span<int> also_max) {
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  const std::size_t item_slots = 1 + kSlotsPerItem * items.size();
  std::vector<int> values(item_slots + also_max.size());
  std::copy(also_max.begin(), also_max.end(), values.begin() + static_cast<std::ptrdiff_t>(item_slots));
  values[0] = error_flag(local, rank, size);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Fingerprint& f = items[i].fingerprint;
    const std::array<int, kSlotsPerItem> slots{f.low(), -f.low(), f.high(), -f.high()};
    std::copy(slots.begin(), slots.end(), values.begin() + static_cast<std::ptrdiff_t>(1 + kSlotsPerItem * i));
  }
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT, MPI_MAX, comm),
            "MPI_Allreduce");
  std::copy(values.begin() + static_cast<std::ptrdiff_t>(item_slots), values.end(), also_max.begin());
  throw_agreed_error(comm, values[0], local);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const int* slot = values.data() + 1 + kSlotsPerItem * i;
    if (slot[0] == -slot[1] && slot[2] == -slot[3]) continue;
    const int differing = first_differing_rank(comm, items[i].fingerprint, rank, size);
    throw Error(MPI_ERR_ARG, std::string(caller) + ": rank " + std::to_string(differing) + ": " + items[i].what +
                                 " differ from rank 0's; they must be the same on all ranks");
  }
}

}  // namespace distopo::detail
