#pragma once
// Refinement of a partition of a held graph (held_graph.hpp) into parts that
// keep their sizes, for the distributed reordering. Part p's coordinator is
// the rank that holds vertex p (parts are numbered below the vertex count).
#include <mpi.h>

#include <vector>

#include "held_graph.hpp"

namespace distopo::detail {

// Up to 16 swap rounds. Each boundary vertex names its best other part; the
// coordinator of the lower part of each pair runs Kernighan-Lin on the
// pair's candidates (gains updated after every swap, the best prefix kept),
// so sizes never change. Pairs run at the same time, each unaware of the
// others' moves, so the round with the lowest cut is the one returned; stops
// after 3 rounds without a lower cut. `part`: of each held vertex.
std::vector<int> refine_by_swaps(MPI_Comm comm, RecordExchange& exchange, const HeldGraph& graph,
                                 std::vector<int> part);

// Up to 32 rounds of pairwise repartitioning. Each round a matching of the
// quotient graph (any two adjacent parts, varied by round) pairs the parts;
// the coordinator of the higher part of each pair sends its members to the
// coordinator of the lower one, which splits the union again
// (partition_exact: METIS, exact sizes, swaps) and keeps the split if it
// cuts less between the two. Pairs are disjoint and edges leaving a pair are
// cut either way, so each kept split lowers the whole cut by exactly what
// its coordinator computed. Stops after 3 rounds without a better split.
// Memory: two parts' lists on a coordinator.
std::vector<int> repartition_pairs(RecordExchange& exchange, const HeldGraph& graph, std::vector<int> part);

}  // namespace distopo::detail
