#include "distopo/core/private_channel.hpp"

#include <memory>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/runtime.hpp"
#include "distopo/core/sparse_exchange.hpp"

namespace distopo {

namespace detail {
struct ChannelCache {
  Comm comm;
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
    owned->comm = duplicate(comm);
    check_mpi(MPI_Comm_set_attr(comm, keyval, owned.get()), "MPI_Comm_set_attr");
    cache = owned.release();
  }
  // Alternate two tag ranges (an exchange uses kExchangeTagStride tags).
  const int tag = kDefaultExchangeTag + kExchangeTagStride * static_cast<int>(cache->rounds++ % 2);
  return {cache->comm.get(), tag};
}

void delete_channel_cache(void* attribute) noexcept { delete static_cast<detail::ChannelCache*>(attribute); }

}  // namespace distopo
