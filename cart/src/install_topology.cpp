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
    check_mpi(PMPI_Cart_create(base, static_cast<int>(record.dims.size()), record.dims.data(), periods.data(), 0,
                               &native),
              "MPI_Cart_create");
    base = Comm::adopt(native);
  }
#endif
  attach_topology(base, std::move(record));
  return base;
}

}  // namespace distopo::detail
