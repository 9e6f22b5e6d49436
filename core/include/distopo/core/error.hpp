#pragma once
// Errors: distopo::Error carries a standard MPI error class and a message that
// says what was wrong and on which rank. Collective calls agree on errors so
// that every rank throws the same class and nobody waits forever.
#include <mpi.h>

#include <new>
#include <optional>
#include <stdexcept>
#include <string>

namespace distopo {

class Error : public std::runtime_error {
 public:
  Error(int error_class, const std::string& message);
  // One of MPI_ERR_ARG, MPI_ERR_RANK, MPI_ERR_TOPOLOGY, MPI_ERR_COMM, ...
  [[nodiscard]] int error_class() const noexcept { return error_class_; }

 private:
  int error_class_;
};

// Throws Error with the class and text MPI gives for a failed call.
void check_mpi(int rc, const char* call);

// An error seen by one rank before the ranks agreed on it.
struct LocalError {
  int error_class = MPI_SUCCESS;
  std::string message;
};

// Collective: if any rank of `comm` has an error, every rank throws the error of
// the lowest such rank (class and message broadcast from it). One allreduce of
// one int on success.
void agree_on_error(MPI_Comm comm, const std::optional<LocalError>& local);

// How a message about one rank's input begins: "<caller>: rank <rank>: ", so
// the user sees which call and which rank failed.
std::string rank_prefix(const char* caller, int rank);
// The same for the calling process's rank in `comm` (a separate name: MPICH's
// MPI_Comm is an int, so an overload would be ambiguous in meaning).
std::string comm_rank_prefix(const char* caller, MPI_Comm comm);
// A LocalError whose message is rank_prefix(caller, rank) + what.
LocalError rank_error(int error_class, const char* caller, int rank, const std::string& what);

// A LocalError of class MPI_ERR_NO_MEM: this rank could not allocate `what`.
LocalError out_of_memory(const char* caller, int rank, const std::string& what);

// Runs the local part of a collective call (`step` returns its error, if
// any): an allocation failure becomes this rank's error for the agreement
// that follows, rather than an exception that leaves the other ranks waiting.
template <class Step>
std::optional<LocalError> local_step(const char* caller, int rank, const char* what, Step&& step) {
  try {
    return step();
  } catch (const std::bad_alloc&) {
    return out_of_memory(caller, rank, what);
  }
}

// Encoding used when the error flag rides on an allreduce that does other work:
// MPI_MAX over flag(rank) picks the lowest failing rank; 0 means no error.
inline int error_flag(const std::optional<LocalError>& local, int rank, int size) { return local ? size - rank : 0; }

// Second half of an agreement whose flag was reduced elsewhere: if the reduced
// flag names a failing rank, broadcast its error and throw it on every rank.
void throw_agreed_error(MPI_Comm comm, int reduced_flag, const std::optional<LocalError>& local);

}  // namespace distopo
