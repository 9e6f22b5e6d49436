// Every neighborhood collective (5 operations, standard and large-count
// forms; blocking, non-blocking and persistent) under every algorithm,
// forced on each communicator with set_neighbor_info, on every topology of
// neighbor_testing.hpp (Cartesian with MPI_PROC_NULL and periodic size 1 and
// 2, graphs and distributed graphs with repeated edges and self-loops, a
// dense multigraph), with nodes emulated at 2 and 3 ranks per node: the
// receive buffers must equal the direct algorithm's bit for bit, and the
// direct one the independent expected answer. alltoallw uses derived
// datatypes with holes on both sides, so relayed blocks are packed and
// unpacked by MPI, not copied.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <vector>

#include "distopo/core/shared_channel.hpp"
#include "distopo/neighbor/algorithm.hpp"
#include "distopo/neighbor/raw.hpp"
#include "distopo/neighbor/raw_large_count.hpp"
#include "neighbor_testing.hpp"

namespace {

using distopo::testing::Case;

enum class Op { allgather, allgatherv, alltoall, alltoallv, alltoallw };
enum class Form { blocking, nonblocking, persistent };
constexpr int kSentinel = -7;
constexpr Op kOps[] = {Op::allgather, Op::allgatherv, Op::alltoall, Op::alltoallv, Op::alltoallw};
constexpr Form kForms[] = {Form::blocking, Form::nonblocking, Form::persistent};

int value(int sender, int run, int slot, int element) { return sender * 100000 + run * 10000 + slot * 100 + element; }
int block_count(Op op, int sender, int slot) {
  if (op == Op::allgather || op == Op::alltoall) return 2;
  if (op == Op::allgatherv) return 1 + sender % 3;
  return 1 + (sender + 2 * slot) % 3;
}

// One call's buffers. In alltoallw every element sits at an even index
// (stride-2 vectors); other operations are contiguous, with a one-element
// gap after each received block in the v forms.
struct Layout {
  std::vector<int> send, recv, expected;
  std::vector<int> scounts, sdispls, rcounts, rdispls;
  std::vector<MPI_Count> scounts_c, rcounts_c;
  std::vector<MPI_Aint> sdispls_c, rdispls_c, sbytes, rbytes;
  std::vector<MPI_Datatype> stypes, rtypes;
};

class Types {
 public:
  MPI_Datatype strided(int count) {  // `count` ints, every other one
    for (auto& [n, t] : made_) {
      if (n == count) return t;
    }
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Type_vector(count, 1, 2, MPI_INT, &t);
    MPI_Type_commit(&t);
    made_.push_back({count, t});
    return t;
  }
  ~Types() {
    for (auto& [n, t] : made_) MPI_Type_free(&t);
  }

 private:
  std::vector<std::pair<int, MPI_Datatype>> made_;
};

Layout make_layout(const Case& c, Op op, int run, Types& types) {
  Layout l;
  const int me = c.comm.rank();
  const bool gather = op == Op::allgather || op == Op::allgatherv;
  const bool w = op == Op::alltoallw;
  const int stride = w ? 2 : 1;
  const auto out = static_cast<int>(c.out_ranks.size());
  const auto in = static_cast<int>(c.in_ranks.size());
  const int send_blocks = gather ? 1 : out;
  int offset = 0;  // v and w forms: blocks in reverse slot order, so displacements matter
  l.scounts.assign(static_cast<std::size_t>(send_blocks), 0);
  l.sdispls.assign(static_cast<std::size_t>(send_blocks), 0);
  for (int k = send_blocks - 1; k >= 0; --k) {
    const int j = (op == Op::alltoallv || w) ? k : send_blocks - 1 - k;
    l.scounts[static_cast<std::size_t>(j)] = block_count(op, me, j);
    l.sdispls[static_cast<std::size_t>(j)] = offset;
    offset += stride * l.scounts[static_cast<std::size_t>(j)];
  }
  l.send.assign(static_cast<std::size_t>(offset) + 1, kSentinel);
  for (int j = 0; j < send_blocks; ++j) {
    for (int e = 0; e < l.scounts[static_cast<std::size_t>(j)]; ++e) {
      l.send[static_cast<std::size_t>(l.sdispls[static_cast<std::size_t>(j)] + stride * e)] = value(me, run, j, e);
    }
  }
  const bool gaps = op == Op::allgatherv || op == Op::alltoallv || w;
  offset = 0;
  for (int i = 0; i < in; ++i) {
    const int source = c.in_ranks[static_cast<std::size_t>(i)];
    const int from = c.in_from[static_cast<std::size_t>(i)];
    int count = 2;
    if (op == Op::allgatherv) count = source == MPI_PROC_NULL ? 1 : block_count(op, source, 0);
    if (op == Op::alltoallv || w) count = source == MPI_PROC_NULL ? 1 : block_count(op, source, from);
    l.rcounts.push_back(count);
    l.rdispls.push_back(offset);
    offset += stride * count + (gaps ? 1 : 0);
  }
  l.recv.assign(static_cast<std::size_t>(offset) + 1, kSentinel);
  l.expected = l.recv;
  for (int i = 0; i < in; ++i) {
    const int source = c.in_ranks[static_cast<std::size_t>(i)];
    if (source == MPI_PROC_NULL) continue;
    const int slot = gather ? 0 : c.in_from[static_cast<std::size_t>(i)];
    for (int e = 0; e < l.rcounts[static_cast<std::size_t>(i)]; ++e) {
      l.expected[static_cast<std::size_t>(l.rdispls[static_cast<std::size_t>(i)] + stride * e)] =
          value(source, run, slot, e);
    }
  }
  for (int n : l.scounts) l.scounts_c.push_back(n);
  for (int n : l.rcounts) l.rcounts_c.push_back(n);
  for (int d : l.sdispls) {
    l.sdispls_c.push_back(d);
    l.sbytes.push_back(static_cast<MPI_Aint>(d * sizeof(int)));
  }
  for (int d : l.rdispls) {
    l.rdispls_c.push_back(d);
    l.rbytes.push_back(static_cast<MPI_Aint>(d * sizeof(int)));
  }
  if (w) {
    // Strided on both sides, sent as one vector, received as one vector.
    for (std::size_t j = 0; j < l.scounts.size(); ++j) {
      l.stypes.push_back(types.strided(l.scounts[j]));
      l.scounts[j] = 1;
      l.scounts_c[j] = 1;
    }
    for (std::size_t i = 0; i < l.rcounts.size(); ++i) {
      l.rtypes.push_back(types.strided(l.rcounts[i]));
      l.rcounts[i] = 1;
      l.rcounts_c[i] = 1;
    }
  }
  return l;
}

// The operation in the standard (large == false) or large-count form.
distopo::PersistentRequest call(const Case& c, Op op, Form form, bool large, Layout& l, MPI_Request* request) {
  namespace raw = distopo::raw;
  const void* s = l.send.data();
  void* r = l.recv.data();
  MPI_Comm comm = c.comm;
  const int n = 2;
  const int ns = l.scounts.empty() ? 0 : l.scounts[0];
  switch (op) {
    case Op::allgather:
    case Op::alltoall: {
      const bool gather = op == Op::allgather;
      if (large) {
        if (form == Form::persistent)
          return gather ? raw::neighbor_allgather_init_c(s, n, MPI_INT, r, n, MPI_INT, comm)
                        : raw::neighbor_alltoall_init_c(s, n, MPI_INT, r, n, MPI_INT, comm);
        if (form == Form::nonblocking) {
          gather ? raw::ineighbor_allgather_c(s, n, MPI_INT, r, n, MPI_INT, comm, request)
                 : raw::ineighbor_alltoall_c(s, n, MPI_INT, r, n, MPI_INT, comm, request);
        } else {
          gather ? raw::neighbor_allgather_c(s, n, MPI_INT, r, n, MPI_INT, comm)
                 : raw::neighbor_alltoall_c(s, n, MPI_INT, r, n, MPI_INT, comm);
        }
        return {};
      }
      if (form == Form::persistent)
        return gather ? raw::neighbor_allgather_init(s, n, MPI_INT, r, n, MPI_INT, comm)
                      : raw::neighbor_alltoall_init(s, n, MPI_INT, r, n, MPI_INT, comm);
      if (form == Form::nonblocking) {
        gather ? raw::ineighbor_allgather(s, n, MPI_INT, r, n, MPI_INT, comm, request)
               : raw::ineighbor_alltoall(s, n, MPI_INT, r, n, MPI_INT, comm, request);
      } else {
        gather ? raw::neighbor_allgather(s, n, MPI_INT, r, n, MPI_INT, comm)
               : raw::neighbor_alltoall(s, n, MPI_INT, r, n, MPI_INT, comm);
      }
      return {};
    }
    case Op::allgatherv:
      if (large) {
        const MPI_Count* rc = l.rcounts_c.data();
        const MPI_Aint* rd = l.rdispls_c.data();
        if (form == Form::persistent) return raw::neighbor_allgatherv_init_c(s, ns, MPI_INT, r, rc, rd, MPI_INT, comm);
        if (form == Form::nonblocking)
          raw::ineighbor_allgatherv_c(s, ns, MPI_INT, r, rc, rd, MPI_INT, comm, request);
        else
          raw::neighbor_allgatherv_c(s, ns, MPI_INT, r, rc, rd, MPI_INT, comm);
        return {};
      }
      if (form == Form::persistent)
        return raw::neighbor_allgatherv_init(s, ns, MPI_INT, r, l.rcounts.data(), l.rdispls.data(), MPI_INT, comm);
      if (form == Form::nonblocking)
        raw::ineighbor_allgatherv(s, ns, MPI_INT, r, l.rcounts.data(), l.rdispls.data(), MPI_INT, comm, request);
      else
        raw::neighbor_allgatherv(s, ns, MPI_INT, r, l.rcounts.data(), l.rdispls.data(), MPI_INT, comm);
      return {};
    case Op::alltoallv:
      if (large) {
        const MPI_Count *sc = l.scounts_c.data(), *rc = l.rcounts_c.data();
        const MPI_Aint *sd = l.sdispls_c.data(), *rd = l.rdispls_c.data();
        if (form == Form::persistent)
          return raw::neighbor_alltoallv_init_c(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm);
        if (form == Form::nonblocking)
          raw::ineighbor_alltoallv_c(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, request);
        else
          raw::neighbor_alltoallv_c(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm);
        return {};
      } else {
        const int *sc = l.scounts.data(), *rc = l.rcounts.data(), *sd = l.sdispls.data(), *rd = l.rdispls.data();
        if (form == Form::persistent) return raw::neighbor_alltoallv_init(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm);
        if (form == Form::nonblocking)
          raw::ineighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, request);
        else
          raw::neighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm);
        return {};
      }
    case Op::alltoallw: {
      const MPI_Aint *sd = l.sbytes.data(), *rd = l.rbytes.data();
      const MPI_Datatype *st = l.stypes.data(), *rt = l.rtypes.data();
      if (large) {
        const MPI_Count *sc = l.scounts_c.data(), *rc = l.rcounts_c.data();
        if (form == Form::persistent) return raw::neighbor_alltoallw_init_c(s, sc, sd, st, r, rc, rd, rt, comm);
        if (form == Form::nonblocking)
          raw::ineighbor_alltoallw_c(s, sc, sd, st, r, rc, rd, rt, comm, request);
        else
          raw::neighbor_alltoallw_c(s, sc, sd, st, r, rc, rd, rt, comm);
        return {};
      }
      const int *sc = l.scounts.data(), *rc = l.rcounts.data();
      if (form == Form::persistent) return raw::neighbor_alltoallw_init(s, sc, sd, st, r, rc, rd, rt, comm);
      if (form == Form::nonblocking)
        raw::ineighbor_alltoallw(s, sc, sd, st, r, rc, rd, rt, comm, request);
      else
        raw::neighbor_alltoallw(s, sc, sd, st, r, rc, rd, rt, comm);
      return {};
    }
  }
  return {};
}

// The receive buffers of every (operation, form, count kind) in order, two
// runs each (persistent: two starts of one request).
std::vector<std::vector<int>> run_all(const Case& c, const std::string& label) {
  std::vector<std::vector<int>> results;
  Types types;
  for (Op op : kOps) {
    for (Form form : kForms) {
      for (bool large : {false, true}) {
        SCOPED_TRACE(label + " op " + std::to_string(static_cast<int>(op)) + " form " +
                     std::to_string(static_cast<int>(form)) + (large ? " large-count" : ""));
        if (form == Form::persistent) {
          Layout l = make_layout(c, op, 0, types);
          MPI_Request unused = MPI_REQUEST_NULL;
          distopo::PersistentRequest request = call(c, op, form, large, l, &unused);
          for (int run = 0; run < 2; ++run) {
            const Layout fresh = make_layout(c, op, run, types);
            l.send = fresh.send;
            std::fill(l.recv.begin(), l.recv.end(), kSentinel);
            request.start();
            request.wait();
            results.push_back(l.recv);
            EXPECT_EQ(l.recv, fresh.expected);
          }
          continue;
        }
        for (int run = 0; run < 2; ++run) {
          Layout l = make_layout(c, op, run, types);
          MPI_Request request = MPI_REQUEST_NULL;
          (void)call(c, op, form, large, l, &request);
          if (form == Form::nonblocking) {
            EXPECT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
          }
          results.push_back(l.recv);
          EXPECT_EQ(l.recv, l.expected);
        }
      }
    }
  }
  return results;
}

struct Setting {
  const char* algorithm;
  const char* max_bytes;  // nullptr: the default
};

void use(MPI_Comm comm, const Setting& s, int ranks_per_node) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "distopo_neighbor_algorithm", s.algorithm);
  MPI_Info_set(info, "distopo_ranks_per_node", std::to_string(ranks_per_node).c_str());
  MPI_Info_set(info, "distopo_neighbor_aggregate_max_bytes", s.max_bytes ? s.max_bytes : "");
  distopo::set_neighbor_info(comm, info);
  MPI_Info_free(&info);
}

class NeighborAlgorithms : public ::testing::TestWithParam<int> {};

TEST_P(NeighborAlgorithms, EqualDirectBitForBit) {
  const int ranks_per_node = GetParam();
  // aggregated with no limit relays every remote block; with 8 bytes the
  // blocks of 1 int are relayed and the larger ones go direct.
  const Setting aggregated{"aggregated", nullptr}, mixed{"aggregated", "8"}, direct{"direct", nullptr};
  for (const Case& c : distopo::testing::all_cases()) {
    if (c.comm.is_null()) continue;
    SCOPED_TRACE(c.name + " rank " + std::to_string(c.comm.rank()) + ", " + std::to_string(ranks_per_node) +
                 " ranks per node");
    use(c.comm, direct, ranks_per_node);
    const auto expected = run_all(c, "direct");
    EXPECT_EQ(distopo::neighbor_algorithm(c.comm).algorithm, distopo::NeighborAlgorithm::direct);
    for (const Setting& s : {aggregated, mixed}) {
      use(c.comm, s, ranks_per_node);
      const distopo::NeighborAlgorithmChoice choice = distopo::neighbor_algorithm(c.comm);
      EXPECT_EQ(choice.algorithm, distopo::NeighborAlgorithm::aggregated);
      EXPECT_TRUE(choice.emulated_nodes);
      EXPECT_EQ(choice.node_count, (c.comm.size() + ranks_per_node - 1) / ranks_per_node);
      EXPECT_EQ(run_all(c, std::string(s.algorithm) + (s.max_bytes ? s.max_bytes : "")), expected);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EmulatedNodes, NeighborAlgorithms, ::testing::Values(2, 3));

// A sparse pattern over many nodes: on emulated nodes of 2 ranks every rank
// sends one block to one rank of each other node, so a node pair's message
// would carry a block or two; with 4 other nodes per rank (10 ranks) the
// plan gathers two senders per lane (routes.cpp, choose_lanes) and each
// lane's send relay takes its partner's message before sending the pair's.
// Every collective in every form equals the direct algorithm bit for bit;
// fewer nodes keep lanes of one.
TEST(NeighborAlgorithmLanes, GatheredLanesEqualDirect) {
  const int p = distopo::testing::world_size();
  const int nodes = p / 2;
  if (nodes < 2) GTEST_SKIP() << "needs 2 emulated nodes of 2 ranks";
  std::vector<std::vector<int>> out(static_cast<std::size_t>(p)), in(static_cast<std::size_t>(p));
  for (int a = 0; a < 2 * nodes; ++a) {
    for (int n = 0; n < nodes; ++n) {
      if (n == a / 2) continue;
      const int b = 2 * n + (a + n) % 2;
      out[static_cast<std::size_t>(a)].push_back(b);
      in[static_cast<std::size_t>(b)].push_back(a);
    }
  }
  Case c;
  c.name = "one_block_per_node_pair";
  distopo::testing::adopt_adjacency(c, in, out);
  use(c.comm, {"direct", nullptr}, 2);
  const auto expected = run_all(c, "direct");
  use(c.comm, {"aggregated", nullptr}, 2);
  const distopo::NeighborAlgorithmChoice choice = distopo::neighbor_algorithm(c.comm);
  EXPECT_EQ(choice.algorithm, distopo::NeighborAlgorithm::aggregated);
  // (rank, other node) pairs: 4 per rank of the communicator or more.
  const bool gathered = 2 * nodes * (nodes - 1) >= 4 * p;
  EXPECT_EQ(choice.senders_per_lane, gathered ? 2 : 1);
  EXPECT_EQ(run_all(c, "aggregated, lanes"), expected);
}

// Nodes from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), not emulated: run
// with MPICH's MPIR_CVAR_NUM_CLIQUES=k, which splits one machine into k
// nodes, and DISTOPO_TEST_NODES=k (tests/neighbor/CMakeLists.txt); skipped
// otherwise. The plan then exchanges node numbers with the neighbors.
TEST(NeighborAlgorithmNodes, DiscoveredNodesEqualDirect) {
  const char* expected_nodes = std::getenv("DISTOPO_TEST_NODES");
  if (expected_nodes == nullptr) GTEST_SKIP() << "set DISTOPO_TEST_NODES (and MPIR_CVAR_NUM_CLIQUES)";
  for (const Case& c : distopo::testing::all_cases()) {
    if (c.comm.is_null()) continue;
    SCOPED_TRACE(c.name + " rank " + std::to_string(c.comm.rank()));
    const auto with = [&](const char* algorithm) {
      MPI_Info info;
      MPI_Info_create(&info);
      MPI_Info_set(info, "distopo_neighbor_algorithm", algorithm);
      distopo::set_neighbor_info(c.comm, info);
      MPI_Info_free(&info);
    };
    with("direct");
    const auto expected = run_all(c, "direct");
    with("aggregated");
    const distopo::NeighborAlgorithmChoice choice = distopo::neighbor_algorithm(c.comm);
    EXPECT_FALSE(choice.emulated_nodes);
    if (c.comm.size() == distopo::testing::world_size()) {
      EXPECT_EQ(choice.node_count, std::atoi(expected_nodes));
    }
    EXPECT_EQ(run_all(c, "aggregated, discovered nodes"), expected);
  }
}

// Whether auto's persistent form should aggregate on `c` (plan.hpp,
// make_persistent_auto_plan), computed here from MPI_Comm_split_type's nodes
// with arrays of the communicator's size: over all ranks, at least two
// remote blocks per (rank, other node) pair that carries any, or at least
// four such pairs per rank.
bool auto_should_aggregate(const Case& c) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(c.comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int leader = c.comm.rank();
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  std::vector<int> node_of(static_cast<std::size_t>(c.comm.size()));
  MPI_Allgather(&leader, 1, MPI_INT, node_of.data(), 1, MPI_INT, c.comm);
  long long counts[2] = {0, 0};  // remote blocks, (rank, other node) pairs
  std::vector<int> nodes;
  for (int b : c.out_ranks) {
    if (b == MPI_PROC_NULL || node_of[static_cast<std::size_t>(b)] == leader) continue;
    ++counts[0];
    nodes.push_back(node_of[static_cast<std::size_t>(b)]);
  }
  std::sort(nodes.begin(), nodes.end());
  counts[1] = std::unique(nodes.begin(), nodes.end()) - nodes.begin();
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG_LONG, MPI_SUM, c.comm);
  return counts[1] > 0 && (counts[0] >= 2 * counts[1] || counts[1] >= 4LL * c.comm.size());
}

// alltoall of `ints` ints per block, persistent: the algorithm its init chose.
distopo::NeighborAlgorithm persistent_choice(const Case& c, int ints) {
  std::vector<int> send(c.out_ranks.size() * static_cast<std::size_t>(ints) + 1),
      recv(c.in_ranks.size() * static_cast<std::size_t>(ints) + 1);
  const distopo::PersistentRequest request =
      distopo::raw::neighbor_alltoall_init(send.data(), ints, MPI_INT, recv.data(), ints, MPI_INT, c.comm);
  return request.algorithm().algorithm;
}

// auto keeps the direct algorithm on emulated nodes (one machine, where it
// is faster: docs/results/neighbor/) and on a single node, in every form.
TEST(NeighborAlgorithmSelection, AutoIsDirectOnOneMachine) {
  for (const Case& c : distopo::testing::all_cases()) {
    if (c.comm.is_null()) continue;
    use(c.comm, {"auto", nullptr}, 2);
    const distopo::NeighborAlgorithmChoice choice = distopo::neighbor_algorithm(c.comm);
    EXPECT_EQ(choice.setting, distopo::NeighborAlgorithm::automatic);
    EXPECT_EQ(choice.algorithm, distopo::NeighborAlgorithm::direct);
    EXPECT_EQ(persistent_choice(c, 1), distopo::NeighborAlgorithm::direct) << c.name;
  }
}

// Ranks that all run on one host learn it in the agreement a topology
// communicator's first collective makes anyway, and in a later constructor's
// agreement (its lease offer), so auto's persistent plan needs no
// MPI_Comm_split_type there. Where MPICH splits the machine into nodes (the
// discovered-nodes registrations) nothing is learnt: the nodes are found.
TEST(NeighborAlgorithmSelection, OneHostLearntInAgreementsMadeAnyway) {
  const bool machine_split = std::getenv("DISTOPO_TEST_NODES") != nullptr;
  const int expected = machine_split ? 0 : 1;
  MPI_Comm base = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);  // a family of its own, nothing known yet
  const std::vector<int> dims{distopo::testing::world_size()};
  const std::vector<distopo::Periodicity> periods{distopo::Periodicity::periodic};
  const distopo::Comm first = distopo::cart_create(base, dims, periods);
  EXPECT_EQ(distopo::family_node_count(first), 0);
  std::vector<int> send(2, first.rank()), received(2, -1);
  distopo::raw::neighbor_alltoall(send.data(), 1, MPI_INT, received.data(), 1, MPI_INT, first);
  EXPECT_EQ(distopo::family_node_count(first), expected) << "after the first collective's agreement";

  distopo::remember_family_node_count(base, 0);  // forgotten on every rank, so the next constructor must learn it
  const distopo::Comm second = distopo::cart_create(base, dims, periods);
  EXPECT_EQ(distopo::family_node_count(second), expected) << "after the constructor's lease offer";
  if (!machine_split) {
    distopo::PersistentRequest request =
        distopo::raw::neighbor_alltoall_init(send.data(), 1, MPI_INT, received.data(), 1, MPI_INT, second);
    EXPECT_EQ(request.algorithm().algorithm, distopo::NeighborAlgorithm::direct);
  }
  MPI_Comm_free(&base);
}

// Under auto on nodes of MPI_Comm_split_type (the discovered-nodes
// registrations): the forms that are not persistent run direct; a
// persistent init aggregates exactly where the pattern gives enough blocks
// per node pair and its blocks are small, and its results equal the direct
// algorithm's bit for bit.
TEST(NeighborAlgorithmNodes, AutoAggregatesSmallPersistentBlocksWherePatternsMerge) {
  if (std::getenv("DISTOPO_TEST_NODES") == nullptr)
    GTEST_SKIP() << "set DISTOPO_TEST_NODES (and MPIR_CVAR_NUM_CLIQUES)";
  int aggregated_cases = 0;
  for (const Case& c : distopo::testing::all_cases()) {
    if (c.comm.is_null()) continue;
    SCOPED_TRACE(c.name + " rank " + std::to_string(c.comm.rank()));
    const auto with = [&](const char* algorithm, const char* max_bytes) {
      MPI_Info info;
      MPI_Info_create(&info);
      MPI_Info_set(info, "distopo_neighbor_algorithm", algorithm);
      MPI_Info_set(info, "distopo_neighbor_aggregate_max_bytes", max_bytes);
      distopo::set_neighbor_info(c.comm, info);
      MPI_Info_free(&info);
    };
    with("direct", "");
    const auto expected = run_all(c, "direct");
    with("auto", "");
    const bool aggregate = auto_should_aggregate(c);
    aggregated_cases += aggregate ? 1 : 0;
    EXPECT_EQ(distopo::neighbor_algorithm(c.comm).algorithm, distopo::NeighborAlgorithm::direct);
    EXPECT_EQ(persistent_choice(c, 2),
              aggregate ? distopo::NeighborAlgorithm::aggregated : distopo::NeighborAlgorithm::direct);
    // 64 KiB blocks are above auto's relay size: direct.
    EXPECT_EQ(persistent_choice(c, 16384), distopo::NeighborAlgorithm::direct);
    EXPECT_EQ(run_all(c, "auto"), expected);
    // A relay size below every block: direct as well.
    with("auto", "4");
    EXPECT_EQ(persistent_choice(c, 2), distopo::NeighborAlgorithm::direct);
  }
  // Two nodes give some case with enough blocks per node pair (so the path is taken).
  if (distopo::testing::world_size() >= 2) {
    EXPECT_GT(aggregated_cases, 0);
  }
}

// A setting given on some ranks only is MPI_ERR_ARG on every rank, at the
// plan, before anything is sent.
TEST(NeighborAlgorithmSelection, SettingOnOneRankOnlyFailsEverywhere) {
  if (distopo::testing::world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  for (const Case& c : distopo::testing::all_cases()) {
    if (c.comm.is_null() || c.comm.size() < 2) continue;
    use(c.comm, {c.comm.rank() == 0 ? "aggregated" : "direct", nullptr}, 2);
    int error_class = MPI_SUCCESS;
    try {
      (void)distopo::neighbor_algorithm(c.comm);
    } catch (const distopo::Error& e) {
      error_class = e.error_class();
    }
    EXPECT_EQ(error_class, MPI_ERR_ARG) << c.name;
    use(c.comm, {"direct", nullptr}, 2);
    std::vector<int> send(static_cast<std::size_t>(2 * c.out_ranks.size()) + 1), recv(2 * c.in_ranks.size() + 1);
    distopo::raw::neighbor_alltoall(send.data(), 2, MPI_INT, recv.data(), 2, MPI_INT, c.comm);  // usable again
  }
}

}  // namespace
