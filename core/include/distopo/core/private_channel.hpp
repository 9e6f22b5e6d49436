#pragma once
// A channel for distopo's own traffic on a user communicator: a duplicate of
// it, made on first use and cached on it (freed with it), plus the tag the next
// sparse exchange uses. User messages can never match ours, and consecutive
// exchanges alternate tags (see sparse_exchange.hpp), without paying for a
// new duplicate on every call.
#include <mpi.h>

namespace distopo {

struct PrivateChannel {
  MPI_Comm comm;  // owned by the cache; valid while the user communicator lives
  int tag;        // for this round's sparse exchange
};

// Collective over `comm` (every rank must call it the same number of times,
// which holds for calls from collective operations). Duplicates of `comm` get
// channels of their own.
PrivateChannel private_channel(MPI_Comm comm);

}  // namespace distopo
