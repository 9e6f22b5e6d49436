#include "install_topology.hpp"

#include <vector>

#include "distopo/core/error.hpp"
#include "distopo/core/grid.hpp"

namespace distopo::detail {

Comm install_cart(Comm base, CartesianTopology record) {
#if DISTOPO_NATIVE_TOPOLOGY
  if (record.dims.size() <= kNativeCartMaxDims) {
    const std::vector<int> periods = period_flags(record.periods);
    MPI_Comm native = MPI_COMM_NULL;
    // PMPI: once the interposition library is loaded, MPI_ names are ours.
    check_mpi(
        PMPI_Cart_create(base, static_cast<int>(record.dims.size()), record.dims.data(), periods.data(), 0, &native),
        "MPI_Cart_create");
    base = Comm::adopt(native);
  }
#endif
  attach_topology(base, std::move(record));
  return base;
}

Comm install_cart_in_order(MPI_Comm comm, CartesianTopology record, bool member) {
#if DISTOPO_NATIVE_TOPOLOGY
  if (record.dims.size() <= kNativeCartMaxDims) {
    const std::vector<int> periods = period_flags(record.periods);
    MPI_Comm native = MPI_COMM_NULL;
    // Reorder off: MPICH keeps the first grid-size ranks in order, the others get MPI_COMM_NULL.
    check_mpi(
        PMPI_Cart_create(comm, static_cast<int>(record.dims.size()), record.dims.data(), periods.data(), 0, &native),
        "MPI_Cart_create");
    Comm result = Comm::adopt(native);
    if (result.is_null()) return result;
    attach_topology(result, std::move(record));
    return result;
  }
#endif
  Comm base = split_by_rank(comm, member ? comm_rank(comm) : MPI_UNDEFINED);
  if (base.is_null()) return base;
  attach_topology(base, std::move(record));
  return base;
}

}  // namespace distopo::detail
