// Cartesian topologies at any process count: every query compared with
// MPICH's answer on the same communicator (it carries MPICH's topology too),
// the standard's examples, edge cases, errors given on one rank only, and the
// node-aware reorder with emulated nodes.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "cartesian_blocks.hpp"
#include "distopo/cart.hpp"
#include "distopo/core/comm.hpp"
#include "distopo/core/grid.hpp"
#include "distopo/core/topology.hpp"
#include "mpi_testing.hpp"

namespace {

using distopo::Periodicity;

using distopo::testing::error_class_of;
using distopo::testing::world_rank;
using distopo::testing::world_size;

// The MPICH error class of a PMPI call on `comm` (errors returned, not fatal).
int mpich_class(int rc) {
  if (rc == MPI_SUCCESS) return MPI_SUCCESS;
  int error_class = MPI_ERR_OTHER;
  MPI_Error_class(rc, &error_class);
  return error_class;
}

// Every query on `comm` compared with MPICH's answer on the same communicator.
void expect_matches_mpich(MPI_Comm comm, const std::vector<int>& dims, const std::vector<Periodicity>& periods) {
  ASSERT_NE(comm, MPI_COMM_NULL);
  const int ndims = static_cast<int>(dims.size());
  const int size = distopo::comm_size(comm);
  const int rank = distopo::comm_rank(comm);
  int topo = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &topo);
  ASSERT_EQ(topo, MPI_CART);
  EXPECT_EQ(distopo::topo_test(comm), distopo::TopologyKind::cartesian);
  int native_ndims = -1;
  PMPI_Cartdim_get(comm, &native_ndims);
  EXPECT_EQ(distopo::cartdim_get(comm), native_ndims);
  EXPECT_EQ(native_ndims, ndims);

  std::vector<int> native_dims(dims.size()), native_periods(dims.size()), native_coords(dims.size());
  PMPI_Cart_get(comm, ndims, native_dims.data(), native_periods.data(), native_coords.data());
  const auto& grid = distopo::cart_get(comm);
  EXPECT_EQ(grid.dims, native_dims);
  EXPECT_EQ(grid.dims, dims);
  EXPECT_EQ(grid.coords, native_coords);
  EXPECT_EQ(grid.periods, periods);
  EXPECT_EQ(distopo::period_flags(grid.periods), native_periods);

  for (int r = 0; r < size; ++r) {
    std::vector<int> coords(dims.size());
    PMPI_Cart_coords(comm, r, ndims, coords.data());
    EXPECT_EQ(distopo::cart_coords(comm, r), coords) << "rank " << r;
    int native_rank = -1;
    PMPI_Cart_rank(comm, coords.data(), &native_rank);
    EXPECT_EQ(distopo::cart_rank(comm, coords), native_rank);
    EXPECT_EQ(native_rank, r);
  }
  EXPECT_EQ(distopo::cart_rank(comm, grid.coords), rank);
  // Periodic coordinates wrap the same way in both.
  std::vector<int> shifted = grid.coords;
  for (int d = 0; d < ndims; ++d) {
    if (periods[static_cast<std::size_t>(d)] == Periodicity::periodic)
      shifted[static_cast<std::size_t>(d)] -= 3 * dims[static_cast<std::size_t>(d)] + 1;
  }
  int native_rank = -1;
  PMPI_Cart_rank(comm, shifted.data(), &native_rank);
  EXPECT_EQ(distopo::cart_rank(comm, shifted), native_rank);

  for (int direction = 0; direction < ndims; ++direction) {
    const int extent = dims[static_cast<std::size_t>(direction)];
    for (int disp : {0, 1, -1, 2, -2, 3, extent, -extent, extent + 1, -(2 * extent + 1), 1000003}) {
      int source = -7;
      int destination = -7;
      PMPI_Cart_shift(comm, direction, disp, &source, &destination);
      const distopo::ShiftResult got = distopo::cart_shift(comm, direction, disp);
      EXPECT_EQ(got.source, source) << "direction " << direction << " disp " << disp;
      EXPECT_EQ(got.destination, destination) << "direction " << direction << " disp " << disp;
    }
  }
}

TEST(CartCreate, DimsCreateAgreesWithMpichWhereMpichIsBalanced) {
  if (world_rank() != 0) return;
  int differ = 0;
  for (int ndims : {2, 3, 4}) {
    for (int n = 1; n <= 1000; ++n) {
      std::vector<int> native(static_cast<std::size_t>(ndims), 0);
      PMPI_Dims_create(n, ndims, native.data());
      const std::vector<int> ours = distopo::dims_create(n, ndims);
      // Never less balanced than MPICH; same grid whenever equally balanced
      // and MPICH picked the same tie.
      EXPECT_LE(ours.front() - ours.back(), native.front() - native.back()) << n << " in " << ndims;
      if (ours != native) ++differ;
    }
  }
  // MPICH 4.0 is exact for these sizes except on ties.
  EXPECT_LT(differ, 30);
}

TEST(CartCreate, TwoDimensionalMixedPeriodsMatchesMpich) {
  const int p = world_size();
  const std::vector<int> dims = distopo::dims_create(p, 2);
  const std::vector<Periodicity> periods{distopo::periodic, distopo::open};
  distopo::Comm grid =
      distopo::cart_create(MPI_COMM_WORLD, distopo::dims_create(p, 2), {distopo::periodic, distopo::open});
  ASSERT_FALSE(grid.is_null());
  EXPECT_EQ(grid.rank(), world_rank());  // no reorder: ranks kept
  expect_matches_mpich(grid, dims, periods);
}

TEST(CartCreate, ThreeDimensionalAllPeriodicities) {
  const int p = world_size();
  const std::vector<int> dims = distopo::dims_create(p, 3);
  for (int mask = 0; mask < 8; ++mask) {
    std::vector<Periodicity> periods;
    for (int d = 0; d < 3; ++d) periods.push_back((mask >> d) & 1 ? distopo::periodic : distopo::open);
    distopo::Comm grid = distopo::cart_create(MPI_COMM_WORLD, dims, periods);
    expect_matches_mpich(grid, dims, periods);
  }
}

TEST(CartCreate, RawArrayOverloadAndBoundedGet) {
  const int p = world_size();
  const int dims[2] = {1, p};
  const int periods[2] = {0, 1};
  distopo::Comm grid = distopo::cart_create(MPI_COMM_WORLD, 2, dims, periods, false);
  expect_matches_mpich(grid, {1, p}, {distopo::open, distopo::periodic});
  int got_dims[3] = {-9, -9, -9};
  int got_periods[3] = {-9, -9, -9};
  int got_coords[3] = {-9, -9, -9};
  distopo::cart_get(grid, 1, got_dims, got_periods, got_coords);
  EXPECT_EQ(got_dims[0], 1);
  EXPECT_EQ(got_dims[1], -9);  // never written past maxdims
  EXPECT_EQ(got_periods[1], -9);
  EXPECT_EQ(got_coords[1], -9);
  distopo::cart_get(grid, 3, got_dims, got_periods, got_coords);
  EXPECT_EQ(got_dims[1], p);
  EXPECT_EQ(got_periods[1], 1);
  EXPECT_EQ(got_coords[1], world_rank());
  EXPECT_EQ(got_dims[2], -9);
  int coords[2] = {-9, -9};
  distopo::cart_coords(grid, p - 1, 1, coords);
  EXPECT_EQ(coords[0], 0);
  EXPECT_EQ(coords[1], -9);
}

TEST(CartCreate, ZeroDimensional) {
  distopo::Comm grid = distopo::cart_create(MPI_COMM_WORLD, std::vector<int>{}, std::vector<Periodicity>{});
  if (world_rank() != 0) {
    EXPECT_TRUE(grid.is_null());
    return;
  }
  ASSERT_FALSE(grid.is_null());
  EXPECT_EQ(grid.size(), 1);
  EXPECT_EQ(distopo::cartdim_get(grid), 0);
  int native_ndims = -1;
  PMPI_Cartdim_get(grid, &native_ndims);
  EXPECT_EQ(native_ndims, 0);
  EXPECT_EQ(distopo::cart_rank(grid, std::vector<int>{}), 0);
  EXPECT_EQ(distopo::cart_rank(grid, static_cast<const int*>(nullptr)), 0);
  EXPECT_TRUE(distopo::cart_coords(grid, 0).empty());
  int untouched = 42;
  distopo::cart_get(grid, 1, &untouched, &untouched, &untouched);
  EXPECT_EQ(untouched, 42);
  distopo::cart_coords(grid, 0, 1, &untouched);
  EXPECT_EQ(untouched, 42);
  EXPECT_EQ(error_class_of([&] { distopo::cart_shift(grid, 0, 1); }), MPI_ERR_TOPOLOGY);
  int a = 0;
  int b = 0;
  MPI_Comm_set_errhandler(grid, MPI_ERRORS_RETURN);
  EXPECT_EQ(mpich_class(PMPI_Cart_shift(grid, 0, 1, &a, &b)), MPI_ERR_TOPOLOGY);
  // cart_sub of a 0-dim grid is 0-dim again.
  distopo::Comm sub = distopo::cart_sub(grid, std::vector<bool>{});
  ASSERT_FALSE(sub.is_null());
  EXPECT_EQ(distopo::cartdim_get(sub), 0);
  EXPECT_EQ(distopo::cart_map(grid, std::vector<int>{}, std::vector<Periodicity>{}), 0);
}

TEST(CartCreate, CartMapZeroDimensionalAndIdentity) {
  const int rank = world_rank();
  EXPECT_EQ(distopo::cart_map(MPI_COMM_WORLD, std::vector<int>{}, std::vector<Periodicity>{}),
            rank == 0 ? 0 : MPI_UNDEFINED);
  const int p = world_size();
  const int dims[1] = {p};
  const int periods[1] = {0};
  int native = -5;
  PMPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &native);
  unsetenv("DISTOPO_RANKS_PER_NODE");
  // One real node here: identity, like MPICH.
  EXPECT_EQ(distopo::cart_map(MPI_COMM_WORLD, 1, dims, periods), native);
}

TEST(CartCreate, OneDimensionalSizeOnePeriodic) {
  distopo::Comm grid = distopo::cart_create(MPI_COMM_WORLD, std::vector<int>{1}, {distopo::periodic});
  if (world_rank() != 0) {
    EXPECT_TRUE(grid.is_null());
    return;
  }
  expect_matches_mpich(grid, {1}, {distopo::periodic});
  EXPECT_EQ(distopo::cart_shift(grid, 0, 1), (distopo::ShiftResult{0, 0}));
  EXPECT_EQ(distopo::cart_shift(grid, 0, -7), (distopo::ShiftResult{0, 0}));
  EXPECT_EQ(distopo::cart_rank(grid, std::vector<int>{5}), 0);
}

TEST(CartCreate, GridSmallerThanGroup) {
  const int p = world_size();
  const int used = p > 1 ? p - 1 : 1;
  distopo::Comm grid = distopo::cart_create(MPI_COMM_WORLD, std::vector<int>{used}, {distopo::open});
  if (world_rank() >= used) {
    EXPECT_TRUE(grid.is_null());
    return;
  }
  ASSERT_EQ(grid.size(), used);
  expect_matches_mpich(grid, {used}, {distopo::open});
  EXPECT_EQ(distopo::cart_shift(grid, 0, 1).destination, world_rank() + 1 < used ? world_rank() + 1 : MPI_PROC_NULL);
}

TEST(CartCreate, DupKeepsTopology) {
  const int p = world_size();
  distopo::Comm grid = distopo::cart_create(MPI_COMM_WORLD, distopo::dims_create(p, 2), {distopo::open, distopo::open});
  MPI_Comm copy = MPI_COMM_NULL;
  MPI_Comm_dup(grid, &copy);
  distopo::Comm dup = distopo::Comm::adopt(copy);
  ASSERT_NE(distopo::find_topology(dup), nullptr);
  EXPECT_EQ(distopo::topo_test(dup), distopo::TopologyKind::cartesian);
  EXPECT_EQ(distopo::cart_get(dup).coords, distopo::cart_get(grid).coords);
  expect_matches_mpich(dup, distopo::dims_create(p, 2), {distopo::open, distopo::open});
}

TEST(CartCreate, QueriesWithoutTopology) {
  EXPECT_EQ(error_class_of([] { distopo::cartdim_get(MPI_COMM_WORLD); }), MPI_ERR_TOPOLOGY);
  EXPECT_EQ(error_class_of([] { distopo::cart_get(MPI_COMM_WORLD); }), MPI_ERR_TOPOLOGY);
  EXPECT_EQ(error_class_of([] { distopo::cart_shift(MPI_COMM_WORLD, 0, 1); }), MPI_ERR_TOPOLOGY);
  EXPECT_EQ(error_class_of([] { distopo::cart_coords(MPI_COMM_WORLD, 0); }), MPI_ERR_TOPOLOGY);
  EXPECT_EQ(error_class_of([] { distopo::cart_rank(MPI_COMM_WORLD, std::vector<int>{0}); }), MPI_ERR_TOPOLOGY);
  EXPECT_EQ(error_class_of([] { distopo::cart_sub(MPI_COMM_WORLD, std::vector<bool>{true}); }), MPI_ERR_TOPOLOGY);
  EXPECT_EQ(distopo::topo_test(MPI_COMM_WORLD), distopo::TopologyKind::undefined);
}

TEST(CartCreate, LocalQueryErrorsMatchMpichClasses) {
  const int p = world_size();
  distopo::Comm grid = distopo::cart_create(MPI_COMM_WORLD, std::vector<int>{p}, {distopo::open});
  MPI_Comm_set_errhandler(grid, MPI_ERRORS_RETURN);
  int a = 0;
  int b = 0;
  std::string message;
  EXPECT_EQ(error_class_of([&] { distopo::cart_shift(grid, 1, 1); }, &message),
            mpich_class(PMPI_Cart_shift(grid, 1, 1, &a, &b)));
  EXPECT_NE(message.find("direction = 1"), std::string::npos) << message;
  EXPECT_EQ(error_class_of([&] { distopo::cart_shift(grid, -1, 1); }),
            mpich_class(PMPI_Cart_shift(grid, -1, 1, &a, &b)));
  const int outside[1] = {p};
  EXPECT_EQ(error_class_of([&] { distopo::cart_rank(grid, outside); }), mpich_class(PMPI_Cart_rank(grid, outside, &a)));
  EXPECT_EQ(error_class_of([&] { distopo::cart_rank(grid, outside); }), MPI_ERR_ARG);
  int coords[1];
  EXPECT_EQ(error_class_of([&] { distopo::cart_coords(grid, p); }), mpich_class(PMPI_Cart_coords(grid, p, 1, coords)));
  EXPECT_EQ(error_class_of([&] { distopo::cart_coords(grid, -1); }), MPI_ERR_RANK);
  EXPECT_EQ(error_class_of([&] { distopo::cart_rank(grid, std::vector<int>{0, 0}); }), MPI_ERR_ARG);
}

// Bad input on the last rank only: every rank throws the same class, the
// message names the rank and the value, and nothing hangs afterwards.
void expect_agreed(int expected_class, const std::function<void()>& call, const std::string& value) {
  std::string message;
  EXPECT_EQ(error_class_of(call, &message), expected_class);
  const int last = world_size() - 1;
  EXPECT_NE(message.find("rank " + std::to_string(last)), std::string::npos) << message;
  EXPECT_NE(message.find(value), std::string::npos) << message;
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(CartCreate, BadInputOnOneRankIsReportedEverywhere) {
  const int p = world_size();
  const bool last = world_rank() == p - 1;
  expect_agreed(
      MPI_ERR_DIMS, [&] { distopo::cart_create(MPI_COMM_WORLD, std::vector<int>{last ? -3 : p}, {distopo::open}); },
      "-3");
  expect_agreed(
      MPI_ERR_DIMS,
      [&] {
        distopo::cart_create(MPI_COMM_WORLD, std::vector<int>{1, last ? 0 : 1}, {distopo::open, distopo::open});
      },
      "dims[1] = 0");
  expect_agreed(
      MPI_ERR_ARG, [&] { distopo::cart_create(MPI_COMM_WORLD, std::vector<int>{last ? p + 1 : p}, {distopo::open}); },
      std::to_string(p + 1));
  expect_agreed(
      MPI_ERR_ARG,
      [&] {
        const int dims[1] = {1};
        const int periods[1] = {0};
        distopo::cart_create(MPI_COMM_WORLD, last ? -2 : 1, dims, periods, false);
      },
      "-2");
  expect_agreed(
      MPI_ERR_DIMS,
      [&] {
        distopo::cart_map(MPI_COMM_WORLD, std::vector<int>{last ? p + 5 : p}, std::vector<Periodicity>{distopo::open});
      },
      std::to_string(p + 5));
  if (p > 1) {
    // Valid but different arguments: MPI_ERR_ARG everywhere, naming the odd rank.
    expect_agreed(
        MPI_ERR_ARG,
        [&] { distopo::cart_create(MPI_COMM_WORLD, std::vector<int>{p}, {last ? distopo::periodic : distopo::open}); },
        "differ");
    expect_agreed(
        MPI_ERR_ARG,
        [&] { distopo::cart_create(MPI_COMM_WORLD, std::vector<int>{p}, {distopo::open}, {.reorder = last}); },
        "differ");
  }
  distopo::Comm grid = distopo::cart_create(MPI_COMM_WORLD, std::vector<int>{p, 1}, {distopo::open, distopo::open});
  expect_agreed(
      MPI_ERR_ARG,
      [&] {
        distopo::cart_sub(grid, last ? std::vector<bool>{true} : std::vector<bool>{true, false});
      },
      "remain_dims has 1");
}

TEST(CartCreate, CartSubBothWaysMatchesMpich) {
  const int p = world_size();
  const std::vector<int> dims = distopo::dims_create(p, 3);
  const std::vector<Periodicity> periods{distopo::open, distopo::periodic, distopo::open};
  distopo::Comm grid = distopo::cart_create(MPI_COMM_WORLD, dims, periods);
  for (const std::vector<bool>& remain :
       {std::vector<bool>{true, false, true}, std::vector<bool>{false, false, true},
        std::vector<bool>{false, false, false}, std::vector<bool>{true, true, true}}) {
    distopo::Comm sub = distopo::cart_sub(grid, remain);
    std::vector<int> flags(remain.begin(), remain.end());
    MPI_Comm native_sub = MPI_COMM_NULL;
    PMPI_Cart_sub(grid, flags.data(), &native_sub);
    std::vector<int> kept_dims;
    std::vector<Periodicity> kept_periods;
    for (std::size_t i = 0; i < remain.size(); ++i) {
      if (!remain[i]) continue;
      kept_dims.push_back(dims[i]);
      kept_periods.push_back(periods[i]);
    }
    int expected_size = 1;
    for (int d : kept_dims) expected_size *= d;
    ASSERT_EQ(sub.size(), expected_size);
    expect_matches_mpich(sub, kept_dims, kept_periods);
    if (kept_dims.empty() && grid.rank() != 0) {
      // MPICH 4.0 gives MPI_COMM_NULL here; the standard gives every process
      // its own zero-dimensional grid, as distopo does.
      EXPECT_EQ(native_sub, MPI_COMM_NULL);
      continue;
    }
    int result = MPI_UNEQUAL;
    MPI_Comm_compare(sub, native_sub, &result);
    EXPECT_EQ(result, MPI_CONGRUENT);  // same group, same order as MPICH's own cart_sub
    MPI_Comm_free(&native_sub);
  }
}

TEST(CartCreate, PoissonHaloExchangeOnPeriodicGrid) {
  // The standard's Poisson set-up: a 2-D periodic grid, neighbors from cart_shift.
  const int p = world_size();
  distopo::Comm grid =
      distopo::cart_create(MPI_COMM_WORLD, distopo::dims_create(p, 2), {distopo::periodic, distopo::periodic});
  const int me = grid.rank();
  const auto& own = distopo::cart_get(grid).coords;
  for (int direction = 0; direction < 2; ++direction) {
    const auto [source, destination] = distopo::cart_shift(grid, direction, 1);
    int received = -1;
    MPI_Sendrecv(&me, 1, MPI_INT, destination, 7, &received, 1, MPI_INT, source, 7, grid, MPI_STATUS_IGNORE);
    std::vector<int> expected = own;
    expected[static_cast<std::size_t>(direction)] -= 1;
    EXPECT_EQ(received, distopo::cart_rank(grid, expected));
    int native_source = -1;
    int native_destination = -1;
    PMPI_Cart_shift(grid, direction, 1, &native_source, &native_destination);
    EXPECT_EQ(source, native_source);
    EXPECT_EQ(destination, native_destination);
  }
  // A few Jacobi sweeps of u = average of the four neighbors: a constant stays constant.
  double u = 1.0;
  for (int sweep = 0; sweep < 3; ++sweep) {
    double sum = 0.0;
    for (int direction = 0; direction < 2; ++direction) {
      const auto [source, destination] = distopo::cart_shift(grid, direction, 1);
      double from_source = 0.0;
      double from_destination = 0.0;
      MPI_Sendrecv(&u, 1, MPI_DOUBLE, destination, 8, &from_source, 1, MPI_DOUBLE, source, 8, grid, MPI_STATUS_IGNORE);
      MPI_Sendrecv(&u, 1, MPI_DOUBLE, source, 9, &from_destination, 1, MPI_DOUBLE, destination, 9, grid,
                   MPI_STATUS_IGNORE);
      sum += from_source + from_destination;
    }
    u = sum / 4.0;
  }
  EXPECT_DOUBLE_EQ(u, 1.0);
}

TEST(CartCreate, ManyDimensionsBeyondMpichLimit) {
  const int p = world_size();
  std::vector<int> dims(20, 1);
  dims[0] = p;
  std::vector<Periodicity> periods(20, distopo::periodic);
  periods[0] = distopo::open;
  distopo::Comm grid = distopo::cart_create(MPI_COMM_WORLD, dims, periods);
  ASSERT_FALSE(grid.is_null());
  EXPECT_EQ(distopo::cartdim_get(grid), 20);
  int topo = MPI_CART;
  PMPI_Topo_test(grid, &topo);
  EXPECT_EQ(topo, MPI_UNDEFINED);  // no MPICH mirror past 16 dimensions
  EXPECT_EQ(distopo::cart_shift(grid, 19, 1), (distopo::ShiftResult{grid.rank(), grid.rank()}));
  const int rank = grid.rank();
  EXPECT_EQ(distopo::cart_shift(grid, 0, 1).destination, rank + 1 < p ? rank + 1 : MPI_PROC_NULL);
  EXPECT_EQ(distopo::cart_rank(grid, distopo::cart_coords(grid, rank)), rank);
  std::vector<bool> remain(20, false);
  remain[0] = true;
  remain[17] = true;
  distopo::Comm sub = distopo::cart_sub(grid, remain);
  EXPECT_EQ(distopo::cart_get(sub).dims, (std::vector<int>{p, 1}));
  // 16 dimensions still get MPICH's topology.
  std::vector<int> sixteen(16, 1);
  sixteen[15] = p;
  distopo::Comm mirrored = distopo::cart_create(MPI_COMM_WORLD, sixteen, std::vector<Periodicity>(16, distopo::open));
  expect_matches_mpich(mirrored, sixteen, std::vector<Periodicity>(16, distopo::open));
}

// Off-node stencil pairs of `grid` when node = world rank / k.
int offnode_pairs(MPI_Comm grid, int k) {
  const int world = world_rank();
  const int size = distopo::comm_size(grid);
  std::vector<int> world_of(static_cast<std::size_t>(size));
  MPI_Allgather(&world, 1, MPI_INT, world_of.data(), 1, MPI_INT, grid);
  int count = 0;
  const int ndims = distopo::cartdim_get(grid);
  for (int d = 0; d < ndims; ++d) {
    const auto [source, destination] = distopo::cart_shift(grid, d, 1);
    for (int other : {source, destination}) {
      if (other != MPI_PROC_NULL && world_of[static_cast<std::size_t>(other)] / k != world / k) ++count;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_INT, MPI_SUM, grid);
  return count;
}

TEST(CartCreate, ReorderWithEmulatedNodes) {
  const int p = world_size();
  for (int k : {2, 4}) {
    for (int ndims : {2, 3}) {
      const std::vector<int> dims = p == 8 && ndims == 2 ? std::vector<int>{2, 4} : distopo::dims_create(p, ndims);
      const std::vector<Periodicity> periods(dims.size(), distopo::open);
      distopo::Comm identity = distopo::cart_create(MPI_COMM_WORLD, dims, periods);
      setenv("DISTOPO_RANKS_PER_NODE", std::to_string(k).c_str(), 1);
      const int mapped = distopo::cart_map(MPI_COMM_WORLD, dims, periods);
      distopo::Comm reordered = distopo::cart_create(MPI_COMM_WORLD, dims, periods, {.reorder = true});
      unsetenv("DISTOPO_RANKS_PER_NODE");
      ASSERT_FALSE(reordered.is_null());
      EXPECT_EQ(reordered.rank(), mapped);
      expect_matches_mpich(reordered, dims, periods);
      // A permutation: every new rank is taken exactly once.
      std::vector<int> new_ranks(static_cast<std::size_t>(p));
      MPI_Allgather(&mapped, 1, MPI_INT, new_ranks.data(), 1, MPI_INT, MPI_COMM_WORLD);
      std::vector<int> sorted = new_ranks;
      std::sort(sorted.begin(), sorted.end());
      std::vector<int> all(static_cast<std::size_t>(p));
      std::iota(all.begin(), all.end(), 0);
      EXPECT_EQ(sorted, all);
      const int before = offnode_pairs(identity, k);
      const int after = offnode_pairs(reordered, k);
      EXPECT_LE(after, before) << "k = " << k << ", ndims = " << ndims;
      if (p == 8 && k == 4 && ndims == 2) {
        EXPECT_LT(after, before);  // 2x4: rows of 4 vs 2x2 blocks
      }
      if (p % k != 0 && p > k) {
        EXPECT_EQ(mapped, world_rank());  // uneven nodes: identity
      }
    }
  }
}

TEST(CartCreate, ReorderWithInfoKey) {
  const int p = world_size();
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, "distopo_ranks_per_node", "2");
  const std::vector<int> dims = distopo::dims_create(p, 2);
  const std::vector<Periodicity> periods(2, distopo::periodic);
  distopo::Comm grid = distopo::cart_create(MPI_COMM_WORLD, dims, periods, {.reorder = true, .info = info});
  const int mapped = distopo::cart_map(MPI_COMM_WORLD, dims, periods, info);
  MPI_Info_free(&info);
  EXPECT_EQ(grid.rank(), mapped);
  if (p % 2 == 0) {
    const auto inner = distopo::plan_node_block(dims, periods, 2);
    ASSERT_TRUE(inner.has_value());
    EXPECT_EQ(mapped, distopo::node_block_rank(dims, *inner, world_rank() / 2, world_rank() % 2));
  }
  expect_matches_mpich(grid, dims, periods);
}

}  // namespace
