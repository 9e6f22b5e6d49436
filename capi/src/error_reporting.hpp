#pragma once
// How an exported MPI_* function reports a distopo::Error: as an MPI error
// code of the standard class whose MPI_Error_string is distopo's message,
// raised through the communicator's error handler (MPI_ERRORS_ARE_FATAL by
// default; with MPI_ERRORS_RETURN the code is returned).
#include <mpi.h>

#include <exception>
#include <new>
#include <utility>

#include "distopo/core/error.hpp"

// Exported with default visibility; everything else in the library is hidden.
#define DISTOPO_CAPI extern "C" __attribute__((visibility("default")))

namespace distopo::capi {

// A code of `error_class` whose string is "<function>: <message>". Codes are
// recycled per class (a few per class), so the string of an old code may be
// replaced by a newer error's message; the class never changes.
int error_code(int error_class, const char* function, const char* message) noexcept;

// Raises the error on `comm` (MPI_COMM_WORLD when null, as MPICH does for
// calls without a communicator) and returns the code for the caller to return.
int raise(MPI_Comm comm, int error_class, const char* function, const char* message) noexcept;

// Runs `body`; maps a thrown distopo::Error, std::bad_alloc or anything else to
// an error code (error_code), not raised yet: MPI_SUCCESS if nothing was thrown.
template <class Body>
int caught(const char* function, Body&& body) noexcept {
  try {
    body();
    return MPI_SUCCESS;
  } catch (const Error& error) {
    return error_code(error.error_class(), function, error.what());
  } catch (const std::bad_alloc&) {
    return error_code(MPI_ERR_NO_MEM, function, "out of memory");
  } catch (const std::exception& error) {
    return error_code(MPI_ERR_INTERN, function, error.what());
  } catch (...) {
    return error_code(MPI_ERR_INTERN, function, "unknown internal error");
  }
}

// Raises `code` (unless MPI_SUCCESS) on `comm`, MPI_COMM_WORLD when null, and
// returns it.
int raise_code(MPI_Comm comm, int code) noexcept;

// caught(), then the error raised on `comm`.
template <class Body>
int guarded(MPI_Comm comm, const char* function, Body&& body) noexcept {
  return raise_code(comm, caught(function, std::forward<Body>(body)));
}

// Does `comm` carry a process topology that MPICH made without distopo? Such
// communicators exist: MPICH's mpi_f08 bindings, tools and libraries call the
// constructors by their PMPI_ names, which distopo does not see. Local.
bool topology_of_mpich_only(MPI_Comm comm) noexcept;

// guarded(), except on a communicator whose topology MPICH made without
// distopo: distopo finds no topology there (MPI_ERR_TOPOLOGY) while the
// communicator is valid, so `mpich` (the PMPI_ call) answers instead. The
// check runs only on that error path, so distopo's own communicators pay
// nothing for it.
template <class Body, class Mpich>
int served(MPI_Comm comm, const char* function, Body&& body, Mpich&& mpich) noexcept {
  bool mpich_answers = false;
  const int code = caught(function, [&] {
    try {
      body();
    } catch (const Error& error) {
      if (error.error_class() != MPI_ERR_TOPOLOGY || !topology_of_mpich_only(comm)) throw;
      mpich_answers = true;
    }
  });
  if (mpich_answers) return mpich();
  return raise_code(comm, code);
}

// Throws MPI_ERR_ARG naming `what` if `pointer` is null.
void require_pointer(const void* pointer, const char* what);

}  // namespace distopo::capi
