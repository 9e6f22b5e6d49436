#pragma once
// Refinement of a partition of a held graph (held_graph.hpp) into parts that
// keep their sizes, for the distributed reordering. Part p's coordinator is
// the rank that holds vertex p (parts are numbered below the vertex count).
#include <vector>

#include "exact_partition.hpp"
#include "held_graph.hpp"

namespace distopo::detail {

// Up to 16 swap rounds. Each boundary vertex names its best other part; the
// coordinator of the lower part of each pair runs Kernighan-Lin on the
// pair's candidates (gains updated after every swap, the best prefix kept),
// so sizes never change. Pairs run at the same time, each unaware of the
// others' moves, so the round with the lowest cut is the one returned; stops
// after 3 rounds without a lower cut. `part`: of each held vertex.
std::vector<int> refine_by_swaps(RecordExchange& exchange, const HeldGraph& graph, std::vector<int> part);

// Up to 64 rounds of group repartitioning. Each round the parts are grouped
// by three matchings of the quotient graph (each contracted; any two
// adjacent parts, varied by round): groups of up to 8 adjacent parts. Every
// part's coordinator sends its members to the coordinator of its group's
// lowest part, which splits the union again (partition_exact with `effort`:
// METIS, exact sizes, swaps) and keeps the split if it cuts less inside the
// group. Groups are disjoint and edges leaving a group are cut either way,
// so each kept split lowers the whole cut by exactly what its coordinator
// computed. Stops after 3 rounds without a better split. Memory: a group's
// lists on its coordinator (8 parts, independent of P).
std::vector<int> repartition_groups(RecordExchange& exchange, const HeldGraph& graph, std::vector<int> part,
                                    PartitionEffort effort);

}  // namespace distopo::detail
