#include "message_type.hpp"

#include <cstdint>
#include <vector>

namespace distopo::detail {

int message_type(std::span<const Block> blocks, MPI_Datatype* type) {
  std::vector<MPI_Count> lengths, addresses;
  std::vector<MPI_Datatype> types;
  lengths.reserve(blocks.size());
  addresses.reserve(blocks.size());
  types.reserve(blocks.size());
  for (const Block& b : blocks) {
    lengths.push_back(b.count);
    addresses.push_back(static_cast<MPI_Count>(reinterpret_cast<std::intptr_t>(b.buffer)));
    types.push_back(b.type);
  }
  int rc = PMPI_Type_create_struct_c(static_cast<MPI_Count>(blocks.size()), lengths.data(), addresses.data(),
                                     types.data(), type);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Type_commit(type);
  if (rc != MPI_SUCCESS) PMPI_Type_free(type);
  return rc;
}

}  // namespace distopo::detail
