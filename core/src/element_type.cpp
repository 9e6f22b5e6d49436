#include "distopo/core/element_type.hpp"

#include <climits>
#include <map>
#include <mutex>
#include <string>

#include "distopo/core/error.hpp"
#include "distopo/core/runtime.hpp"

namespace distopo::detail {

MPI_Datatype contiguous_bytes(std::size_t bytes) {
  if (bytes == 1) return MPI_BYTE;
  if (bytes == 0 || bytes > static_cast<std::size_t>(INT_MAX)) {
    throw Error(MPI_ERR_TYPE, "no MPI datatype for elements of " + std::to_string(bytes) + " bytes");
  }
  static std::mutex mutex;
  static std::map<std::size_t, MPI_Datatype> types;
  std::lock_guard lock(mutex);
  if (types.empty()) {
    // Freed at MPI_Finalize, so MPICH does not report them as leaked.
    at_finalize([] {
      std::lock_guard release_lock(mutex);
      for (auto& [size, type] : types) PMPI_Type_free(&type);
      types.clear();
    });
  }
  auto [it, inserted] = types.try_emplace(bytes, MPI_DATATYPE_NULL);
  if (inserted) {
    check_mpi(PMPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &it->second), "MPI_Type_contiguous");
    check_mpi(PMPI_Type_commit(&it->second), "MPI_Type_commit");
  }
  return it->second;
}

}  // namespace distopo::detail
