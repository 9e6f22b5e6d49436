#include "distopo/core/private_channel.hpp"

#include <array>
#include <memory>

#include "distopo/core/comm.hpp"
#include "distopo/core/comm_cache.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/runtime.hpp"

namespace distopo {

namespace {

struct ChannelCache {
  std::array<Comm, 2> comms;
  unsigned rounds = 0;
};

// Not copied by MPI_Comm_dup: a duplicate gets channels of its own.
constinit const RuntimeKeyval channel_keyval{MPI_COMM_NULL_COPY_FN, detail::delete_cached<ChannelCache>};

}  // namespace

PrivateChannel private_channel(MPI_Comm comm) {
  ChannelCache& cache =
      detail::cached_on<ChannelCache>(comm, channel_keyval, [] { return std::make_unique<ChannelCache>(); });
  // The second copy is made by the second call, not with the first: a
  // program that creates one topology pays for one copy (overlapping two
  // copies does not hide the cost of the second;
  // docs/design/sparse-exchange.md).
  Comm& channel = cache.comms[cache.rounds % 2];
  if (!channel) channel = private_copy(comm);
  ++cache.rounds;
  return {channel.get()};
}

}  // namespace distopo
