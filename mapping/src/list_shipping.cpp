#include "list_shipping.hpp"

#include <array>
#include <vector>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"

namespace distopo::detail {
namespace {

// One message per array: each is below INT_MAX entries (a degree), their sum
// need not be.
enum Tag { kDegrees, kSources, kSourceWeights, kDestinations, kDestinationWeights };

}  // namespace

DistGraphTopology ship_lists(MPI_Comm channel, DistGraphTopology own, const Placement& placement) {
  const int rank = comm_rank(channel);
  if (placement.lists_to == rank) return own;  // then this process also hosts its own graph node

  const std::array<int, 2> degrees{static_cast<int>(own.sources.size()), static_cast<int>(own.destinations.size())};
  std::vector<MPI_Request> sends;
  const auto send = [&](const void* data, int count, Tag tag) {
    sends.push_back(MPI_REQUEST_NULL);
    check_mpi(MPI_Isend(data, count, MPI_INT, placement.lists_to, tag, channel, &sends.back()), "MPI_Isend");
  };
  sends.reserve(5);
  send(degrees.data(), 2, kDegrees);
  send(own.sources.data(), degrees[0], kSources);
  send(own.destinations.data(), degrees[1], kDestinations);
  if (own.weighted) {
    send(own.source_weights.data(), degrees[0], kSourceWeights);
    send(own.destination_weights.data(), degrees[1], kDestinationWeights);
  }

  DistGraphTopology hosted;
  hosted.weighted = own.weighted;
  const int from = placement.rank;  // graph node v's lists are on rank v
  std::array<int, 2> incoming{};
  const auto receive = [&](std::vector<int>& into, int count, Tag tag) {
    into.resize(static_cast<std::size_t>(count));
    check_mpi(MPI_Recv(into.data(), count, MPI_INT, from, tag, channel, MPI_STATUS_IGNORE), "MPI_Recv");
  };
  check_mpi(MPI_Recv(incoming.data(), 2, MPI_INT, from, kDegrees, channel, MPI_STATUS_IGNORE), "MPI_Recv");
  receive(hosted.sources, incoming[0], kSources);
  receive(hosted.destinations, incoming[1], kDestinations);
  if (hosted.weighted) {
    receive(hosted.source_weights, incoming[0], kSourceWeights);
    receive(hosted.destination_weights, incoming[1], kDestinationWeights);
  }
  check_mpi(MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  return hosted;
}

}  // namespace distopo::detail
