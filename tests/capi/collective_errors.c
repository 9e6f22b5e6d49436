/* Errors a neighborhood collective meets while it communicates go through the
 * error handler of the communicator the collective was called on, and with a
 * handler that returns, the call returns the error: in the blocking forms, at
 * the completion of the non-blocking forms (MPI_Wait, MPI_Test, MPI_Waitall
 * and MPI_Waitany with other requests), and at the completion of the
 * persistent forms, which can be started again afterwards. The error here is a
 * truncation: every rank sends two ints per block, rank 0 receives one.
 * MPI_COMM_WORLD keeps MPI_ERRORS_ARE_FATAL throughout, so an error raised
 * there (as MPICH does for errors inside MPI_Waitall) aborts the test. Each
 * case runs on a communicator with MPI_ERRORS_RETURN and on one with a
 * handler that records its calls; the handler is set before the first
 * collective on one and after it on the other (the library's private
 * communicator, made at the first collective, copies the handler of that
 * moment). */
#include <mpi.h>
#include <string.h>

#include "capi_check.h"

static int rank, size;

static int calls;
static int last_class;
static MPI_Comm last_comm;

static void record(MPI_Comm* comm, int* code, ...) {
  ++calls;
  MPI_Error_class(*code, &last_class);
  last_comm = *comm;
}

struct Target {
  MPI_Comm comm;
  int recording; /* `record` is its handler (else MPI_ERRORS_RETURN) */
  const char* name;
};

/* rc must have class `expected` on rank 0 and be MPI_SUCCESS elsewhere, the
 * handler called exactly when an error is returned, with `comm`. */
static void expect_on_rank0(int rc, int expected, const struct Target* t, const char* what) {
  char label[200];
  snprintf(label, sizeof label, "%s (%s)", what, t->name);
  expect_error_class(rc, rank == 0 ? expected : MPI_SUCCESS, label);
  if (t->recording) {
    const int wanted = rank == 0 && expected != MPI_SUCCESS;
    CHECK(calls == wanted, "%s: handler called %d times", label, calls);
    if (calls > 0) {
      CHECK(last_comm == t->comm, "%s: handler called for another communicator", label);
      CHECK_EQ_INT(last_class, expected);
    }
  }
  calls = 0;
}

static void fill(int send[4], int recv[4], int round) {
  for (int slot = 0; slot < 2; ++slot) {
    send[2 * slot] = send[2 * slot + 1] = ring_value(rank, slot, round);
  }
  for (int i = 0; i < 4; ++i) recv[i] = -1;
}

/* Ranks other than 0 received both blocks whole. */
static void check_others(const int recv[4], int round, const char* what) {
  if (rank == 0) return;
  const int got[2] = {recv[0], recv[2]};
  CHECK_RING(got, round, what);
  CHECK(recv[0] == recv[1] && recv[2] == recv[3], "%s: blocks not whole", what);
}

static void blocking(const struct Target* t) {
  int send[4], recv[4];
  const int recvcount = rank == 0 ? 1 : 2;
  fill(send, recv, 1);
  int rc = MPI_Neighbor_alltoall(send, 2, MPI_INT, recv, recvcount, MPI_INT, t->comm);
  expect_on_rank0(rc, MPI_ERR_TRUNCATE, t, "MPI_Neighbor_alltoall");
  check_others(recv, 1, "MPI_Neighbor_alltoall");
  if (rank == 0 && rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    CHECK(strstr(text, "neighbor_alltoall") != NULL && strstr(text, "rank 0") != NULL,
          "message '%s' names neither the operation nor the rank", text);
  }

  const int counts[2] = {recvcount, recvcount}, displs[2] = {0, 2};
  fill(send, recv, 2);
  rc = MPI_Neighbor_allgatherv(send, 2, MPI_INT, recv, counts, displs, MPI_INT, t->comm);
  expect_on_rank0(rc, MPI_ERR_TRUNCATE, t, "MPI_Neighbor_allgatherv");

  const int sendcounts[2] = {2, 2};
  const MPI_Aint byte_displs[2] = {0, 2 * sizeof(int)};
  const MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  fill(send, recv, 3);
  rc = MPI_Neighbor_alltoallw(send, sendcounts, byte_displs, types, recv, counts, byte_displs, types, t->comm);
  expect_on_rank0(rc, MPI_ERR_TRUNCATE, t, "MPI_Neighbor_alltoallw");
  check_others(recv, 3, "MPI_Neighbor_alltoallw");
}

static void nonblocking(const struct Target* t) {
  int send[4], recv[4];
  const int recvcount = rank == 0 ? 1 : 2;
  MPI_Request request;

  fill(send, recv, 4);
  CHECK_EQ_INT(MPI_Ineighbor_alltoall(send, 2, MPI_INT, recv, recvcount, MPI_INT, t->comm, &request), MPI_SUCCESS);
  expect_on_rank0(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE, t, "MPI_Wait");
  CHECK(request == MPI_REQUEST_NULL, "MPI_Wait left the failed request");
  check_others(recv, 4, "MPI_Ineighbor_alltoall + MPI_Wait");

  fill(send, recv, 5);
  MPI_Ineighbor_alltoall(send, 2, MPI_INT, recv, recvcount, MPI_INT, t->comm, &request);
  int done = 0, rc = MPI_SUCCESS;
  while (!done && rc == MPI_SUCCESS) rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  expect_on_rank0(rc, MPI_ERR_TRUNCATE, t, "MPI_Test");
  CHECK(request == MPI_REQUEST_NULL, "MPI_Test left the failed request");

  /* With point-to-point requests: MPI_ERR_IN_STATUS, the cause in the status. */
  fill(send, recv, 6);
  int token = rank, got = -1;
  MPI_Request requests[3];
  MPI_Ineighbor_alltoall(send, 2, MPI_INT, recv, recvcount, MPI_INT, t->comm, &requests[0]);
  MPI_Irecv(&got, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &requests[1]);
  MPI_Isend(&token, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &requests[2]);
  MPI_Status statuses[3];
  rc = MPI_Waitall(3, requests, statuses);
  expect_on_rank0(rc, MPI_ERR_IN_STATUS, t, "MPI_Waitall");
  if (rank == 0 && rc != MPI_SUCCESS) {
    expect_error_class(statuses[0].MPI_ERROR, MPI_ERR_TRUNCATE, "MPI_Waitall: the collective's status");
    CHECK_EQ_INT(statuses[1].MPI_ERROR, MPI_SUCCESS);
    CHECK_EQ_INT(statuses[2].MPI_ERROR, MPI_SUCCESS);
  }
  CHECK(requests[0] == MPI_REQUEST_NULL && requests[1] == MPI_REQUEST_NULL && requests[2] == MPI_REQUEST_NULL,
        "MPI_Waitall left requests");
  CHECK_EQ_INT(got, rank);
  check_others(recv, 6, "MPI_Waitall");

  /* MPI_Waitany returns the failed request's own error. */
  fill(send, recv, 7);
  MPI_Ineighbor_alltoall(send, 2, MPI_INT, recv, recvcount, MPI_INT, t->comm, &requests[0]);
  requests[1] = MPI_REQUEST_NULL;
  int index = -1;
  rc = MPI_Waitany(2, requests, &index, MPI_STATUS_IGNORE);
  expect_on_rank0(rc, MPI_ERR_TRUNCATE, t, "MPI_Waitany");
  CHECK_EQ_INT(index, 0);
  CHECK(requests[0] == MPI_REQUEST_NULL, "MPI_Waitany left the failed request");
}

static void persistent(const struct Target* t) {
  int send[4] = {0, 0, 0, 0}, recv[4] = {-1, -1, -1, -1};
  const int recvcount = rank == 0 ? 1 : 2;
  MPI_Request request;
  CHECK_EQ_INT(MPI_Neighbor_alltoall_init(send, 2, MPI_INT, recv, recvcount, MPI_INT, t->comm, MPI_INFO_NULL, &request),
               MPI_SUCCESS);
  for (int round = 8; round < 11; ++round) {
    fill(send, recv, round);
    CHECK_EQ_INT(MPI_Start(&request), MPI_SUCCESS);
    int rc = MPI_SUCCESS;
    if (round % 2) {
      int done = 0;
      while (!done && rc == MPI_SUCCESS) rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    } else {
      rc = MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    expect_on_rank0(rc, MPI_ERR_TRUNCATE, t, "persistent MPI_Neighbor_alltoall_init");
    check_others(recv, round, "persistent MPI_Neighbor_alltoall_init");
  }
  CHECK_EQ_INT(MPI_Request_free(&request), MPI_SUCCESS);
}

/* An error found while posting (a datatype that was never committed, on rank
 * 0 only) is returned the same way, and rank 0's neighbors do not hang. */
static void posting(const struct Target* t) {
  MPI_Datatype uncommitted;
  MPI_Type_contiguous(1, MPI_INT, &uncommitted);
  const MPI_Datatype type = rank == 0 ? uncommitted : MPI_INT;
  int send[2] = {ring_value(rank, 0, 12), ring_value(rank, 1, 12)}, recv[2] = {-1, -1};
  const int rc = MPI_Neighbor_alltoall(send, 1, type, recv, 1, type, t->comm);
  expect_on_rank0(rc, MPI_ERR_TYPE, t, "MPI_Neighbor_alltoall with an uncommitted datatype");
  MPI_Type_free(&uncommitted);
}

/* The communicator is sound afterwards. */
static void still_works(const struct Target* t) {
  int send[2] = {ring_value(rank, 0, 13), ring_value(rank, 1, 13)}, recv[2] = {-1, -1};
  CHECK_EQ_INT(MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, t->comm), MPI_SUCCESS);
  CHECK_RING(recv, 13, t->name);
  CHECK_EQ_INT(calls, 0);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Errhandler recorder;
  MPI_Comm_create_errhandler(record, &recorder);

  struct Target targets[4] = {{capi_ring(), 0, "MPI_ERRORS_RETURN set first"},
                              {capi_ring(), 1, "recording handler set first"},
                              {capi_ring(), 0, "MPI_ERRORS_RETURN set after a collective"},
                              {capi_ring(), 1, "recording handler set after a collective"}};
  for (int i = 0; i < 4; ++i) {
    if (i >= 2) still_works(&targets[i]);
    MPI_Comm_set_errhandler(targets[i].comm, targets[i].recording ? recorder : MPI_ERRORS_RETURN);
  }
  for (int i = 0; i < 4; ++i) {
    blocking(&targets[i]);
    nonblocking(&targets[i]);
    persistent(&targets[i]);
    posting(&targets[i]);
    still_works(&targets[i]);
  }
  for (int i = 0; i < 4; ++i) MPI_Comm_free(&targets[i].comm);
  MPI_Errhandler_free(&recorder);
  return capi_finish();
}
