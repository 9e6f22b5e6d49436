#include "error_drain.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace distopo::detail {

void drain_and_throw(const NeighborState& state, int tag, const LocalError& error) {
  const NeighborSequence& s = state.sequence;
  MPI_Comm channel = state.channel.get();
  std::vector<MPI_Request> sends(s.send_order.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < s.send_order.size(); ++i) {
    PMPI_Isend(nullptr, 0, MPI_BYTE, s.destinations[static_cast<std::size_t>(s.send_order[i])], tag, channel,
               &sends[i]);
  }
  std::vector<char> scratch;
  for (int slot : s.recv_order) {
    MPI_Message message = MPI_MESSAGE_NULL;
    MPI_Status status;
    PMPI_Mprobe(s.sources[static_cast<std::size_t>(slot)], tag, channel, &message, &status);
    int bytes = 0;
    PMPI_Get_count(&status, MPI_BYTE, &bytes);
    scratch.resize(static_cast<std::size_t>(std::max(bytes, 0)));
    PMPI_Mrecv(scratch.data(), bytes, MPI_BYTE, &message, MPI_STATUS_IGNORE);
  }
  PMPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
  throw Error(error.error_class, error.message);
}

}  // namespace distopo::detail
