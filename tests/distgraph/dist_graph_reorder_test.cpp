// dist_graph_create(_adjacent) with reorder = true on emulated machine nodes:
// graph node v is rank v of the result with v's lists, the crossing weight is
// never above the identity's and reaches the best block mapping on grids,
// neighbor collectives pair correctly, and the mapping is the same every run.
// The grids are numbered by a random permutation, so the identity is poor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "dist_graph_testing.hpp"
#include "distopo/cart.hpp"
#include "distopo/distgraph.hpp"
#include "distopo/neighbor.hpp"

namespace {

using distopo::Comm;
using namespace distopo::testing;

// A px x py 5-point grid (open boundaries); graph node perm[c] sits at cell c.
// x edges weigh 10 and y edges 1 when weighted.
class PermutedGrid {
 public:
  explicit PermutedGrid(int size) : dims_(distopo::dims_create(size, 2)), cell_of_(static_cast<std::size_t>(size)) {
    node_of_.resize(static_cast<std::size_t>(size));
    std::iota(node_of_.begin(), node_of_.end(), 0);
    std::mt19937 generator(20261123);
    std::shuffle(node_of_.begin(), node_of_.end(), generator);
    for (int c = 0; c < size; ++c) cell_of_[static_cast<std::size_t>(node_of_[static_cast<std::size_t>(c)])] = c;
  }

  // Graph node v's neighbors and weights, in order of direction.
  [[nodiscard]] WeightedList neighbors(int v) const {
    const int c = cell_of_[static_cast<std::size_t>(v)];
    const int x = c / dims_[1];
    const int y = c % dims_[1];
    WeightedList list;
    const auto add = [&](int nx, int ny, int weight) {
      if (nx >= 0 && nx < dims_[0] && ny >= 0 && ny < dims_[1]) {
        list.emplace_back(node_of_[static_cast<std::size_t>(nx * dims_[1] + ny)], weight);
      }
    };
    add(x - 1, y, 10);
    add(x + 1, y, 10);
    add(x, y - 1, 1);
    add(x, y + 1, 1);
    return list;
  }

  // The least crossing weight of a mapping by rectangular blocks of k cells,
  // or -1 when no block shape tiles the grid.
  [[nodiscard]] std::int64_t best_block_cut(int k, bool weighted) const {
    std::int64_t best = -1;
    for (int bx = 1; bx <= k; ++bx) {
      if (k % bx != 0 || dims_[0] % bx != 0 || dims_[1] % (k / bx) != 0) continue;
      const int by = k / bx;
      std::int64_t cut = 0;
      for (int v = 0; v < static_cast<int>(cell_of_.size()); ++v) {
        for (const auto& [u, w] : neighbors(v)) {
          const int cv = cell_of_[static_cast<std::size_t>(v)];
          const int cu = cell_of_[static_cast<std::size_t>(u)];
          const bool same = cv / dims_[1] / bx == cu / dims_[1] / bx && cv % dims_[1] / by == cu % dims_[1] / by;
          if (!same) cut += weighted ? w : 1;
        }
      }
      if (best < 0 || cut < best) best = cut;
    }
    return best;
  }

 private:
  std::vector<int> dims_;
  std::vector<int> cell_of_;  // by graph node
  std::vector<int> node_of_;  // by cell
};

// Emulated nodes of `ranks_per_node`; gather_limit 0: the library's default.
InfoHandle reorder_info(int ranks_per_node, int gather_limit = 0) {
  const std::string per_node = std::to_string(ranks_per_node);
  if (gather_limit == 0) return InfoHandle({{"distopo_ranks_per_node", per_node.c_str()}});
  const std::string limit = std::to_string(gather_limit);
  return InfoHandle({{"distopo_ranks_per_node", per_node.c_str()}, {"distopo_reorder_gather_limit", limit.c_str()}});
}

enum class Given { adjacent, scattered };

// Below the gather limit rank 0 partitions the whole graph; above it the
// multilevel mapping runs distributed (a limit of 1 edge forces it).
enum class Path { gathered, distributed };

struct Case {
  int ranks_per_node;
  bool weighted;
  Given given;
  Path path = Path::gathered;
};

std::string name(const Case& c) {
  return "k=" + std::to_string(c.ranks_per_node) + (c.weighted ? " weighted" : " unweighted") +
         (c.given == Given::adjacent ? " adjacent" : " scattered") +
         (c.path == Path::gathered ? " gathered" : " distributed");
}

// Rank r gives graph node r's lists (adjacent) or the out-edges of graph node
// r + 1 (scattered: every edge named by another rank than its source).
Comm create(const PermutedGrid& grid, const Case& c, MPI_Info info) {
  const int rank = world_rank();
  const int size = world_size();
  const distopo::DistGraphOptions options{.weighted = c.weighted, .reorder = true, .info = info};
  if (c.given == Given::adjacent) {
    std::vector<int> ranks;
    std::vector<int> weights;
    for (const auto& [u, w] : grid.neighbors(rank)) ranks.push_back(u), weights.push_back(w);
    return distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, ranks, weights, ranks, weights, options);
  }
  const int source = (rank + 1) % size;
  std::vector<int> destinations;
  std::vector<int> weights;
  for (const auto& [u, w] : grid.neighbors(source)) destinations.push_back(u), weights.push_back(w);
  const int degree = static_cast<int>(destinations.size());
  return distopo::dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, destinations.data(),
                                    c.weighted ? weights.data() : MPI_UNWEIGHTED, options);
}

// Crossing weight when graph node v runs on machine node node_of[v].
std::int64_t crossing(const PermutedGrid& grid, const std::vector<int>& node_of, bool weighted) {
  std::int64_t cut = 0;
  for (int v = 0; v < static_cast<int>(node_of.size()); ++v) {
    for (const auto& [u, w] : grid.neighbors(v)) {
      if (node_of[static_cast<std::size_t>(v)] != node_of[static_cast<std::size_t>(u)]) cut += weighted ? w : 1;
    }
  }
  return cut;
}

void check_case(const Case& c) {
  SCOPED_TRACE(name(c));
  const int rank = world_rank();
  const int size = world_size();
  const PermutedGrid grid(size);
  const InfoHandle info = reorder_info(c.ranks_per_node, c.path == Path::distributed ? 1 : 0);
  const Comm result = create(grid, c, info.get());
  const int v = result.rank();  // the graph node this process hosts

  // v's lists, whichever process had them before.
  const Lists lists = distopo_lists(result);
  WeightedList expected = grid.neighbors(v);
  if (!c.weighted) {
    for (auto& entry : expected) entry.second = 1;
  }
  EXPECT_EQ(sorted(lists.in), sorted(expected));
  EXPECT_EQ(sorted(lists.out), sorted(expected));

  // Machine node of every graph node: its process's emulated node.
  const int my_node = rank / c.ranks_per_node;
  std::vector<int> node_of(static_cast<std::size_t>(size));
  MPI_Allgather(&my_node, 1, MPI_INT, node_of.data(), 1, MPI_INT, result);
  std::vector<int> identity(static_cast<std::size_t>(size));
  for (int u = 0; u < size; ++u) identity[static_cast<std::size_t>(u)] = u / c.ranks_per_node;
  const std::int64_t mapped = crossing(grid, node_of, c.weighted);
  EXPECT_LE(mapped, crossing(grid, identity, c.weighted));
  // The gathered path partitions the whole graph: the best block mapping or
  // better. The distributed one: the target, 1.15x.
  if (const std::int64_t block = grid.best_block_cut(c.ranks_per_node, c.weighted); block >= 0) {
    if (c.path == Path::gathered) {
      EXPECT_LE(mapped, block);
    } else {
      EXPECT_LE(static_cast<double>(mapped), 1.15 * static_cast<double>(block));
    }
  }

  // A neighbor collective pairs every slot with its source.
  std::vector<int> send(lists.out.size(), v);
  std::vector<int> received(lists.in.size(), -1);
  distopo::neighbor_alltoall(result, send, received);
  for (std::size_t j = 0; j < lists.in.size(); ++j) EXPECT_EQ(received[j], lists.in[j].first) << "slot " << j;

  // Same input, same mapping.
  const Comm again = create(grid, c, info.get());
  EXPECT_EQ(again.rank(), v);
}

TEST(DistGraphReorder, PermutedGridsOnEmulatedNodes) {
  for (const int k : {2, 4}) {
    for (const bool weighted : {false, true}) {
      for (const Given given : {Given::adjacent, Given::scattered}) check_case({k, weighted, given});
    }
  }
}

TEST(DistGraphReorder, PermutedGridsDistributedMapping) {
  for (const int k : {2, 4}) {
    for (const bool weighted : {false, true}) {
      for (const Given given : {Given::adjacent, Given::scattered}) check_case({k, weighted, given, Path::distributed});
    }
  }
}

TEST(DistGraphReorder, OneNodeKeepsTheRanks) {
  const PermutedGrid grid(world_size());
  const InfoHandle info = reorder_info(world_size());
  const Comm result = create(grid, {world_size(), true, Given::adjacent}, info.get());
  EXPECT_EQ(result.rank(), world_rank());
}

}  // namespace
