#pragma once
// The graphs of the reordering benchmark, whole: graph node v's out-edges
// (neighbor, weight) for every v, the same on every rank for a given family
// and size. Every graph is symmetric (u->v and v->u with the same weight).
//   stencil2d, stencil3d          5- and 7-point stencils, open boundaries,
//                                 on the most balanced grid, natural numbering
//   stencil2d_permuted, ..3d_..   the same, numbered by a random permutation
//   aniso2d                       2-D stencil, x edges weigh 10, y edges 1
//   rgg                           random geometric graph in the unit square,
//                                 about 8 neighbors each, random numbering
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bench {

using Adjacency = std::vector<std::vector<std::pair<int, int>>>;  // by graph node: (neighbor, weight)

const std::vector<std::string>& reorder_family_names();

// Throws std::invalid_argument for an unknown family.
Adjacency make_reorder_graph(const std::string& family, int size, unsigned seed = 2026);

// The crossing weight of the best mapping by rectangular blocks of
// ranks_per_node cells (stencils only; -1 otherwise or when no block shape
// tiles the grid). Counted like the library: every directed edge.
std::int64_t best_block_crossing(const std::string& family, int size, int ranks_per_node);

}  // namespace bench
