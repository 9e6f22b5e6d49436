// The standard's cart_sub example on a 2x3x4 grid (24 processes): keeping
// dims (true, false, true) gives three 2x4 grids of 8, keeping only the last
// dimension gives six 1-D grids of 4. Compared with MPICH's own cart_sub.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "distopo/cart.hpp"

namespace {

TEST(CartSubExample, TwoByThreeByFour) {
  if (distopo::comm_size(MPI_COMM_WORLD) < 24) GTEST_SKIP() << "needs 24 processes";
  distopo::Comm grid =
      distopo::cart_create(MPI_COMM_WORLD, std::vector<int>{2, 3, 4}, {distopo::open, distopo::open, distopo::open});
  if (grid.is_null()) return;
  const std::vector<int> own = distopo::cart_get(grid).coords;
  struct Case {
    std::vector<bool> remain;
    std::vector<int> dims;
    std::vector<int> coords;
    int count;  // communicators created
  };
  for (const Case& c :
       {Case{{true, false, true}, {2, 4}, {own[0], own[2]}, 3}, Case{{false, false, true}, {4}, {own[2]}, 6}}) {
    distopo::Comm sub = distopo::cart_sub(grid, c.remain);
    EXPECT_EQ(distopo::cart_get(sub).dims, c.dims);
    EXPECT_EQ(distopo::cart_get(sub).coords, c.coords);
    EXPECT_EQ(sub.size(), 24 / c.count);
    std::vector<int> flags(c.remain.begin(), c.remain.end());
    MPI_Comm native = MPI_COMM_NULL;
    PMPI_Cart_sub(grid, flags.data(), &native);
    int result = MPI_UNEQUAL;
    MPI_Comm_compare(sub, native, &result);
    EXPECT_EQ(result, MPI_CONGRUENT);
    std::vector<int> native_dims(c.dims.size()), native_periods(c.dims.size()), native_coords(c.dims.size());
    PMPI_Cart_get(sub, static_cast<int>(c.dims.size()), native_dims.data(), native_periods.data(),
                  native_coords.data());
    EXPECT_EQ(native_dims, c.dims);
    EXPECT_EQ(native_coords, c.coords);
    // Rank 0 of each sub-communicator counts the communicators.
    int leaders = sub.rank() == 0 ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &leaders, 1, MPI_INT, MPI_SUM, grid);
    EXPECT_EQ(leaders, c.count);
    MPI_Comm_free(&native);
  }
}

}  // namespace
