#include "distopo/core/private_channel.hpp"

#include <array>
#include <memory>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/runtime.hpp"

namespace distopo {

namespace {

struct ChannelCache {
  std::array<Comm, 2> comms;
  unsigned rounds = 0;
};

int delete_cache(MPI_Comm, int, void* attribute, void*) {
  delete static_cast<ChannelCache*>(attribute);
  return MPI_SUCCESS;
}

// Not copied by MPI_Comm_dup: a duplicate gets channels of its own.
constinit const RuntimeKeyval channel_keyval{MPI_COMM_NULL_COPY_FN, delete_cache};

}  // namespace

PrivateChannel private_channel(MPI_Comm comm) {
  const int keyval = channel_keyval.get();
  void* attribute = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, keyval, &attribute, &found), "MPI_Comm_get_attr");
  auto* cache = static_cast<ChannelCache*>(attribute);
  if (!found) {
    auto owned = std::make_unique<ChannelCache>();
    check_mpi(MPI_Comm_set_attr(comm, keyval, owned.get()), "MPI_Comm_set_attr");
    cache = owned.release();
  }
  // The second copy is made by the second call, not with the first: a
  // program that creates one topology pays for one copy (overlapping two
  // copies does not hide the cost of the second;
  // docs/design/sparse-exchange.md).
  Comm& channel = cache->comms[cache->rounds % 2];
  if (!channel) channel = private_copy(comm);
  ++cache->rounds;
  return {channel.get()};
}

}  // namespace distopo
