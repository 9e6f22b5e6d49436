#include "distopo/core/comm.hpp"

#include <string>

#include "distopo/core/error.hpp"

namespace distopo {

Comm& Comm::operator=(Comm&& other) noexcept {
  if (this != &other) {
    reset();
    handle_ = other.release();
  }
  return *this;
}

Comm::~Comm() { reset(); }

MPI_Comm Comm::release() noexcept {
  MPI_Comm handle = handle_;
  handle_ = MPI_COMM_NULL;
  return handle;
}

void Comm::reset() noexcept {
  if (handle_ == MPI_COMM_NULL) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) PMPI_Comm_free(&handle_);
  handle_ = MPI_COMM_NULL;
}

int Comm::rank() const { return comm_rank(handle_); }
int Comm::size() const { return comm_size(handle_); }

int comm_rank(MPI_Comm comm) {
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  return rank;
}

int comm_size(MPI_Comm comm) {
  int size = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  return size;
}

// PMPI names: these run inside interposed MPI_* functions.
Comm copy_without_attributes(MPI_Comm comm) {
  MPI_Comm copy = MPI_COMM_NULL;
#if DISTOPO_NATIVE_TOPOLOGY
  // MPICH's cheapest attribute-free copy: its topology constructors copy the
  // communicator as MPI_Comm_dup does (one context-id agreement, the rank
  // mapping shared, nothing of size P) but skip the attribute copy. The empty
  // graph it carries is never read.
  check_mpi(PMPI_Dist_graph_create_adjacent(comm, 0, nullptr, MPI_UNWEIGHTED, 0, nullptr, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                            0, &copy),
            "MPI_Dist_graph_create_adjacent");
#else
  // MPI layers without topology functions (SimGrid SMPI): a split that keeps
  // every rank where it is.
  check_mpi(PMPI_Comm_split(comm, 0, comm_rank(comm), &copy), "MPI_Comm_split");
#endif
  return Comm::adopt(copy);
}

Comm private_copy(MPI_Comm comm) {
  Comm copy = copy_without_attributes(comm);
  check_mpi(PMPI_Comm_set_errhandler(copy, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  return copy;
}

Comm split_by_rank(MPI_Comm comm, int new_rank) {
  MPI_Comm result = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(comm, new_rank == MPI_UNDEFINED ? MPI_UNDEFINED : 0, new_rank, &result), "MPI_Comm_split");
  return Comm::adopt(result);
}

void require_intracommunicator(MPI_Comm comm, const char* caller) {
  if (comm == MPI_COMM_NULL) throw Error(MPI_ERR_COMM, std::string(caller) + ": communicator is MPI_COMM_NULL");
  int is_inter = 0;
  check_mpi(MPI_Comm_test_inter(comm, &is_inter), "MPI_Comm_test_inter");
  if (is_inter) {
    throw Error(MPI_ERR_COMM, std::string(caller) + ": topologies are not defined on intercommunicators");
  }
}

}  // namespace distopo
