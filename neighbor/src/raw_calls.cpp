// The MPI-signature entry points (distopo/neighbor/raw.hpp and
// raw_large_count.hpp): each describes its call by the standard's arguments
// and picks its form.
#include "distopo/neighbor/raw.hpp"
#include "distopo/neighbor/raw_large_count.hpp"
#include "engine.hpp"

namespace distopo::raw {

using detail::AllgatherArgs;
using detail::AllgathervArgs;
using detail::AlltoallArgs;
using detail::AlltoallvArgs;
using detail::AlltoallwArgs;
using detail::LargeAllgathervArgs;
using detail::LargeAlltoallvArgs;
using detail::LargeAlltoallwArgs;
using detail::NeighborCall;

// --- raw.hpp

void neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm) {
  NeighborCall(comm, AllgatherArgs{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}).run();
}

void ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  NeighborCall(comm, AllgatherArgs{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}).start(request);
}

PersistentRequest neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info) {
  return NeighborCall(comm, AllgatherArgs{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}).init();
}

void neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  NeighborCall(comm, AllgathervArgs{sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype}).run();
}

void ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Request* request) {
  NeighborCall(comm, AllgathervArgs{sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype})
      .start(request);
}

PersistentRequest neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                           MPI_Comm comm, MPI_Info) {
  return NeighborCall(comm, AllgathervArgs{sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype}).init();
}

void neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm) {
  NeighborCall(comm, AlltoallArgs{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}).run();
}

void ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  NeighborCall(comm, AlltoallArgs{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}).start(request);
}

PersistentRequest neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info) {
  return NeighborCall(comm, AlltoallArgs{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}).init();
}

void neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm) {
  NeighborCall(comm, AlltoallvArgs{sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype})
      .run();
}

void ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Request* request) {
  NeighborCall(comm, AlltoallvArgs{sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype})
      .start(request);
}

PersistentRequest neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                          MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                          const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info) {
  return NeighborCall(comm,
                      AlltoallvArgs{sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype})
      .init();
}

void neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                        const MPI_Datatype recvtypes[], MPI_Comm comm) {
  NeighborCall(comm, AlltoallwArgs{sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes})
      .run();
}

void ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                         const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                         MPI_Request* request) {
  NeighborCall(comm, AlltoallwArgs{sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes})
      .start(request);
}

PersistentRequest neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                          const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                          MPI_Info) {
  return NeighborCall(comm,
                      AlltoallwArgs{sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes})
      .init();
}

// --- raw_large_count.hpp

void neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  NeighborCall(comm, AllgatherArgs{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}).run();
}

void ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                           MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  NeighborCall(comm, AllgatherArgs{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}).start(request);
}

PersistentRequest neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                            void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                            MPI_Info) {
  return NeighborCall(comm, AllgatherArgs{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}).init();
}

void neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                           const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                           MPI_Comm comm) {
  NeighborCall(comm, LargeAllgathervArgs{sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype}).run();
}

void ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                            const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request) {
  NeighborCall(comm, LargeAllgathervArgs{sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype})
      .start(request);
}

PersistentRequest neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                             void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info) {
  return NeighborCall(comm, LargeAllgathervArgs{sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype})
      .init();
}

void neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  NeighborCall(comm, AlltoallArgs{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}).run();
}

void ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  NeighborCall(comm, AlltoallArgs{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}).start(request);
}

PersistentRequest neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                           void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                           MPI_Info) {
  return NeighborCall(comm, AlltoallArgs{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}).init();
}

void neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm) {
  NeighborCall(comm, LargeAlltoallvArgs{sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype})
      .run();
}

void ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                           MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  NeighborCall(comm, LargeAlltoallvArgs{sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype})
      .start(request);
}

PersistentRequest neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                            MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                            const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info) {
  return NeighborCall(
             comm, LargeAlltoallvArgs{sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype})
      .init();
}

void neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  NeighborCall(comm,
               LargeAlltoallwArgs{sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes})
      .run();
}

void ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                           MPI_Request* request) {
  NeighborCall(comm,
               LargeAlltoallwArgs{sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes})
      .start(request);
}

PersistentRequest neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                            const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                            MPI_Info) {
  return NeighborCall(
             comm, LargeAlltoallwArgs{sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes})
      .init();
}

}  // namespace distopo::raw
