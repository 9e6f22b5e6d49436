/* What neighborhood collectives' requests keep doing through the C API:
 *  - a duplicate made by MPI_Comm_idup (and MPI_Comm_dup) of a topology
 *    communicator runs them, also while one is outstanding on the original;
 *  - MPI_Waitall, _Waitany, _Waitsome, _Testall, _Testany and _Testsome
 *    complete arrays that mix non-blocking and persistent collectives with
 *    point-to-point requests, inactive ones and MPI_REQUEST_NULL;
 *  - the persistent life cycle: MPI_Test and MPI_Wait on a request never
 *    started return at once (flag = 1, empty status), MPI_Startall starts
 *    collectives with point-to-point requests, a request completes and starts
 *    again, starting an active one is MPI_ERR_REQUEST on the communicator's
 *    handler, MPI_Request_free frees an inactive one. */
#include <mpi.h>

#include "capi_check.h"

static int rank, size;

static void idup(void) {
  MPI_Comm ring = capi_ring();
  int send[2] = {ring_value(rank, 0, 1), ring_value(rank, 1, 1)}, recv[2] = {-1, -1};
  int early[2] = {-1, -1};
  MPI_Request outstanding, dup_request;
  /* Outstanding on the original while the duplicate is made. */
  MPI_Ineighbor_alltoall(send, 1, MPI_INT, early, 1, MPI_INT, ring, &outstanding);
  MPI_Comm copy, second;
  CHECK_EQ_INT(MPI_Comm_idup(ring, &copy, &dup_request), MPI_SUCCESS);
  CHECK_EQ_INT(MPI_Wait(&dup_request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  CHECK_EQ_INT(MPI_Wait(&outstanding, MPI_STATUS_IGNORE), MPI_SUCCESS);
  CHECK_RING(early, 1, "outstanding during MPI_Comm_idup");
  int kind = MPI_UNDEFINED;
  MPI_Topo_test(copy, &kind);
  CHECK_EQ_INT(kind, MPI_CART);

  CHECK_EQ_INT(MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, copy), MPI_SUCCESS);
  CHECK_RING(recv, 1, "blocking on the idup'ed communicator");
  recv[0] = recv[1] = -1;
  MPI_Request request;
  CHECK_EQ_INT(MPI_Ineighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, copy, &request), MPI_SUCCESS);
  CHECK_EQ_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  CHECK_RING(recv, 1, "non-blocking on the idup'ed communicator");
  recv[0] = recv[1] = -1;
  CHECK_EQ_INT(MPI_Neighbor_alltoall_init(send, 1, MPI_INT, recv, 1, MPI_INT, copy, MPI_INFO_NULL, &request),
               MPI_SUCCESS);
  MPI_Start(&request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Request_free(&request);
  CHECK_RING(recv, 1, "persistent on the idup'ed communicator");

  /* A duplicate of the duplicate, by MPI_Comm_dup. */
  MPI_Comm_dup(copy, &second);
  recv[0] = recv[1] = -1;
  CHECK_EQ_INT(MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, second), MPI_SUCCESS);
  CHECK_RING(recv, 1, "blocking on a dup of the idup'ed communicator");
  MPI_Comm_free(&second);
  MPI_Comm_free(&copy);
  MPI_Comm_free(&ring);
}

/* An array of 8: [0] non-blocking collective, [1] receive from self, [2]
 * started persistent collective, [3] MPI_REQUEST_NULL, [4] send to self, [5]
 * never-started persistent collective, [6] non-blocking collective, [7]
 * started persistent point-to-point receive from self. */
struct Mix {
  MPI_Comm ring;
  int send[2], recv0[2], recv2[2], recv5[2], recv6[2];
  int token, got, got7;
  MPI_Request persistent, idle, receive7;
  MPI_Request requests[8];
};

static void mix_init(struct Mix* m, MPI_Comm ring) {
  m->ring = ring;
  MPI_Neighbor_alltoall_init(m->send, 1, MPI_INT, m->recv2, 1, MPI_INT, ring, MPI_INFO_NULL, &m->persistent);
  MPI_Neighbor_alltoall_init(m->send, 1, MPI_INT, m->recv5, 1, MPI_INT, ring, MPI_INFO_NULL, &m->idle);
  MPI_Recv_init(&m->got7, 1, MPI_INT, rank, 4, MPI_COMM_WORLD, &m->receive7);
}

static void mix_start(struct Mix* m, int round) {
  m->send[0] = ring_value(rank, 0, round);
  m->send[1] = ring_value(rank, 1, round);
  for (int i = 0; i < 2; ++i) m->recv0[i] = m->recv2[i] = m->recv5[i] = m->recv6[i] = -1;
  m->token = 100 + round;
  m->got = m->got7 = -1;
  MPI_Request* r = m->requests;
  MPI_Ineighbor_alltoall(m->send, 1, MPI_INT, m->recv0, 1, MPI_INT, m->ring, &r[0]);
  MPI_Irecv(&m->got, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &r[1]);
  r[2] = m->persistent;
  r[3] = MPI_REQUEST_NULL;
  MPI_Isend(&m->token, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &r[4]);
  r[5] = m->idle;
  MPI_Ineighbor_alltoall(m->send, 1, MPI_INT, m->recv6, 1, MPI_INT, m->ring, &r[6]);
  r[7] = m->receive7;
  MPI_Request started[2] = {r[2], r[7]};
  CHECK_EQ_INT(MPI_Startall(2, started), MPI_SUCCESS);
  MPI_Send(&m->token, 1, MPI_INT, rank, 4, MPI_COMM_WORLD); /* small: buffered, returns */
}

static void mix_check(const struct Mix* m, int round, const char* what) {
  CHECK_RING(m->recv0, round, what);
  CHECK_RING(m->recv2, round, what);
  CHECK_RING(m->recv6, round, what);
  CHECK(m->recv5[0] == -1 && m->recv5[1] == -1, "%s: a request never started wrote its buffer", what);
  CHECK(m->got == 100 + round && m->got7 == 100 + round, "%s: point-to-point got %d and %d", what, m->got, m->got7);
  const MPI_Request* r = m->requests;
  CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL && r[4] == MPI_REQUEST_NULL && r[6] == MPI_REQUEST_NULL,
        "%s: completed non-persistent requests not freed", what);
  CHECK(r[2] == m->persistent && r[5] == m->idle && r[7] == m->receive7, "%s: persistent handles changed", what);
}

static void mixed_arrays(void) {
  MPI_Comm ring = capi_ring();
  struct Mix m = {0};
  mix_init(&m, ring);
  MPI_Status statuses[8];
  int round = 0;

  mix_start(&m, ++round);
  CHECK_EQ_INT(MPI_Waitall(8, m.requests, statuses), MPI_SUCCESS);
  mix_check(&m, round, "MPI_Waitall");

  mix_start(&m, ++round);
  int flag = 0;
  while (!flag) CHECK_EQ_INT(MPI_Testall(8, m.requests, &flag, statuses), MPI_SUCCESS);
  mix_check(&m, round, "MPI_Testall");

  /* Waitany / Testany: every active request exactly once, then MPI_UNDEFINED. */
  for (int testing = 0; testing < 2; ++testing) {
    mix_start(&m, ++round);
    int seen[8] = {0};
    for (;;) {
      int index = -2;
      if (testing) {
        flag = 0;
        CHECK_EQ_INT(MPI_Testany(8, m.requests, &index, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
        if (!flag) continue;
      } else {
        CHECK_EQ_INT(MPI_Waitany(8, m.requests, &index, MPI_STATUS_IGNORE), MPI_SUCCESS);
      }
      if (index == MPI_UNDEFINED) break;
      CHECK(index >= 0 && index < 8, "index %d", index);
      if (index < 0 || index >= 8) break;
      ++seen[index];
    }
    const int expected[8] = {1, 1, 1, 0, 1, 0, 1, 1};
    for (int i = 0; i < 8; ++i) {
      CHECK(seen[i] == expected[i], "%s: request %d completed %d times", testing ? "MPI_Testany" : "MPI_Waitany", i,
            seen[i]);
    }
    mix_check(&m, round, testing ? "MPI_Testany" : "MPI_Waitany");
  }

  /* Waitsome / Testsome: likewise, in batches. */
  for (int testing = 0; testing < 2; ++testing) {
    mix_start(&m, ++round);
    int seen[8] = {0};
    for (;;) {
      int count = -2, indices[8];
      if (testing) {
        CHECK_EQ_INT(MPI_Testsome(8, m.requests, &count, indices, statuses), MPI_SUCCESS);
      } else {
        CHECK_EQ_INT(MPI_Waitsome(8, m.requests, &count, indices, statuses), MPI_SUCCESS);
      }
      if (count == MPI_UNDEFINED) break;
      CHECK(count >= 0 && count <= 8, "outcount %d", count);
      if (count < 0 || count > 8) break;
      for (int k = 0; k < count; ++k) ++seen[indices[k]];
    }
    const int expected[8] = {1, 1, 1, 0, 1, 0, 1, 1};
    for (int i = 0; i < 8; ++i) {
      CHECK(seen[i] == expected[i], "%s: request %d completed %d times", testing ? "MPI_Testsome" : "MPI_Waitsome", i,
            seen[i]);
    }
    mix_check(&m, round, testing ? "MPI_Testsome" : "MPI_Waitsome");
  }

  MPI_Request_free(&m.persistent);
  MPI_Request_free(&m.idle);
  MPI_Request_free(&m.receive7);
  CHECK(m.persistent == MPI_REQUEST_NULL && m.idle == MPI_REQUEST_NULL, "MPI_Request_free did not null handles");
  MPI_Comm_free(&ring);
}

static void persistent_life_cycle(void) {
  MPI_Comm ring = capi_ring();
  MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
  int send[2] = {0, 0}, recv[2] = {-1, -1};
  MPI_Request request;
  CHECK_EQ_INT(MPI_Neighbor_alltoall_init(send, 1, MPI_INT, recv, 1, MPI_INT, ring, MPI_INFO_NULL, &request),
               MPI_SUCCESS);
  MPI_Status status;
  status.MPI_SOURCE = status.MPI_TAG = 12345;
  int flag = 0;
  CHECK_EQ_INT(MPI_Test(&request, &flag, &status), MPI_SUCCESS);
  CHECK_EQ_INT(flag, 1);
  CHECK(status.MPI_SOURCE == MPI_ANY_SOURCE && status.MPI_TAG == MPI_ANY_TAG, "MPI_Test: status not empty");
  CHECK_EQ_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  CHECK(recv[0] == -1 && recv[1] == -1, "a request never started wrote its buffer");
  for (int round = 1; round <= 3; ++round) {
    send[0] = ring_value(rank, 0, round);
    send[1] = ring_value(rank, 1, round);
    CHECK_EQ_INT(MPI_Start(&request), MPI_SUCCESS);
    expect_error_class(MPI_Start(&request), MPI_ERR_REQUEST, "MPI_Start on an active request");
    CHECK_EQ_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RING(recv, round, "persistent round");
    flag = 0;
    CHECK_EQ_INT(MPI_Test(&request, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_EQ_INT(flag, 1);
  }
  CHECK_EQ_INT(MPI_Request_free(&request), MPI_SUCCESS);
  CHECK(request == MPI_REQUEST_NULL, "MPI_Request_free did not null the handle");
  MPI_Comm_free(&ring);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  idup();
  mixed_arrays();
  persistent_life_cycle();
  return capi_finish();
}
