#pragma once
#include <mpi.h>
#include <stdio.h>
static int capi_failures = 0;
#define CHECK(cond, ...) do { if (!(cond)) { int r_; MPI_Comm_rank(MPI_COMM_WORLD, &r_); fprintf(stderr, "rank %d %s:%d: ", r_, __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); ++capi_failures; } } while (0)
#define CHECK_EQ_INT(a, b) CHECK((a) == (b), "%s = %d, expected %s = %d", #a, (int)(a), #b, (int)(b))
static void expect_error_class(int rc, int expected, const char* what) {
  int cls = rc; if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  char text[MPI_MAX_ERROR_STRING]; int len = 0; text[0] = 0; if (rc != MPI_SUCCESS) MPI_Error_string(rc, text, &len);
  CHECK(cls == expected, "%s: class %d, expected %d (%s)", what, cls, expected, text);
}
static int capi_finish(void) { int total = 0; MPI_Allreduce(&capi_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); MPI_Finalize(); return total != 0; }
