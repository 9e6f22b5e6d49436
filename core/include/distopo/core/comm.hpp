#pragma once
// distopo::Comm: an owning, movable communicator handle. A null Comm is the
// valid result "MPI_COMM_NULL" (e.g. ranks left out of a smaller topology).
#include <mpi.h>

namespace distopo {

class Comm {
 public:
  Comm() noexcept = default;
  // Takes ownership: the handle is freed when the Comm goes away.
  static Comm adopt(MPI_Comm handle) noexcept { return Comm(handle); }

  Comm(Comm&& other) noexcept : handle_(other.release()) {}
  Comm& operator=(Comm&& other) noexcept;
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  ~Comm();

  [[nodiscard]] MPI_Comm get() const noexcept { return handle_; }
  operator MPI_Comm() const noexcept { return handle_; }  // NOLINT: drop-in for MPI calls
  [[nodiscard]] bool is_null() const noexcept { return handle_ == MPI_COMM_NULL; }
  explicit operator bool() const noexcept { return !is_null(); }
  // Gives up ownership and returns the handle.
  MPI_Comm release() noexcept;

  [[nodiscard]] int rank() const;
  [[nodiscard]] int size() const;

 private:
  explicit Comm(MPI_Comm handle) noexcept : handle_(handle) {}
  void reset() noexcept;
  MPI_Comm handle_ = MPI_COMM_NULL;
};

// Rank and size of any communicator, throwing distopo::Error on failure.
int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

// Collective over `comm`: a new communicator over the same group in the same
// rank order that carries none of `comm`'s attributes. Not MPI_Comm_dup: the
// standard copies attributes only in MPI_Comm_dup/idup/dup_with_info, so
// creating a topology or a channel must not run the user's copy callbacks
// (which may count calls or fail). The error handler is inherited.
Comm copy_without_attributes(MPI_Comm comm);

// The same for library-internal traffic (user messages on `comm` can never
// match ours), with MPI_ERRORS_RETURN: an error there becomes a
// distopo::Error and reaches the user through the handler of the user's
// communicator, never through the channel's.
Comm private_copy(MPI_Comm comm);

// Collective over `comm`: the processes with a `new_rank` other than
// MPI_UNDEFINED, in a new communicator where each has that rank; a null Comm
// for the others. How a constructor that chose the ranks makes its result.
Comm split_by_rank(MPI_Comm comm, int new_rank);

// Throws MPI_ERR_COMM unless `comm` is a valid intracommunicator: topologies
// are defined on intracommunicators only.
void require_intracommunicator(MPI_Comm comm, const char* caller);

}  // namespace distopo
