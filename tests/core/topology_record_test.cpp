// The topology record: dup carries it, free releases it, other communicators
// do not see it.
#include <gtest/gtest.h>

#include <vector>

#include "distopo/distgraph.hpp"
#include "mpi_testing.hpp"

namespace {

using distopo::Comm;
using distopo::Edge;
using distopo::TopologyKind;
using namespace distopo::testing;

Comm ring() {
  const int size = world_size();
  const int rank = world_rank();
  std::vector<Edge> edges = {{rank, (rank + 1) % size, 4}};
  return distopo::dist_graph_create(MPI_COMM_WORLD, edges);
}

TEST(TopologyRecord, DupCarriesTheRecordAndOutlivesTheOriginal) {
  const int size = world_size();
  const int rank = world_rank();
  MPI_Comm copy = MPI_COMM_NULL;
  {
    Comm graph = ring();
    ASSERT_EQ(MPI_Comm_dup(graph, &copy), MPI_SUCCESS);
  }  // original freed here
  EXPECT_EQ(distopo::topo_test(copy), TopologyKind::dist_graph);
  const auto& n = distopo::dist_graph_neighbors(copy);
  EXPECT_EQ(n.sources, std::vector<int>{(rank + size - 1) % size});
  EXPECT_EQ(n.source_weights, std::vector<int>{4});
  MPI_Comm second = MPI_COMM_NULL;
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  ASSERT_EQ(MPI_Comm_dup_with_info(copy, info, &second), MPI_SUCCESS);
  MPI_Info_free(&info);
  EXPECT_EQ(distopo::topo_test(second), TopologyKind::dist_graph);
  MPI_Comm_free(&second);
  MPI_Comm_free(&copy);
}

TEST(TopologyRecord, IdupCarriesTheRecord) {
  Comm graph = ring();
  MPI_Comm copy = MPI_COMM_NULL;
  MPI_Request request = MPI_REQUEST_NULL;
  ASSERT_EQ(MPI_Comm_idup(graph, &copy, &request), MPI_SUCCESS);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  EXPECT_EQ(distopo::topo_test(copy), TopologyKind::dist_graph);
  MPI_Comm_free(&copy);
}

TEST(TopologyRecord, OtherCommunicatorsHaveNone) {
  EXPECT_EQ(distopo::topo_test(MPI_COMM_WORLD), TopologyKind::undefined);
  EXPECT_EQ(distopo::topo_test(MPI_COMM_SELF), TopologyKind::undefined);
  Comm graph = ring();
  MPI_Comm split = MPI_COMM_NULL;
  MPI_Comm_split(graph, 0, 0, &split);  // split does not carry topologies
  EXPECT_EQ(distopo::topo_test(split), TopologyKind::undefined);
  MPI_Comm_free(&split);
}

TEST(TopologyRecord, CommHandleIsMovableAndNullable) {
  Comm empty;
  EXPECT_TRUE(empty.is_null());
  EXPECT_FALSE(static_cast<bool>(empty));
  Comm graph = ring();
  Comm moved = std::move(graph);
  EXPECT_TRUE(graph.is_null());  // NOLINT(bugprone-use-after-move): documented moved-from state
  EXPECT_FALSE(moved.is_null());
  MPI_Comm raw = moved.release();
  EXPECT_TRUE(moved.is_null());
  EXPECT_EQ(distopo::topo_test(raw), TopologyKind::dist_graph);
  MPI_Comm_free(&raw);
}

TEST(TopologyRecord, CreateOnATopologyCommunicatorReplacesIt) {
  Comm first = ring();
  const int rank = world_rank();
  std::vector<Edge> self_loop = {{rank, rank, 9}};
  Comm second = distopo::dist_graph_create(first, self_loop);
  EXPECT_EQ(distopo::dist_graph_neighbors(second).sources, std::vector<int>{rank});
  EXPECT_EQ(distopo::dist_graph_neighbors(first).source_weights, std::vector<int>{4});
}

// The private channel is cached on the input communicator: on MPI_COMM_SELF
// it is released inside MPI_Finalize, on a user communicator by its free.
TEST(PrivateChannel, CreatesOnSelfAndOnShortLivedCommunicators) {
  const int rank = world_rank();
  std::vector<Edge> self_loop = {{0, 0, 1}};
  Comm on_self = distopo::dist_graph_create(MPI_COMM_SELF, self_loop);
  EXPECT_EQ(distopo::dist_graph_neighbors(on_self).sources, std::vector<int>{0});
  for (int round = 0; round < 5; ++round) {
    MPI_Comm user = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &user);
    std::vector<Edge> edges = {{rank, rank, round}};
    Comm graph = distopo::dist_graph_create(user, edges);
    Comm again = distopo::dist_graph_create(user, edges);
    MPI_Comm_free(&user);  // frees the cached channel; results stay valid
    EXPECT_EQ(distopo::dist_graph_neighbors(graph).source_weights, std::vector<int>{round});
    EXPECT_EQ(distopo::dist_graph_neighbors(again).source_weights, std::vector<int>{round});
  }
}

}  // namespace
