#include "error_reporting.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <string>

#include "distopo/core/topology.hpp"

namespace distopo::capi {
namespace {

// Per error class, a small ring of dynamic codes: the last few messages of a
// class stay readable through MPI_Error_string, and a long-running program
// that keeps failing does not exhaust MPICH's table of codes.
constexpr std::size_t kCodesPerClass = 8;

struct ClassCodes {
  std::array<int, kCodesPerClass> codes{};
  std::size_t used = 0;
  std::size_t next = 0;
};

std::mutex codes_mutex;
std::map<int, ClassCodes> codes_by_class;
// The message behind each of our codes. MPICH 4.0.2 ignores
// MPI_Add_error_string for codes of predefined classes (MPI_Error_string
// decodes them as its own error-stack codes and prints an unrelated message),
// so this library's MPI_Error_string answers for them itself.
std::map<int, std::string> message_of_code;

}  // namespace

int error_code(int error_class, const char* function, const char* message) noexcept {
  try {
    const std::string text = std::string(function) + ": " + message;
    const std::lock_guard lock(codes_mutex);
    ClassCodes& ring = codes_by_class[error_class];
    int code = MPI_SUCCESS;
    if (ring.used < kCodesPerClass) {
      if (PMPI_Add_error_code(error_class, &code) != MPI_SUCCESS) return error_class;
      ring.codes[ring.used++] = code;
      ring.next = ring.used % kCodesPerClass;
    } else {
      code = ring.codes[ring.next];
      ring.next = (ring.next + 1) % kCodesPerClass;
    }
    message_of_code[code] = text;
    return code;
  } catch (...) {
    return error_class;  // the class itself is a valid code, just without our text
  }
}

int raise(MPI_Comm comm, int error_class, const char* function, const char* message) noexcept {
  return raise_code(comm, error_code(error_class, function, message));
}

int raise_code(MPI_Comm comm, int code) noexcept {
  if (code != MPI_SUCCESS) PMPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, code);
  return code;
}

bool topology_of_mpich_only(MPI_Comm comm) noexcept {
  if (comm == MPI_COMM_NULL) return false;
  try {
    if (find_topology(comm) != nullptr) return false;
  } catch (...) {
    return false;  // not a communicator distopo can read: its own error stands
  }
  int kind = MPI_UNDEFINED;
  return PMPI_Topo_test(comm, &kind) == MPI_SUCCESS && kind != MPI_UNDEFINED;
}

void require_pointer(const void* pointer, const char* what) {
  if (pointer == nullptr) throw Error(MPI_ERR_ARG, std::string(what) + " is NULL");
}

}  // namespace distopo::capi

DISTOPO_CAPI int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  if (string != nullptr && resultlen != nullptr) {
    const std::lock_guard lock(distopo::capi::codes_mutex);
    const auto it = distopo::capi::message_of_code.find(errorcode);
    if (it != distopo::capi::message_of_code.end()) {
      const std::size_t length = std::min<std::size_t>(it->second.size(), MPI_MAX_ERROR_STRING - 1);
      std::copy_n(it->second.data(), length, string);
      string[length] = '\0';
      *resultlen = static_cast<int>(length);
      return MPI_SUCCESS;
    }
  }
  return PMPI_Error_string(errorcode, string, resultlen);
}
