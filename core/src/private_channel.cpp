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
}  // namespace detail

PrivateChannel private_channel(MPI_Comm comm) {
  const int keyval = channel_keyval();
  void* attribute = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, keyval, &attribute, &found), "MPI_Comm_get_attr");
  auto* cache = static_cast<detail::ChannelCache*>(attribute);
  if (!found) {
    auto owned = std::make_unique<detail::ChannelCache>();
    check_mpi(MPI_Comm_set_attr(comm, keyval, owned.get()), "MPI_Comm_set_attr");
    cache = owned.release();
  }
  // The second duplicate is made by the second call, not with the first: a
  // program that creates one topology pays for one duplicate (two overlapped
  // MPI_Comm_idup cost twice one MPI_Comm_dup here: 584 vs 268 us at P=8).
  Comm& channel = cache->comms[cache->rounds % 2];
  if (!channel) channel = duplicate(comm);
  ++cache->rounds;
  return {channel.get()};
}

void delete_channel_cache(void* attribute) noexcept { delete static_cast<detail::ChannelCache*>(attribute); }

}  // namespace distopo
