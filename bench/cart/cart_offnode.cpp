// Off-node neighbor pairs of a Cartesian stencil grid (5-point in 2-D,
// 7-point in 3-D, open, i.e. non-periodic boundaries) on emulated nodes of k
// consecutive world ranks, for three ways to lay out the grid:
//   identity         distopo::cart_create without reorder
//   distopo_reorder  distopo::cart_create with reorder (node-aware mapping)
//   mpich            MPICH's MPI_Cart_create with reorder = 1
// A pair is two grid neighbors (+1 along one dimension) counted once.
// Run: mpiexec -n P cart_offnode [--ranks-per-node 2,4,8] [--ndims 2,3]
// Prints one JSON object per line on rank 0.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "distopo/cart.hpp"

namespace {

long long offnode_pairs(MPI_Comm grid, int k) {
  int world = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  int size = 0;
  MPI_Comm_size(grid, &size);
  std::vector<int> world_of(static_cast<std::size_t>(size));
  MPI_Allgather(&world, 1, MPI_INT, world_of.data(), 1, MPI_INT, grid);
  int ndims = 0;
  MPI_Cartdim_get(grid, &ndims);
  long long count = 0;
  for (int d = 0; d < ndims; ++d) {
    int source = MPI_PROC_NULL;
    int destination = MPI_PROC_NULL;
    MPI_Cart_shift(grid, d, 1, &source, &destination);
    if (destination != MPI_PROC_NULL && world_of[static_cast<std::size_t>(destination)] / k != world / k) ++count;
  }
  MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_LONG_LONG, MPI_SUM, grid);
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  CLI::App app{"Off-node neighbor pairs of Cartesian grids with and without node-aware reorder"};
  std::vector<int> ranks_per_node{2, 4, 8};
  std::vector<int> ndims_list{2, 3};
  app.add_option("--ranks-per-node", ranks_per_node, "emulated ranks per node")->delimiter(',');
  app.add_option("--ndims", ndims_list, "grid dimensions")->delimiter(',');
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int rc = app.exit(error);
    MPI_Finalize();
    return rc;
  }
  int rank = 0;
  int p = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);

  for (int ndims : ndims_list) {
    const std::vector<int> dims = distopo::dims_create(p, ndims);
    const std::vector<distopo::Periodicity> periods(dims.size(), distopo::open);
    const std::vector<int> open_flags(dims.size(), 0);
    for (int k : ranks_per_node) {
      auto report = [&](const char* impl, long long pairs) {
        if (rank != 0) return;
        const nlohmann::json line = {{"impl", impl},        {"ndims", ndims},    {"dims", dims},          {"P", p},
                                     {"ranks_per_node", k}, {"periodic", false}, {"offnode_pairs", pairs}};
        std::printf("%s\n", line.dump().c_str());
      };
      {
        distopo::Comm grid = distopo::cart_create(MPI_COMM_WORLD, dims, periods);
        report("identity", offnode_pairs(grid, k));
      }
      {
        setenv("DISTOPO_RANKS_PER_NODE", std::to_string(k).c_str(), 1);
        distopo::Comm grid = distopo::cart_create(MPI_COMM_WORLD, dims, periods, {.reorder = true});
        unsetenv("DISTOPO_RANKS_PER_NODE");
        report("distopo_reorder", offnode_pairs(grid, k));
      }
      {
        MPI_Comm grid = MPI_COMM_NULL;
        MPI_Cart_create(MPI_COMM_WORLD, ndims, dims.data(), open_flags.data(), 1, &grid);
        report("mpich", offnode_pairs(grid, k));
        MPI_Comm_free(&grid);
      }
    }
  }
  MPI_Finalize();
  return 0;
}
