#include "distopo/core/private_channel.hpp"

#include <array>
#include <memory>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/runtime.hpp"

namespace distopo {

namespace detail {
struct ChannelCache {
  std::array<Comm, 2> comms;
  unsigned rounds = 0;
};

namespace {
// Both duplicates in flight at once: about the cost of one.
std::array<Comm, 2> duplicate_twice(MPI_Comm comm) {
  std::array<MPI_Comm, 2> copies{MPI_COMM_NULL, MPI_COMM_NULL};
  std::array<MPI_Request, 2> requests{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  for (std::size_t i = 0; i < 2; ++i) check_mpi(PMPI_Comm_idup(comm, &copies[i], &requests[i]), "MPI_Comm_idup");
  check_mpi(PMPI_Waitall(2, requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  return {Comm::adopt(copies[0]), Comm::adopt(copies[1])};
}
}  // namespace
}  // namespace detail

PrivateChannel private_channel(MPI_Comm comm) {
  const int keyval = channel_keyval();
  void* attribute = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, keyval, &attribute, &found), "MPI_Comm_get_attr");
  auto* cache = static_cast<detail::ChannelCache*>(attribute);
  if (!found) {
    auto owned = std::make_unique<detail::ChannelCache>();
    owned->comms = detail::duplicate_twice(comm);
    check_mpi(MPI_Comm_set_attr(comm, keyval, owned.get()), "MPI_Comm_set_attr");
    cache = owned.release();
  }
  return {cache->comms[cache->rounds++ % 2].get()};
}

void delete_channel_cache(void* attribute) noexcept { delete static_cast<detail::ChannelCache*>(attribute); }

}  // namespace distopo
