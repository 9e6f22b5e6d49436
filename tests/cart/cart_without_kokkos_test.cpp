// A program that only builds Cartesian grids, queries them and runs
// neighborhood collectives on them links no Kokkos (this binary links
// distopo::cart and distopo::neighbor only) and therefore never starts it:
// after all of that, no Kokkos library is loaded in the process.
#include <gtest/gtest.h>
#include <link.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "distopo/cart.hpp"
#include "distopo/neighbor.hpp"
#include "mpi_testing.hpp"

namespace {

struct NameSearch {
  std::string part;
  std::vector<std::string> found;
};

// Paths of the shared objects loaded in this process whose file name (not
// directory: a checkout may sit in a folder named after Kokkos) contains `part`.
std::vector<std::string> loaded_objects_named(const std::string& part) {
  NameSearch search{part, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* s = static_cast<NameSearch*>(data);
        const std::string path = info->dlpi_name != nullptr ? info->dlpi_name : "";
        const std::string file = path.substr(path.rfind('/') + 1);
        if (file.find(s->part) != std::string::npos) s->found.push_back(path);
        return 0;
      },
      &search);
  return search.found;
}

TEST(CartWithoutKokkos, GridsQueriesAndCollectivesLoadNoKokkos) {
  const int p = distopo::testing::world_size();
  distopo::Comm grid =
      distopo::cart_create(MPI_COMM_WORLD, distopo::dims_create(p, 2), {distopo::periodic, distopo::open});
  ASSERT_FALSE(grid.is_null());
  const auto& own = distopo::cart_get(grid);
  EXPECT_EQ(distopo::cart_rank(grid, own.coords), grid.rank());
  EXPECT_EQ(distopo::cart_coords(grid, grid.rank()), own.coords);
  const auto [below, above] = distopo::cart_shift(grid, 0, 1);
  distopo::Comm rows = distopo::cart_sub(grid, std::vector<bool>{false, true});
  EXPECT_EQ(distopo::cartdim_get(rows), 1);

  const auto [in, out] = distopo::neighbor_degrees(grid);
  std::vector<int> send(static_cast<std::size_t>(out), grid.rank());
  std::vector<int> recv(static_cast<std::size_t>(in), -1);
  distopo::neighbor_alltoall(grid, send, recv);
  EXPECT_EQ(recv[0], below);  // slot 0: the -1 neighbor along dimension 0 (periodic: always there)
  MPI_Request request = distopo::ineighbor_alltoall(grid, send, recv);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  distopo::PersistentRequest halo = distopo::neighbor_alltoall_init(grid, send, recv);
  halo.start();
  halo.wait();
  EXPECT_EQ(recv[1], above);

  EXPECT_EQ(loaded_objects_named("kokkos"), std::vector<std::string>{});
}

}  // namespace
