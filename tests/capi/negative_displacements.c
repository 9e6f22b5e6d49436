/* Displacements are relative to the buffer address and may be negative (the
 * standard only asks that every block lie in memory the program owns): a
 * buffer argument pointing past the blocks, and alltoallw with MPI_BOTTOM and
 * absolute addresses, work in MPI_Neighbor_allgatherv, _alltoallv and
 * _alltoallw, blocking, non-blocking and persistent. What is genuinely
 * invalid is still rejected, on the offending rank only and without hanging
 * the others: a negative count, a missing displacement array, a displacement
 * whose address cannot be represented as an MPI_Aint. */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>

#include "capi_check.h"

static int rank, size;

enum Form { BLOCKING, NONBLOCKING, PERSISTENT };
static const char* const form_names[3] = {"blocking", "non-blocking", "persistent"};

/* Completes a non-blocking or persistent call's request (persistent ones are
 * started twice, then freed). */
static void complete(enum Form form, MPI_Request* request, int rc, const char* what) {
  CHECK(rc == MPI_SUCCESS, "%s (%s) failed", what, form_names[form]);
  if (rc != MPI_SUCCESS || form == BLOCKING) return;
  if (form == NONBLOCKING) {
    CHECK_EQ_INT(MPI_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    return;
  }
  for (int i = 0; i < 2; ++i) {
    CHECK_EQ_INT(MPI_Start(request), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  }
  MPI_Request_free(request);
}

/* The receive area: 8 ints, slot 0 expected at [6], slot 1 at [3], the rest untouched. */
static void check_area(const int area[8], int round, enum Form form, const char* what) {
  for (int i = 0; i < 8; ++i) {
    const int expected = i == 6 ? ring_expected(0, round) : i == 3 ? ring_expected(1, round) : -1;
    CHECK(area[i] == expected, "%s (%s): area[%d] = %d, expected %d", what, form_names[form], i, area[i], expected);
  }
}

static void alltoallv(MPI_Comm ring, enum Form form) {
  /* The send blocks at [0] (slot 0) and [3] (slot 1), given from &send[6]. */
  int send[8] = {-7, -7, -7, -7, -7, -7, -7, -7}, recv[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  send[0] = ring_value(rank, 0, 1);
  send[3] = ring_value(rank, 1, 1);
  const int counts[2] = {1, 1}, sdispls[2] = {-6, -3}, rdispls[2] = {-2, -5};
  MPI_Request request;
  int rc;
  /* The receive buffer argument is one past the end of the area. */
  switch (form) {
    case BLOCKING:
      rc = MPI_Neighbor_alltoallv(send + 6, counts, sdispls, MPI_INT, recv + 8, counts, rdispls, MPI_INT, ring);
      break;
    case NONBLOCKING:
      rc = MPI_Ineighbor_alltoallv(send + 6, counts, sdispls, MPI_INT, recv + 8, counts, rdispls, MPI_INT, ring,
                                   &request);
      break;
    default:
      rc = MPI_Neighbor_alltoallv_init(send + 6, counts, sdispls, MPI_INT, recv + 8, counts, rdispls, MPI_INT, ring,
                                       MPI_INFO_NULL, &request);
  }
  complete(form, &request, rc, "alltoallv");
  check_area(recv, 1, form, "alltoallv");
}

static void allgatherv(MPI_Comm ring, enum Form form) {
  /* Every rank sends its rank: the -1 neighbor's lands at [6], the +1
   * neighbor's at [3]. */
  int recv[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  const int counts[2] = {1, 1}, displs[2] = {-2, -5};
  const int mine = rank;
  MPI_Request request;
  int rc;
  switch (form) {
    case BLOCKING:
      rc = MPI_Neighbor_allgatherv(&mine, 1, MPI_INT, recv + 8, counts, displs, MPI_INT, ring);
      break;
    case NONBLOCKING:
      rc = MPI_Ineighbor_allgatherv(&mine, 1, MPI_INT, recv + 8, counts, displs, MPI_INT, ring, &request);
      break;
    default:
      rc = MPI_Neighbor_allgatherv_init(&mine, 1, MPI_INT, recv + 8, counts, displs, MPI_INT, ring, MPI_INFO_NULL,
                                        &request);
  }
  complete(form, &request, rc, "allgatherv");
  const int below = (rank + size - 1) % size, above = (rank + 1) % size;
  for (int i = 0; i < 8; ++i) {
    const int expected = i == 6 ? below : i == 3 ? above : -1;
    CHECK(recv[i] == expected, "allgatherv (%s): area[%d] = %d, expected %d", form_names[form], i, recv[i], expected);
  }
}

static void alltoallw(MPI_Comm ring, enum Form form, int bottom) {
  int send[8] = {-7, -7, -7, -7, -7, -7, -7, -7}, recv[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  send[0] = ring_value(rank, 0, 2);
  send[3] = ring_value(rank, 1, 2);
  const int counts[2] = {1, 1};
  const MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  MPI_Aint sdispls[2], rdispls[2];
  const void* sendbuf;
  void* recvbuf;
  if (bottom) { /* MPI_BOTTOM and absolute addresses */
    MPI_Get_address(&send[0], &sdispls[0]);
    MPI_Get_address(&send[3], &sdispls[1]);
    MPI_Get_address(&recv[6], &rdispls[0]);
    MPI_Get_address(&recv[3], &rdispls[1]);
    sendbuf = MPI_BOTTOM;
    recvbuf = MPI_BOTTOM;
  } else { /* negative byte displacements */
    sdispls[0] = -6 * (MPI_Aint)sizeof(int);
    sdispls[1] = -3 * (MPI_Aint)sizeof(int);
    rdispls[0] = -2 * (MPI_Aint)sizeof(int);
    rdispls[1] = -5 * (MPI_Aint)sizeof(int);
    sendbuf = send + 6;
    recvbuf = recv + 8;
  }
  MPI_Request request;
  int rc;
  switch (form) {
    case BLOCKING:
      rc = MPI_Neighbor_alltoallw(sendbuf, counts, sdispls, types, recvbuf, counts, rdispls, types, ring);
      break;
    case NONBLOCKING:
      rc = MPI_Ineighbor_alltoallw(sendbuf, counts, sdispls, types, recvbuf, counts, rdispls, types, ring, &request);
      break;
    default:
      rc = MPI_Neighbor_alltoallw_init(sendbuf, counts, sdispls, types, recvbuf, counts, rdispls, types, ring,
                                       MPI_INFO_NULL, &request);
  }
  complete(form, &request, rc, bottom ? "alltoallw from MPI_BOTTOM" : "alltoallw");
  check_area(recv, 2, form, bottom ? "alltoallw from MPI_BOTTOM" : "alltoallw");
}

/* Rank 0 passes something invalid, the others a valid call; rank 0 gets
 * `expected`, the others succeed. */
static void rejected(MPI_Comm ring) {
  int send[2] = {1, 2}, recv[2] = {-1, -1};
  const int good_counts[2] = {1, 1}, good_displs[2] = {0, 1};
  const int bad = rank == 0;

  const int negative_counts[2] = {1, -1};
  int rc = MPI_Neighbor_alltoallv(send, good_counts, good_displs, MPI_INT, recv, bad ? negative_counts : good_counts,
                                  good_displs, MPI_INT, ring);
  expect_error_class(rc, bad ? MPI_ERR_COUNT : MPI_SUCCESS, "alltoallv: a negative count");

  rc = MPI_Neighbor_alltoallv(send, good_counts, good_displs, MPI_INT, recv, good_counts, bad ? NULL : good_displs,
                              MPI_INT, ring);
  expect_error_class(rc, bad ? MPI_ERR_ARG : MPI_SUCCESS, "alltoallv: rdispls NULL");

  /* INT_MAX elements of 2^40 bytes each: the block's address overflows. */
  MPI_Datatype huge;
  MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)1 << 40, &huge);
  MPI_Type_commit(&huge);
  const int far_displs[2] = {0, INT_MAX};
  rc = MPI_Neighbor_alltoallv(send, good_counts, good_displs, MPI_INT, recv, good_counts,
                              bad ? far_displs : good_displs, bad ? huge : MPI_INT, ring);
  expect_error_class(rc, bad ? MPI_ERR_ARG : MPI_SUCCESS, "alltoallv: an unrepresentable displacement");
  rc = MPI_Neighbor_allgatherv(send, 1, MPI_INT, recv, good_counts, bad ? far_displs : good_displs,
                               bad ? huge : MPI_INT, ring);
  expect_error_class(rc, bad ? MPI_ERR_ARG : MPI_SUCCESS, "allgatherv: an unrepresentable displacement");
  MPI_Type_free(&huge);

  /* A byte displacement that takes the address past the largest MPI_Aint. */
  const MPI_Aint byte_displs[2] = {0, sizeof(int)}, wrapping[2] = {0, PTRDIFF_MAX};
  const MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  rc = MPI_Neighbor_alltoallw(send, good_counts, byte_displs, types, recv, good_counts, bad ? wrapping : byte_displs,
                              types, ring);
  expect_error_class(rc, bad ? MPI_ERR_ARG : MPI_SUCCESS, "alltoallw: an address past the largest MPI_Aint");

  /* And the communicator is sound afterwards. */
  int values[2] = {ring_value(rank, 0, 3), ring_value(rank, 1, 3)};
  CHECK_EQ_INT(MPI_Neighbor_alltoall(values, 1, MPI_INT, recv, 1, MPI_INT, ring), MPI_SUCCESS);
  CHECK_RING(recv, 3, "alltoall after the rejected calls");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm ring = capi_ring();
  MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
  for (int form = BLOCKING; form <= PERSISTENT; ++form) {
    alltoallv(ring, (enum Form)form);
    allgatherv(ring, (enum Form)form);
    alltoallw(ring, (enum Form)form, 0);
    alltoallw(ring, (enum Form)form, 1);
  }
  rejected(ring);
  MPI_Comm_free(&ring);
  return capi_finish();
}
