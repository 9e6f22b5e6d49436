// The distributed reordering (above the gather limit) when one rank runs out
// of memory somewhere inside it: every rank must come back, all with the
// identity or all with one valid mapping, and the next call must give the
// mapping of a run without the failure (no message or channel left behind).
// One chosen allocation on one chosen rank throws std::bad_alloc
// (failing_allocation.hpp); the sweep moves it through the whole
// reordering, on rank 0 (which splits the coarse graph) and on the last rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

#include "distopo/mapping/placement.hpp"
#include "failing_allocation.hpp"
#include "mpi_testing.hpp"

namespace {

using distopo::DistGraphTopology;
using distopo::NodeLayout;
using distopo::detail::Placement;
using distopo::detail::ReorderSettings;
using distopo::testing::world_rank;
using distopo::testing::world_size;

constexpr int kRanksPerNode = 2;

// A weighted ring through the even ranks, then the odd ones: on nodes of
// two consecutive ranks every edge crosses, and a mapping crosses few.
DistGraphTopology own_lists(int rank, int size) {
  std::vector<int> order;
  for (int first : {0, 1}) {
    for (int r = first; r < size; r += 2) order.push_back(r);
  }
  const auto at = std::find(order.begin(), order.end(), rank) - order.begin();
  const auto neighbor = [&](std::ptrdiff_t step) { return order[static_cast<std::size_t>((at + step + size) % size)]; };
  DistGraphTopology own;
  own.weighted = true;
  for (const std::ptrdiff_t step : {-1, 1}) {
    own.sources.push_back(neighbor(step));
    own.source_weights.push_back(3);
    own.destinations.push_back(neighbor(step));
    own.destination_weights.push_back(3);
  }
  return own;
}

NodeLayout emulated_layout(int rank, int size) {
  NodeLayout layout;
  layout.node = rank / kRanksPerNode;
  layout.local_rank = rank % kRanksPerNode;
  layout.node_count = (size + kRanksPerNode - 1) / kRanksPerNode;
  layout.ranks_per_node = size % kRanksPerNode == 0 ? kRanksPerNode : 0;
  layout.emulated = true;
  return layout;
}

struct Outcome {
  bool moved = false;
  std::vector<int> graph_node;  // per rank, when moved
  std::vector<int> host;
};

// One reordering on every rank; allocation `failing` (or none: -1) on rank
// `failing_rank` throws. Returns what every rank got, checked to be one
// outcome: all identity, or all moved with hosts and graph nodes that are
// inverse permutations.
Outcome reorder(int failing_rank, long failing) {
  const int rank = world_rank();
  const int size = world_size();
  const DistGraphTopology own = own_lists(rank, size);
  const NodeLayout layout = emulated_layout(rank, size);
  ReorderSettings settings;
  settings.gather_limit = 1;  // the distributed path
  settings.effort = distopo::detail::PartitionEffort::fast;
  if (rank == failing_rank) distopo::testing::arm_failing_allocation(failing);
  const Placement placement = distopo::detail::place(MPI_COMM_WORLD, own, layout, settings);
  distopo::testing::disarm_failing_allocation();

  int moved = placement.same_order ? 0 : 1;
  int all_moved = 0;
  MPI_Allreduce(&moved, &all_moved, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  int any_moved = 0;
  MPI_Allreduce(&moved, &any_moved, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  EXPECT_EQ(all_moved, any_moved) << "some ranks moved and some kept the identity";
  Outcome outcome;
  if (all_moved == 0) return outcome;
  outcome.moved = true;
  outcome.graph_node.resize(static_cast<std::size_t>(size));
  outcome.host.resize(static_cast<std::size_t>(size));
  MPI_Allgather(&placement.rank, 1, MPI_INT, outcome.graph_node.data(), 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Allgather(&placement.lists_to, 1, MPI_INT, outcome.host.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int p = 0; p < size; ++p) {
    const int v = outcome.graph_node[static_cast<std::size_t>(p)];
    EXPECT_TRUE(v >= 0 && v < size && outcome.host[static_cast<std::size_t>(v)] == p)
        << "process " << p << " hosts graph node " << v << ", whose host is another";
  }
  return outcome;
}

// How many allocations `rank` makes in a reordering (the same every run:
// the reordering's decisions and message contents do not depend on timing).
long allocations_on(int rank) {
  reorder(rank, -1);
  long counted = distopo::testing::allocations_counted();
  MPI_Bcast(&counted, 1, MPI_LONG, rank, MPI_COMM_WORLD);
  return counted;
}

TEST(ReorderOutOfMemory, EveryRankEndsTheSameAndTheNextCallMaps) {
  const Outcome reference = reorder(-1, -1);
  ASSERT_TRUE(reference.moved) << "the permuted ring should be worth moving";
  ASSERT_EQ(reorder(-1, -1).graph_node, reference.graph_node) << "not the same mapping every run";

  for (const int failing_rank : {0, world_size() - 1}) {
    const long count = allocations_on(failing_rank);
    ASSERT_GT(count, 0);
    // The first allocations, then kSpread more spread over the whole reordering.
    constexpr long kFirst = 8;
    constexpr long kSpread = 64;
    const long stride = std::max(1L, count / kSpread);
    int identity_runs = 0;
    for (long failing = 0; failing < count; failing += failing < kFirst ? 1 : stride) {
      const Outcome outcome = reorder(failing_rank, failing);
      int fired = world_rank() == failing_rank && distopo::testing::allocation_failed() ? 1 : 0;
      MPI_Bcast(&fired, 1, MPI_INT, failing_rank, MPI_COMM_WORLD);
      EXPECT_EQ(fired, 1) << "allocation " << failing << " of " << count << " on rank " << failing_rank
                          << " was never made";
      if (!outcome.moved) ++identity_runs;
      // A message or a channel left behind would also derail every later call.
      EXPECT_EQ(reorder(-1, -1).graph_node, reference.graph_node)
          << "after a failure at allocation " << failing << " on rank " << failing_rank;
      if (testing::Test::HasFailure()) return;
    }
    // Most failures end in the identity; some are absorbed (a METIS call that
    // fails falls back to blocks in order) and still map.
    EXPECT_GT(identity_runs, 0);
  }
}

}  // namespace
