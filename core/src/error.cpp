#include "distopo/core/error.hpp"

#include <array>
#include <vector>

#include "distopo/core/comm.hpp"

namespace distopo {

Error::Error(int error_class, const std::string& message) : std::runtime_error(message), error_class_(error_class) {}

void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  int error_class = MPI_ERR_OTHER;
  MPI_Error_class(rc, &error_class);
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int length = 0;
  MPI_Error_string(rc, text.data(), &length);
  throw Error(error_class, std::string(call) + " failed: " + std::string(text.data(), length));
}

void agree_on_error(MPI_Comm comm, const std::optional<LocalError>& local) {
  int rank = 0;
  int size = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  int flag = error_flag(local, rank, size);
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  throw_agreed_error(comm, flag, local);
}

void throw_agreed_error(MPI_Comm comm, int reduced_flag, const std::optional<LocalError>& local) {
  if (reduced_flag == 0) return;
  int rank = 0;
  int size = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  const int root = size - reduced_flag;
  // Error path only: class and message length, then the message.
  std::array<int, 2> header{MPI_ERR_OTHER, 0};
  if (rank == root) header = {local->error_class, static_cast<int>(local->message.size())};
  check_mpi(MPI_Bcast(header.data(), 2, MPI_INT, root, comm), "MPI_Bcast");
  std::vector<char> text(static_cast<std::size_t>(header[1]));
  if (rank == root) text.assign(local->message.begin(), local->message.end());
  check_mpi(MPI_Bcast(text.data(), header[1], MPI_CHAR, root, comm), "MPI_Bcast");
  throw Error(header[0], std::string(text.begin(), text.end()));
}

std::string rank_prefix(const char* caller, int rank) {
  return std::string(caller) + ": rank " + std::to_string(rank) + ": ";
}

std::string comm_rank_prefix(const char* caller, MPI_Comm comm) { return rank_prefix(caller, comm_rank(comm)); }

LocalError rank_error(int error_class, const char* caller, int rank, const std::string& what) {
  return {error_class, rank_prefix(caller, rank) + what};
}

LocalError out_of_memory(const char* caller, int rank, const std::string& what) {
  return rank_error(MPI_ERR_NO_MEM, caller, rank, "out of memory (" + what + ")");
}

}  // namespace distopo
