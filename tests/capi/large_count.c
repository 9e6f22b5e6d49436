/* The MPI-4 large-count neighborhood collectives (MPI_Neighbor_*_c,
 * MPI_Ineighbor_*_c, MPI_Neighbor_*_init_c: MPI_Count counts, MPI_Aint
 * displacements) reach distopo and pair blocks as the other forms do (at 1 and
 * 2 ranks the ring's two neighbors are one process, where MPICH 4.0.2's own
 * functions swap the blocks). Counts above INT_MAX pass through (with a
 * datatype of size 0, so that no memory is needed); a count whose blocks
 * cannot be addressed (count x extent beyond MPI_Aint) is MPI_ERR_COUNT on that
 * rank alone, and its neighbors complete. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <mpi.h>
#include <stddef.h>
#include <string.h>

#include "capi_check.h"

static int rank, size;

static void expect_distopo_symbol(const char* name, void* address) {
  Dl_info info;
  CHECK(dladdr(address, &info) != 0, "dladdr failed for %s", name);
  CHECK(info.dli_fname != NULL && strstr(info.dli_fname, "libdistopo_mpi") != NULL,
        "%s resolves to %s, not libdistopo_mpi", name, info.dli_fname ? info.dli_fname : "(unknown)");
}
#define EXPECT_DISTOPO(fn) expect_distopo_symbol(#fn, (void*)&fn)

enum Form { BLOCKING, NONBLOCKING, PERSISTENT };
static const char* const form_names[3] = {"blocking", "non-blocking", "persistent"};

/* Completes the request of a non-blocking or persistent call (persistent ones
 * run twice and are freed); returns the first error. */
static int complete(enum Form form, MPI_Request* request, int rc) {
  if (rc != MPI_SUCCESS || form == BLOCKING) return rc;
  if (form == NONBLOCKING) return MPI_Wait(request, MPI_STATUS_IGNORE);
  for (int i = 0; i < 2 && rc == MPI_SUCCESS; ++i) {
    rc = MPI_Start(request);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(request, MPI_STATUS_IGNORE);
  }
  MPI_Request_free(request);
  return rc;
}

/* MPI_Neighbor_alltoall_c in `form`. */
static int alltoall(enum Form form, const void* send, MPI_Count sendcount, MPI_Datatype sendtype, void* recv,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  MPI_Request request;
  int rc;
  switch (form) {
    case BLOCKING:
      return MPI_Neighbor_alltoall_c(send, sendcount, sendtype, recv, recvcount, recvtype, comm);
    case NONBLOCKING:
      rc = MPI_Ineighbor_alltoall_c(send, sendcount, sendtype, recv, recvcount, recvtype, comm, &request);
      break;
    default:
      rc = MPI_Neighbor_alltoall_init_c(send, sendcount, sendtype, recv, recvcount, recvtype, comm, MPI_INFO_NULL,
                                        &request);
  }
  return complete(form, &request, rc);
}

/* MPI_Neighbor_alltoallv_c in `form`. */
static int alltoallv(enum Form form, const void* send, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void* recv, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                     MPI_Datatype recvtype, MPI_Comm comm) {
  MPI_Request request;
  int rc;
  switch (form) {
    case BLOCKING:
      return MPI_Neighbor_alltoallv_c(send, sendcounts, sdispls, sendtype, recv, recvcounts, rdispls, recvtype, comm);
    case NONBLOCKING:
      rc = MPI_Ineighbor_alltoallv_c(send, sendcounts, sdispls, sendtype, recv, recvcounts, rdispls, recvtype, comm,
                                     &request);
      break;
    default:
      rc = MPI_Neighbor_alltoallv_init_c(send, sendcounts, sdispls, sendtype, recv, recvcounts, rdispls, recvtype, comm,
                                         MPI_INFO_NULL, &request);
  }
  return complete(form, &request, rc);
}

static void every_operation(MPI_Comm ring, enum Form form) {
  const char* name = form_names[form];
  const int below = (rank + size - 1) % size, above = (rank + 1) % size;
  const int mine = rank;
  MPI_Request request;
  int rc;

  { /* allgather */
    int gathered[2] = {-1, -1};
    switch (form) {
      case BLOCKING:
        rc = MPI_Neighbor_allgather_c(&mine, 1, MPI_INT, gathered, 1, MPI_INT, ring);
        break;
      case NONBLOCKING:
        rc = MPI_Ineighbor_allgather_c(&mine, 1, MPI_INT, gathered, 1, MPI_INT, ring, &request);
        break;
      default:
        rc = MPI_Neighbor_allgather_init_c(&mine, 1, MPI_INT, gathered, 1, MPI_INT, ring, MPI_INFO_NULL, &request);
    }
    CHECK_EQ_INT(complete(form, &request, rc), MPI_SUCCESS);
    CHECK(gathered[0] == below && gathered[1] == above, "allgather_c (%s): {%d, %d}", name, gathered[0], gathered[1]);
  }
  { /* allgatherv: slot 0 at [2], slot 1 at [0], given from [3] */
    int area[4] = {-1, -1, -1, -1};
    const MPI_Count counts[2] = {1, 1};
    const MPI_Aint displs[2] = {-1, -3};
    switch (form) {
      case BLOCKING:
        rc = MPI_Neighbor_allgatherv_c(&mine, 1, MPI_INT, area + 3, counts, displs, MPI_INT, ring);
        break;
      case NONBLOCKING:
        rc = MPI_Ineighbor_allgatherv_c(&mine, 1, MPI_INT, area + 3, counts, displs, MPI_INT, ring, &request);
        break;
      default:
        rc = MPI_Neighbor_allgatherv_init_c(&mine, 1, MPI_INT, area + 3, counts, displs, MPI_INT, ring, MPI_INFO_NULL,
                                            &request);
    }
    CHECK_EQ_INT(complete(form, &request, rc), MPI_SUCCESS);
    CHECK(area[2] == below && area[0] == above && area[1] == -1 && area[3] == -1, "allgatherv_c (%s): {%d, %d, %d, %d}",
          name, area[0], area[1], area[2], area[3]);
  }
  { /* alltoall */
    int send[2] = {ring_value(rank, 0, 1), ring_value(rank, 1, 1)}, recv[2] = {-1, -1};
    CHECK_EQ_INT(alltoall(form, send, 1, MPI_INT, recv, 1, MPI_INT, ring), MPI_SUCCESS);
    CHECK_RING(recv, 1, "alltoall_c");
  }
  { /* alltoallv: blocks reversed in memory */
    int send[2] = {ring_value(rank, 1, 2), ring_value(rank, 0, 2)}, area[2] = {-1, -1};
    const MPI_Count counts[2] = {1, 1};
    const MPI_Aint displs[2] = {1, 0};
    CHECK_EQ_INT(alltoallv(form, send, counts, displs, MPI_INT, area, counts, displs, MPI_INT, ring), MPI_SUCCESS);
    const int recv[2] = {area[1], area[0]};
    CHECK_RING(recv, 2, "alltoallv_c");
  }
  { /* alltoallw: out-slot 0 (towards -1) sends an int, out-slot 1 a double;
     * in-slot 0 gets the -1 neighbor's out-slot 1 (a double), in-slot 1 the +1
     * neighbor's out-slot 0 (an int). */
    struct Pair {
      int i;
      double d;
    } send[2], recv[2] = {{-1, -1.0}, {-1, -1.0}};
    send[0].i = ring_value(rank, 0, 3);
    send[1].d = 0.5 + ring_value(rank, 1, 3);
    const MPI_Count counts[2] = {1, 1};
    const MPI_Aint pair = (MPI_Aint)sizeof(struct Pair);
    const MPI_Aint sdispls[2] = {offsetof(struct Pair, i), pair + (MPI_Aint)offsetof(struct Pair, d)};
    const MPI_Aint rdispls[2] = {offsetof(struct Pair, d), pair + (MPI_Aint)offsetof(struct Pair, i)};
    const MPI_Datatype stypes[2] = {MPI_INT, MPI_DOUBLE}, rtypes[2] = {MPI_DOUBLE, MPI_INT};
    switch (form) {
      case BLOCKING:
        rc = MPI_Neighbor_alltoallw_c(send, counts, sdispls, stypes, recv, counts, rdispls, rtypes, ring);
        break;
      case NONBLOCKING:
        rc = MPI_Ineighbor_alltoallw_c(send, counts, sdispls, stypes, recv, counts, rdispls, rtypes, ring, &request);
        break;
      default:
        rc = MPI_Neighbor_alltoallw_init_c(send, counts, sdispls, stypes, recv, counts, rdispls, rtypes, ring,
                                           MPI_INFO_NULL, &request);
    }
    CHECK_EQ_INT(complete(form, &request, rc), MPI_SUCCESS);
    CHECK(recv[0].d == 0.5 + ring_expected(0, 3) && recv[1].i == ring_expected(1, 3),
          "alltoallw_c (%s): %g and %d, expected %g and %d", name, recv[0].d, recv[1].i, 0.5 + ring_expected(0, 3),
          ring_expected(1, 3));
  }
}

/* Counts above INT_MAX of a datatype of size 0. */
static void above_int_max(MPI_Comm ring, enum Form form) {
  MPI_Datatype empty;
  MPI_Type_contiguous(0, MPI_INT, &empty);
  MPI_Type_commit(&empty);
  const MPI_Count big = (MPI_Count)INT_MAX + 10;
  char byte = 0;
  expect_error_class(alltoall(form, &byte, big, empty, &byte, big, empty, ring), MPI_SUCCESS,
                     "alltoall_c of INT_MAX + 10 empty elements");
  const MPI_Count counts[2] = {big, (MPI_Count)1 << 40};
  const MPI_Aint displs[2] = {0, 0};
  expect_error_class(alltoallv(form, &byte, counts, displs, empty, &byte, counts, displs, empty, ring), MPI_SUCCESS,
                     "alltoallv_c of 2^40 empty elements");
  MPI_Type_free(&empty);
}

/* Rank 0 asks for blocks that cannot be addressed; the others make a valid
 * call (blocking and non-blocking forms: rank 0 still completes its part). */
static void unaddressable(MPI_Comm ring, enum Form form) {
  int send[2] = {1, 2}, recv[2] = {-1, -1};
  const int bad = rank == 0;
  const MPI_Count huge = (MPI_Count)1 << 62; /* x 4 bytes does not fit in MPI_Aint */
  int rc = alltoall(form, send, 1, MPI_INT, recv, bad ? huge : 1, MPI_INT, ring);
  expect_error_class(rc, bad ? MPI_ERR_COUNT : MPI_SUCCESS, "alltoall_c: 2^62 ints per block");
  const MPI_Count good[2] = {1, 1}, bad_counts[2] = {1, huge};
  const MPI_Aint displs[2] = {0, 1};
  rc = alltoallv(form, send, good, displs, MPI_INT, recv, bad ? bad_counts : good, displs, MPI_INT, ring);
  expect_error_class(rc, bad ? MPI_ERR_COUNT : MPI_SUCCESS, "alltoallv_c: 2^62 ints in one block");
  const MPI_Count negative[2] = {1, -1};
  rc = alltoallv(form, send, good, displs, MPI_INT, recv, bad ? negative : good, displs, MPI_INT, ring);
  expect_error_class(rc, bad ? MPI_ERR_COUNT : MPI_SUCCESS, "alltoallv_c: a negative count");
}

/* A persistent init fails on rank 0 alone and communicates nothing; the
 * others' requests are freed without being started (a start would wait for
 * rank 0's part, which it never sends). */
static void unaddressable_init(MPI_Comm ring) {
  int send[2] = {1, 2}, recv[2] = {-1, -1};
  const int bad = rank == 0;
  const MPI_Count huge = (MPI_Count)1 << 62;
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Neighbor_alltoall_init_c(send, 1, MPI_INT, recv, bad ? huge : 1, MPI_INT, ring, MPI_INFO_NULL, &request);
  expect_error_class(rc, bad ? MPI_ERR_COUNT : MPI_SUCCESS, "alltoall_init_c: 2^62 ints per block");
  if (rc == MPI_SUCCESS) MPI_Request_free(&request);
  const MPI_Count good[2] = {1, 1}, bad_counts[2] = {1, huge};
  const MPI_Aint displs[2] = {0, 1};
  rc = MPI_Neighbor_alltoallv_init_c(send, good, displs, MPI_INT, recv, bad ? bad_counts : good, displs, MPI_INT, ring,
                                     MPI_INFO_NULL, &request);
  expect_error_class(rc, bad ? MPI_ERR_COUNT : MPI_SUCCESS, "alltoallv_init_c: 2^62 ints in one block");
  if (rc == MPI_SUCCESS) MPI_Request_free(&request);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  EXPECT_DISTOPO(MPI_Neighbor_allgather_c);
  EXPECT_DISTOPO(MPI_Neighbor_allgatherv_c);
  EXPECT_DISTOPO(MPI_Neighbor_alltoall_c);
  EXPECT_DISTOPO(MPI_Neighbor_alltoallv_c);
  EXPECT_DISTOPO(MPI_Neighbor_alltoallw_c);
  EXPECT_DISTOPO(MPI_Ineighbor_allgather_c);
  EXPECT_DISTOPO(MPI_Ineighbor_allgatherv_c);
  EXPECT_DISTOPO(MPI_Ineighbor_alltoall_c);
  EXPECT_DISTOPO(MPI_Ineighbor_alltoallv_c);
  EXPECT_DISTOPO(MPI_Ineighbor_alltoallw_c);
  EXPECT_DISTOPO(MPI_Neighbor_allgather_init_c);
  EXPECT_DISTOPO(MPI_Neighbor_allgatherv_init_c);
  EXPECT_DISTOPO(MPI_Neighbor_alltoall_init_c);
  EXPECT_DISTOPO(MPI_Neighbor_alltoallv_init_c);
  EXPECT_DISTOPO(MPI_Neighbor_alltoallw_init_c);

  MPI_Comm ring = capi_ring();
  MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
  for (int form = BLOCKING; form <= PERSISTENT; ++form) {
    every_operation(ring, (enum Form)form);
    above_int_max(ring, (enum Form)form);
    if (form != PERSISTENT) unaddressable(ring, (enum Form)form);
  }
  unaddressable_init(ring);
  MPI_Comm_free(&ring);
  return capi_finish();
}
