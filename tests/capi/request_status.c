/* MPI_Request_get_status on neighborhood collectives' requests: a loop that
 * polls it until the flag is set terminates (MPICH's own MPI_Request_get_status
 * never calls a generalized request's poll function, so a non-blocking
 * collective never completes there), reports an empty status, and leaves the
 * request for the completion call that frees (non-blocking) or inactivates
 * (persistent) it. Each poll loop gives up after a deadline, so a request
 * that never completes fails the test instead of hanging it. */
#include <mpi.h>

#include "capi_check.h"

static const double kDeadline = 10.0; /* seconds */

/* Polls until complete or the deadline passes; returns the flag. */
static int poll_status(MPI_Request request, MPI_Status* status, const char* what) {
  const double start = MPI_Wtime();
  int flag = 0;
  while (!flag && MPI_Wtime() - start < kDeadline) {
    const int rc = MPI_Request_get_status(request, &flag, status);
    CHECK_EQ_INT(rc, MPI_SUCCESS);
    if (rc != MPI_SUCCESS) break;
  }
  CHECK(flag, "%s: MPI_Request_get_status did not report completion within %g s", what, kDeadline);
  return flag;
}

static void check_empty(const MPI_Status* status, const char* what) {
  int count = -1, cancelled = 1;
  MPI_Get_count(status, MPI_BYTE, &count);
  MPI_Test_cancelled(status, &cancelled);
  CHECK(status->MPI_SOURCE == MPI_ANY_SOURCE && status->MPI_TAG == MPI_ANY_TAG && count == 0 && !cancelled,
        "%s: status not empty (source %d, tag %d, count %d, cancelled %d)", what, status->MPI_SOURCE, status->MPI_TAG,
        count, cancelled);
}

static void nonblocking(MPI_Comm ring, int rank) {
  for (int round = 0; round < 3; ++round) {
    int send[2] = {ring_value(rank, 0, round), ring_value(rank, 1, round)}, recv[2] = {-1, -1};
    MPI_Request request = MPI_REQUEST_NULL;
    CHECK_EQ_INT(MPI_Ineighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, ring, &request), MPI_SUCCESS);
    MPI_Status status;
    const int flag = poll_status(request, &status, "MPI_Ineighbor_alltoall");
    if (flag) {
      check_empty(&status, "MPI_Ineighbor_alltoall");
      CHECK_RING(recv, round, "MPI_Ineighbor_alltoall after MPI_Request_get_status");
      /* Still a request: asking again gives the same answer. */
      int again = 0;
      CHECK_EQ_INT(MPI_Request_get_status(request, &again, MPI_STATUS_IGNORE), MPI_SUCCESS);
      CHECK_EQ_INT(again, 1);
      CHECK(request != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
    }
    /* Completed by MPI_Wait in even rounds, by MPI_Test in odd ones. */
    if (round % 2 == 0) {
      CHECK_EQ_INT(MPI_Wait(&request, &status), MPI_SUCCESS);
    } else {
      int done = 0;
      while (!done) CHECK_EQ_INT(MPI_Test(&request, &done, &status), MPI_SUCCESS);
    }
    CHECK(request == MPI_REQUEST_NULL, "the completion call did not free the request");
    CHECK_RING(recv, round, "MPI_Ineighbor_alltoall");
  }
  /* Several outstanding at once, polled in reverse order of their start. */
  int send[2] = {ring_value(rank, 0, 7), ring_value(rank, 1, 7)}, recv[3][2];
  int mine = rank, gathered[2] = {-1, -1};
  MPI_Request requests[3];
  MPI_Ineighbor_alltoall(send, 1, MPI_INT, recv[0], 1, MPI_INT, ring, &requests[0]);
  MPI_Ineighbor_allgather(&mine, 1, MPI_INT, gathered, 1, MPI_INT, ring, &requests[1]);
  MPI_Ineighbor_alltoall(send, 1, MPI_INT, recv[2], 1, MPI_INT, ring, &requests[2]);
  for (int i = 2; i >= 0; --i) poll_status(requests[i], MPI_STATUS_IGNORE, "outstanding request");
  MPI_Status statuses[3];
  CHECK_EQ_INT(MPI_Waitall(3, requests, statuses), MPI_SUCCESS);
  CHECK_RING(recv[0], 7, "first of three outstanding");
  CHECK_RING(recv[2], 7, "third of three outstanding");
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(gathered[0] == (rank + size - 1) % size && gathered[1] == (rank + 1) % size, "allgather got {%d, %d}",
        gathered[0], gathered[1]);
}

static void persistent(MPI_Comm ring, int rank) {
  int send[2] = {0, 0}, recv[2] = {-1, -1};
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK_EQ_INT(MPI_Neighbor_alltoall_init(send, 1, MPI_INT, recv, 1, MPI_INT, ring, MPI_INFO_NULL, &request),
               MPI_SUCCESS);
  MPI_Status status;
  int flag = 0;
  /* Never started: inactive, so complete with an empty status. */
  CHECK_EQ_INT(MPI_Request_get_status(request, &flag, &status), MPI_SUCCESS);
  CHECK_EQ_INT(flag, 1);
  check_empty(&status, "inactive persistent request");
  for (int round = 0; round < 4; ++round) {
    send[0] = ring_value(rank, 0, round);
    send[1] = ring_value(rank, 1, round);
    recv[0] = recv[1] = -1;
    CHECK_EQ_INT(MPI_Start(&request), MPI_SUCCESS);
    if (poll_status(request, &status, "persistent MPI_Neighbor_alltoall_init")) {
      check_empty(&status, "persistent MPI_Neighbor_alltoall_init");
      CHECK_RING(recv, round, "persistent request after MPI_Request_get_status");
    }
    if (round % 2 == 0) {
      CHECK_EQ_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    } else {
      int done = 0;
      while (!done) CHECK_EQ_INT(MPI_Test(&request, &done, MPI_STATUS_IGNORE), MPI_SUCCESS);
    }
    CHECK(request != MPI_REQUEST_NULL, "completing a persistent request freed it");
    CHECK_RING(recv, round, "persistent MPI_Neighbor_alltoall_init");
  }
  CHECK_EQ_INT(MPI_Request_free(&request), MPI_SUCCESS);
  CHECK(request == MPI_REQUEST_NULL, "MPI_Request_free did not null the handle");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm ring = capi_ring();
  nonblocking(ring, rank);
  persistent(ring, rank);
  {
    int flag = 0;
    CHECK_EQ_INT(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_EQ_INT(flag, 1);
  }
  MPI_Comm_free(&ring);
  return capi_finish();
}
