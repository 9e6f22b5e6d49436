// The node-aware Cartesian mapping as pure functions: always a permutation,
// never more off-node neighbor pairs than consecutive-rank nodes.
#include "cartesian_blocks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "distopo/cart.hpp"

namespace {

using distopo::Periodicity;

// Stencil neighbor relations (+-1 per dimension, nothing past open ends) whose
// ends are on different nodes; node_of_grid_rank[g] is grid rank g's node.
std::int64_t offnode_relations(const std::vector<int>& dims, const std::vector<Periodicity>& periods,
                               const std::vector<int>& node_of_grid_rank) {
  std::int64_t count = 0;
  for (int g = 0; g < static_cast<int>(node_of_grid_rank.size()); ++g) {
    const std::vector<int> c = distopo::grid_coords(dims, g);
    for (std::size_t d = 0; d < dims.size(); ++d) {
      for (int step : {-1, 1}) {
        std::vector<int> n = c;
        n[d] += step;
        if (n[d] < 0 || n[d] >= dims[d]) {
          if (periods[d] == Periodicity::open) continue;
          n[d] = (n[d] + dims[d]) % dims[d];
        }
        if (node_of_grid_rank[static_cast<std::size_t>(g)] !=
            node_of_grid_rank[static_cast<std::size_t>(distopo::grid_rank(dims, n))]) {
          ++count;
        }
      }
    }
  }
  return count;
}

TEST(CartNodeMapping, PermutationAndNoWorseThanIdentity) {
  for (int p : {4, 8, 12, 16, 24, 32, 36, 48, 64, 96, 128}) {
    for (int ndims : {1, 2, 3}) {
      for (int k : {2, 4, 8}) {
        if (p % k != 0) continue;
        const std::vector<int> dims = distopo::dims_create(p, ndims);
        for (Periodicity period : {Periodicity::open, Periodicity::periodic}) {
          const std::vector<Periodicity> periods(dims.size(), period);
          const auto inner = distopo::plan_node_block(dims, periods, k);
          ASSERT_TRUE(inner.has_value()) << p << " " << ndims << " " << k;
          std::vector<int> node_of(static_cast<std::size_t>(p), -1);
          std::vector<int> identity(static_cast<std::size_t>(p));
          for (int r = 0; r < p; ++r) {
            const int g = distopo::node_block_rank(dims, *inner, r / k, r % k);
            ASSERT_GE(g, 0);
            ASSERT_LT(g, p);
            ASSERT_EQ(node_of[static_cast<std::size_t>(g)], -1) << "grid rank " << g << " taken twice";
            node_of[static_cast<std::size_t>(g)] = r / k;
            identity[static_cast<std::size_t>(r)] = r / k;
          }
          const std::int64_t mapped = offnode_relations(dims, periods, node_of);
          EXPECT_EQ(mapped, distopo::block_cut(dims, periods, *inner));
          EXPECT_LE(mapped, offnode_relations(dims, periods, identity)) << p << " " << ndims << " " << k;
        }
      }
    }
  }
}

TEST(CartNodeMapping, CompactBlocksBeatRows) {
  // 2x4 open grid, nodes of 4: rows cut 4 pairs each way, 2x2 blocks cut 2.
  const std::vector<int> dims{2, 4};
  const std::vector<Periodicity> periods{Periodicity::open, Periodicity::open};
  const auto inner = distopo::plan_node_block(dims, periods, 4);
  ASSERT_TRUE(inner.has_value());
  EXPECT_EQ(*inner, (std::vector<int>{2, 2}));
  EXPECT_EQ(distopo::block_cut(dims, periods, *inner), 4);
  // 16x16 on nodes of 16: a 4x4 block.
  const std::vector<int> big{16, 16};
  EXPECT_EQ(*distopo::plan_node_block(big, std::vector<Periodicity>(2, Periodicity::periodic), 16),
            (std::vector<int>{4, 4}));
}

TEST(CartNodeMapping, NoPlanWhenNodesDoNotFit) {
  const std::vector<int> dims{3, 5};
  const std::vector<Periodicity> periods{Periodicity::open, Periodicity::open};
  EXPECT_FALSE(distopo::plan_node_block(dims, periods, 2).has_value());
  EXPECT_FALSE(distopo::plan_node_block(dims, periods, 0).has_value());
  EXPECT_TRUE(distopo::plan_node_block(dims, periods, 15).has_value());
  EXPECT_TRUE(distopo::plan_node_block(std::vector<int>{}, std::vector<Periodicity>{}, 1).has_value());
}

}  // namespace
