#pragma once
// Communicators for the sparse exchange on a user communicator: two private
// copies of it (no user attributes, MPI_ERRORS_RETURN; see private_copy),
// made by the first and second use and cached on it (freed with it). User
// messages can never match ours, and a sparse exchange owns the communicator
// it runs on (see sparse_exchange.hpp); consecutive calls alternate between
// the two, as back-to-back exchanges must, without paying for a new copy on
// every call. Only the exchange needs them: constructors that agree with a
// collective run it on the user's communicator, and the neighborhood
// collectives use shared channels (shared_channel.hpp).
#include <mpi.h>

namespace distopo {

struct PrivateChannel {
  MPI_Comm comm;  // owned by the cache; valid while the user communicator lives
};

// Collective over `comm` (every rank must call it the same number of times,
// which holds for calls from collective operations). Duplicates of `comm` get
// channels of their own.
PrivateChannel private_channel(MPI_Comm comm);

}  // namespace distopo
