/* A minimal test harness for the C API tests, as an MPI user would write it:
 * CHECK macros count failures per rank; capi_finish() adds them up over
 * MPI_COMM_WORLD, finalizes, and returns the exit status (nonzero if any rank
 * failed). */
#ifndef DISTOPO_CAPI_CHECK_H
#define DISTOPO_CAPI_CHECK_H

#include <mpi.h>
#include <stdio.h>

static int capi_failures = 0;

#define CHECK(cond, ...)                                                    \
  do {                                                                      \
    if (!(cond)) {                                                          \
      int check_rank_ = -1;                                                 \
      MPI_Comm_rank(MPI_COMM_WORLD, &check_rank_);                          \
      fprintf(stderr, "rank %d, %s:%d: ", check_rank_, __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                         \
      fprintf(stderr, "\n");                                                \
      ++capi_failures;                                                      \
    }                                                                       \
  } while (0)

#define CHECK_EQ_INT(a, b) CHECK((a) == (b), "%s = %d, expected %s = %d", #a, (int)(a), #b, (int)(b))

/* rc must carry the error class `expected` (MPI_SUCCESS for success). */
static inline void expect_error_class(int rc, int expected, const char* what) {
  int error_class = MPI_SUCCESS;
  char text[MPI_MAX_ERROR_STRING] = "";
  int length = 0;
  if (rc != MPI_SUCCESS) {
    MPI_Error_class(rc, &error_class);
    MPI_Error_string(rc, text, &length);
  }
  CHECK(error_class == expected, "%s: error class %d, expected %d (%s)", what, error_class, expected, text);
}

/* A periodic ring over MPI_COMM_WORLD (a 1-D Cartesian grid): in- and
 * out-slot 0 is the -1 neighbor, slot 1 the +1 neighbor. What out-slot `slot`
 * of `rank` sends in round `round` is ring_value(); in-slot i receives the
 * block its neighbor sent towards this rank (the -1 neighbor's +1 block and
 * the other way round), even at 1 and 2 ranks where both neighbors are the
 * same process. */
static inline MPI_Comm capi_ring(void) {
  int size = 0, periodic = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm ring = MPI_COMM_NULL;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periodic, 0, &ring);
  return ring;
}

static inline int ring_value(int rank, int slot, int round) { return 1000 * round + 10 * rank + slot; }

static inline int ring_expected(int slot, int round) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int from = slot == 0 ? (rank + size - 1) % size : (rank + 1) % size;
  return ring_value(from, 1 - slot, round);
}

/* Fails unless recv[0..1] hold round `round`'s blocks of the ring. */
#define CHECK_RING(recv, round, what)                                                                    \
  CHECK((recv)[0] == ring_expected(0, round) && (recv)[1] == ring_expected(1, round),                    \
        "%s: received {%d, %d}, expected {%d, %d}", what, (recv)[0], (recv)[1], ring_expected(0, round), \
        ring_expected(1, round))

/* After a call that failed on some rank: a small distributed ring on
 * MPI_COMM_WORLD is created everywhere and one neighbor_alltoall over it
 * delivers, so the failure left nothing behind. */
static inline void expect_small_graph_works(void) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int next = (rank + 1) % size;
  const int one = 1;
  MPI_Comm ring = MPI_COMM_NULL;
  const int ring_rc =
      MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, &next, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &ring);
  expect_error_class(ring_rc, MPI_SUCCESS, "a small graph afterwards");
  if (ring_rc == MPI_SUCCESS) {
    int sent = rank;
    int received = -1;
    MPI_Neighbor_alltoall(&sent, 1, MPI_INT, &received, 1, MPI_INT, ring);
    CHECK_EQ_INT(received, (rank + size - 1) % size);
    MPI_Comm_free(&ring);
  }
}

static inline int capi_finish(void) {
  int total = 0;
  MPI_Allreduce(&capi_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total != 0;
}

#endif
