// MPI_Neighbor_*, MPI_Ineighbor_* and MPI_Neighbor_*_init, forwarded to the
// MPI-signature forms (distopo/neighbor/raw.hpp). Non-blocking forms return
// MPICH generalized requests, persistent forms handles of
// persistent_requests.hpp; completion_calls.cpp completes both.
#include "collective_forms.hpp"
#include "distopo/neighbor/raw.hpp"

using distopo::capi::nonblocking;
using distopo::capi::persistent;
using distopo::capi::served;

DISTOPO_CAPI int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return served(
      comm, "MPI_Neighbor_allgather",
      [&] { distopo::raw::neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
      [&] { return PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
}

DISTOPO_CAPI int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                         MPI_Comm comm) {
  return served(
      comm, "MPI_Neighbor_allgatherv",
      [&] {
        distopo::raw::neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
      },
      [&] {
        return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
      });
}

DISTOPO_CAPI int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return served(
      comm, "MPI_Neighbor_alltoall",
      [&] { distopo::raw::neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
      [&] { return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
}

DISTOPO_CAPI int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return served(
      comm, "MPI_Neighbor_alltoallv",
      [&] {
        distopo::raw::neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                         comm);
      },
      [&] {
        return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                       comm);
      });
}

DISTOPO_CAPI int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return served(
      comm, "MPI_Neighbor_alltoallw",
      [&] {
        distopo::raw::neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                         recvtypes, comm);
      },
      [&] {
        return PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                       comm);
      });
}

DISTOPO_CAPI int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      comm, "MPI_Ineighbor_allgather", request,
      [&] {
        distopo::raw::ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
      },
      [&] {
        return PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
      });
}

DISTOPO_CAPI int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                          const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                          MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      comm, "MPI_Ineighbor_allgatherv", request,
      [&] {
        distopo::raw::ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                           request);
      },
      [&] {
        return PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                         request);
      });
}

DISTOPO_CAPI int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      comm, "MPI_Ineighbor_alltoall", request,
      [&] {
        distopo::raw::ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
      },
      [&] {
        return PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
      });
}

DISTOPO_CAPI int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                         MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                         const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                         MPI_Request* request) {
  return nonblocking(
      comm, "MPI_Ineighbor_alltoallv", request,
      [&] {
        distopo::raw::ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                          recvtype, comm, request);
      },
      [&] {
        return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                        comm, request);
      });
}

DISTOPO_CAPI int MPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                         const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                         MPI_Request* request) {
  return nonblocking(
      comm, "MPI_Ineighbor_alltoallw", request,
      [&] {
        distopo::raw::ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                          recvtypes, comm, request);
      },
      [&] {
        return PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                        recvtypes, comm, request);
      });
}

DISTOPO_CAPI int MPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                             MPI_Request* request) {
  return persistent(
      comm, "MPI_Neighbor_allgather_init", request,
      [&] {
        return distopo::raw::neighbor_allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                                     info);
      },
      [&] {
        return PMPI_Neighbor_allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                            request);
      });
}

DISTOPO_CAPI int MPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                              const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                              MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent(
      comm, "MPI_Neighbor_allgatherv_init", request,
      [&] {
        return distopo::raw::neighbor_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                                      recvtype, comm, info);
      },
      [&] {
        return PMPI_Neighbor_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                             info, request);
      });
}

DISTOPO_CAPI int MPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                            MPI_Request* request) {
  return persistent(
      comm, "MPI_Neighbor_alltoall_init", request,
      [&] {
        return distopo::raw::neighbor_alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                                    info);
      },
      [&] {
        return PMPI_Neighbor_alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                           request);
      });
}

DISTOPO_CAPI int MPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                             MPI_Request* request) {
  return persistent(
      comm, "MPI_Neighbor_alltoallv_init", request,
      [&] {
        return distopo::raw::neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                                     rdispls, recvtype, comm, info);
      },
      [&] {
        return PMPI_Neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                            recvtype, comm, info, request);
      });
}

DISTOPO_CAPI int MPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                             MPI_Info info, MPI_Request* request) {
  return persistent(
      comm, "MPI_Neighbor_alltoallw_init", request,
      [&] {
        return distopo::raw::neighbor_alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                                     rdispls, recvtypes, comm, info);
      },
      [&] {
        return PMPI_Neighbor_alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                            recvtypes, comm, info, request);
      });
}
