/* A minimal test harness for the C API tests, as an MPI user would write it:
 * CHECK macros count failures per rank; capi_finish() adds them up over
 * MPI_COMM_WORLD, finalizes, and returns the exit status (nonzero if any rank
 * failed). */
#ifndef DISTOPO_CAPI_CHECK_H
#define DISTOPO_CAPI_CHECK_H

#include <mpi.h>
#include <stdio.h>

static int capi_failures = 0;

#define CHECK(cond, ...)                                                         \
  do {                                                                           \
    if (!(cond)) {                                                               \
      int check_rank_ = -1;                                                      \
      MPI_Comm_rank(MPI_COMM_WORLD, &check_rank_);                               \
      fprintf(stderr, "rank %d, %s:%d: ", check_rank_, __FILE__, __LINE__);      \
      fprintf(stderr, __VA_ARGS__);                                              \
      fprintf(stderr, "\n");                                                     \
      ++capi_failures;                                                           \
    }                                                                            \
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

static inline int capi_finish(void) {
  int total = 0;
  MPI_Allreduce(&capi_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total != 0;
}

#endif
