/* halo.c: mpicc halo.c -o halo */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size, dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Dims_create(size, 2, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
  int rank, send[4], recv[4];
  MPI_Comm_rank(grid, &rank);
  for (int i = 0; i < 4; ++i) send[i] = rank;
  MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, grid); /* -x, +x, -y, +y */
  int left, right;
  MPI_Cart_shift(grid, 0, 1, &left, &right);
  printf("rank %d: from -x %d (expected %d)\n", rank, recv[0], left);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return recv[0] == left ? 0 : 1;
}
