#pragma once
// Node-aware Cartesian mapping (Gropp, "Using node information to implement
// MPI Cartesian topologies", EuroMPI'18). The grid is factored into a node
// grid times an intra-node block, dims[i] = node_dims[i] * inner[i] with
// prod(inner) = ranks per node; local index l on node n gets the coordinates
// node_coord(n) * inner + inner_coord(l) (both row-major). Pure functions:
// cart_create/cart_map use them after node discovery, tests and benchmarks
// call them directly.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "distopo/core/grid.hpp"      // grid_rank, grid_coords
#include "distopo/core/topology.hpp"  // Periodicity

namespace distopo {

// The intra-node block for nodes of `ranks_per_node` ranks: inner[i] divides
// dims[i], the product is ranks_per_node, and the number of stencil
// neighbor relations (+-1 along each dimension) that cross nodes is minimal.
// nullopt when no such block exists (e.g. ranks_per_node does not divide the
// grid size). Deterministic.
std::optional<std::vector<int>> plan_node_block(std::span<const int> dims, std::span<const Periodicity> periods,
                                                int ranks_per_node);

// Neighbor relations (+-1 along each dimension, both directions counted,
// nothing past an open end) that cross nodes when every node holds an
// inner-shaped block. The quantity plan_node_block minimizes.
std::int64_t block_cut(std::span<const int> dims, std::span<const Periodicity> periods, std::span<const int> inner);

// Grid rank of local index `local` on node `node` under the block `inner`.
int node_block_rank(std::span<const int> dims, std::span<const int> inner, int node, int local);

}  // namespace distopo
