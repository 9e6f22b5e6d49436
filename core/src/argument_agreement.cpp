#include "distopo/core/argument_agreement.hpp"

#include <array>
#include <string>

#include "distopo/core/comm.hpp"

namespace distopo::detail {

void agree_on_arguments(MPI_Comm comm, const std::optional<LocalError>& local, const Fingerprint& fingerprint,
                        const char* caller, const char* what) {
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  std::array<int, 5> values{error_flag(local, rank, size), fingerprint.low(), -fingerprint.low(), fingerprint.high(),
                            -fingerprint.high()};
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT, MPI_MAX, comm),
            "MPI_Allreduce");
  throw_agreed_error(comm, values[0], local);
  if (values[1] == -values[2] && values[3] == -values[4]) return;
  // Error path only: compare with rank 0's fingerprint and name the lowest rank that differs.
  std::array<int, 2> reference{fingerprint.low(), fingerprint.high()};
  check_mpi(MPI_Bcast(reference.data(), 2, MPI_INT, 0, comm), "MPI_Bcast");
  const bool differs = reference[0] != fingerprint.low() || reference[1] != fingerprint.high();
  int first = differs ? size - rank : 0;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  throw Error(MPI_ERR_ARG, std::string(caller) + ": rank " + std::to_string(size - first) + " passes " + what +
                               " that differ from those of rank 0; they must be the same on all ranks");
}

}  // namespace distopo::detail
