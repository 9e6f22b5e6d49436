// The MPI-4 large-count neighborhood collectives (MPI_Neighbor_*_c,
// MPI_Ineighbor_*_c, MPI_Neighbor_*_init_c), forwarded to
// distopo/neighbor/raw_large_count.hpp: the same engine as the standard
// forms, so the same pairing of blocks and slots, errors and requests.
#include "collective_forms.hpp"
#include "distopo/neighbor/raw_large_count.hpp"

using distopo::capi::nonblocking;
using distopo::capi::persistent;
using distopo::capi::served;

// --- blocking ----------------------------------------------------------------

DISTOPO_CAPI int MPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                          void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return served(
      comm, "MPI_Neighbor_allgather_c",
      [&] { distopo::raw::neighbor_allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
      [&] { return PMPI_Neighbor_allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
}

DISTOPO_CAPI int MPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                           void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                           MPI_Datatype recvtype, MPI_Comm comm) {
  return served(
      comm, "MPI_Neighbor_allgatherv_c",
      [&] {
        distopo::raw::neighbor_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
      },
      [&] {
        return PMPI_Neighbor_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
      });
}

DISTOPO_CAPI int MPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return served(
      comm, "MPI_Neighbor_alltoall_c",
      [&] { distopo::raw::neighbor_alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
      [&] { return PMPI_Neighbor_alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
}

DISTOPO_CAPI int MPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                          MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                          const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return served(
      comm, "MPI_Neighbor_alltoallv_c",
      [&] {
        distopo::raw::neighbor_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                           recvtype, comm);
      },
      [&] {
        return PMPI_Neighbor_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                         comm);
      });
}

DISTOPO_CAPI int MPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                          const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return served(
      comm, "MPI_Neighbor_alltoallw_c",
      [&] {
        distopo::raw::neighbor_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                           recvtypes, comm);
      },
      [&] {
        return PMPI_Neighbor_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                         recvtypes, comm);
      });
}

// --- non-blocking ------------------------------------------------------------

DISTOPO_CAPI int MPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                           void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                           MPI_Request* request) {
  return nonblocking(
      comm, "MPI_Ineighbor_allgather_c", request,
      [&] {
        distopo::raw::ineighbor_allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
      },
      [&] {
        return PMPI_Ineighbor_allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
      });
}

DISTOPO_CAPI int MPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                            void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      comm, "MPI_Ineighbor_allgatherv_c", request,
      [&] {
        distopo::raw::ineighbor_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                             request);
      },
      [&] {
        return PMPI_Ineighbor_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                           request);
      });
}

DISTOPO_CAPI int MPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                          void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                          MPI_Request* request) {
  return nonblocking(
      comm, "MPI_Ineighbor_alltoall_c", request,
      [&] {
        distopo::raw::ineighbor_alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
      },
      [&] {
        return PMPI_Ineighbor_alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
      });
}

DISTOPO_CAPI int MPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                           MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                           const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                           MPI_Request* request) {
  return nonblocking(
      comm, "MPI_Ineighbor_alltoallv_c", request,
      [&] {
        distopo::raw::ineighbor_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                            recvtype, comm, request);
      },
      [&] {
        return PMPI_Ineighbor_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                          recvtype, comm, request);
      });
}

DISTOPO_CAPI int MPI_Ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                           const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                           MPI_Request* request) {
  return nonblocking(
      comm, "MPI_Ineighbor_alltoallw_c", request,
      [&] {
        distopo::raw::ineighbor_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                            recvtypes, comm, request);
      },
      [&] {
        return PMPI_Ineighbor_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                          recvtypes, comm, request);
      });
}

// --- persistent --------------------------------------------------------------

DISTOPO_CAPI int MPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                               void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                               MPI_Info info, MPI_Request* request) {
  return persistent(
      comm, "MPI_Neighbor_allgather_init_c", request,
      [&] {
        return distopo::raw::neighbor_allgather_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                                       info);
      },
      [&] {
        return PMPI_Neighbor_allgather_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                              request);
      });
}

DISTOPO_CAPI int MPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                                void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                                MPI_Request* request) {
  return persistent(
      comm, "MPI_Neighbor_allgatherv_init_c", request,
      [&] {
        return distopo::raw::neighbor_allgatherv_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                                        recvtype, comm, info);
      },
      [&] {
        return PMPI_Neighbor_allgatherv_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                                               comm, info, request);
      });
}

DISTOPO_CAPI int MPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                              MPI_Info info, MPI_Request* request) {
  return persistent(
      comm, "MPI_Neighbor_alltoall_init_c", request,
      [&] {
        return distopo::raw::neighbor_alltoall_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                                      info);
      },
      [&] {
        return PMPI_Neighbor_alltoall_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                             request);
      });
}

DISTOPO_CAPI int MPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                               MPI_Request* request) {
  return persistent(
      comm, "MPI_Neighbor_alltoallv_init_c", request,
      [&] {
        return distopo::raw::neighbor_alltoallv_init_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                                       rdispls, recvtype, comm, info);
      },
      [&] {
        return PMPI_Neighbor_alltoallv_init_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                              recvtype, comm, info, request);
      });
}

DISTOPO_CAPI int MPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
                                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                               const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                               MPI_Request* request) {
  return persistent(
      comm, "MPI_Neighbor_alltoallw_init_c", request,
      [&] {
        return distopo::raw::neighbor_alltoallw_init_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                                       rdispls, recvtypes, comm, info);
      },
      [&] {
        return PMPI_Neighbor_alltoallw_init_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                              recvtypes, comm, info, request);
      });
}
