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

// Throws MPI_ERR_ARG naming `what` if `pointer` is null.
void require_pointer(const void* pointer, const char* what);

}  // namespace distopo::capi
