#include "error_drain.hpp"

#include <algorithm>
#include <vector>

namespace distopo::detail {

// Best effort: the channel returns errors (MPI_ERRORS_RETURN), and a failure
// here (a truncated receive is the rule) must not hide the error being
// reported.
void drain_rest(const NeighborSequence& s, MPI_Comm channel, int tag, std::size_t posted) {
  const std::size_t received = std::min(posted, s.receives.size());
  const std::size_t sent = posted - received;
  std::vector<MPI_Request> sends(s.sends.size() - sent, MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < sends.size(); ++i) {
    PMPI_Isend(nullptr, 0, MPI_BYTE, s.sends.peer(sent + i), tag, channel, &sends[i]);
  }
  // A receive of nothing consumes the message, whatever its size (truncated).
  for (std::size_t m = received; m < s.receives.size(); ++m) {
    PMPI_Recv(nullptr, 0, MPI_BYTE, s.receives.peer(m), tag, channel, MPI_STATUS_IGNORE);
  }
  for (MPI_Request& request : sends) PMPI_Wait(&request, MPI_STATUS_IGNORE);
}

void drain_and_throw(const NeighborState& state, int tag, const LocalError& error) {
  drain_rest(state.sequence, state.channel.get(), tag, 0);
  throw Error(error.error_class, error.message);
}

}  // namespace distopo::detail
