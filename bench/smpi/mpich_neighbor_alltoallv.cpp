#include "mpich_neighbor_alltoallv.hpp"

#include <cstddef>
#include <stdexcept>

namespace smpi_bench {

void mpich_neighbor_alltoallv(const NeighborLists& lists, const void* sendbuf, std::span<const int> sendcounts,
                              std::span<const int> sdispls, void* recvbuf, std::span<const int> recvcounts,
                              std::span<const int> rdispls, MPI_Comm comm, int tag) {
  std::vector<MPI_Request> requests;
  requests.reserve(lists.destinations.size() + lists.sources.size());
  const auto* send = static_cast<const std::byte*>(sendbuf);
  auto* recv = static_cast<std::byte*>(recvbuf);
  for (std::size_t k = 0; k < lists.destinations.size(); ++k) {
    MPI_Request& request = requests.emplace_back();
    if (MPI_Isend(send + sdispls[k], sendcounts[k], MPI_BYTE, lists.destinations[k], tag, comm, &request) !=
        MPI_SUCCESS)
      throw std::runtime_error("MPI_Isend failed");
  }
  for (std::size_t l = 0; l < lists.sources.size(); ++l) {
    MPI_Request& request = requests.emplace_back();
    if (MPI_Irecv(recv + rdispls[l], recvcounts[l], MPI_BYTE, lists.sources[l], tag, comm, &request) != MPI_SUCCESS)
      throw std::runtime_error("MPI_Irecv failed");
  }
  if (MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Waitall failed");
}

}  // namespace smpi_bench
