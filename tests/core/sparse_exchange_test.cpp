#include "distopo/core/sparse_exchange.hpp"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <map>
#include <new>
#include <numeric>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "distopo/core/comm.hpp"
#include "distopo/core/node_layout.hpp"
#include "distopo/core/runtime.hpp"
#include "mpi_testing.hpp"

namespace {

using distopo::Comm;
using distopo::OutgoingMessage;
using distopo::testing::InfoHandle;
using distopo::testing::world_rank;
using distopo::testing::world_size;

// Back-to-back exchanges alternate between two communicators (the rule in
// sparse_exchange.hpp).
std::array<Comm, 2> alternating_communicators() {
  return {distopo::private_copy(MPI_COMM_WORLD), distopo::private_copy(MPI_COMM_WORLD)};
}

struct Received {
  std::map<int, std::vector<int>> by_source;
};

Received run_exchange(MPI_Comm comm, const std::map<int, std::vector<int>>& to_send, std::span<int> agreement = {}) {
  std::vector<OutgoingMessage<int>> messages;
  for (const auto& [destination, payload] : to_send) messages.push_back({destination, payload});
  Received received;
  distopo::sparse_exchange<int>(
      comm, messages,
      [&](int source, std::span<const int> data) {
        EXPECT_EQ(received.by_source.count(source), 0U) << "two messages from " << source;
        received.by_source[source].assign(data.begin(), data.end());
      },
      agreement, distopo::exchange_route(comm));
  return received;
}

TEST(SparseExchange, NoMessagesAnywhere) {
  auto comm = distopo::private_copy(MPI_COMM_WORLD);
  EXPECT_TRUE(run_exchange(comm, {}).by_source.empty());
}

TEST(SparseExchange, MessageToSelfOnly) {
  auto comm = distopo::private_copy(MPI_COMM_WORLD);
  const int rank = comm.rank();
  const auto received = run_exchange(comm, {{rank, {rank, 7}}});
  ASSERT_EQ(received.by_source.size(), 1U);
  EXPECT_EQ(received.by_source.at(rank), (std::vector<int>{rank, 7}));
}

TEST(SparseExchange, RingBothWaysWithEmptyPayloads) {
  auto comm = distopo::private_copy(MPI_COMM_WORLD);
  const int rank = comm.rank();
  const int size = comm.size();
  const int next = (rank + 1) % size;
  const int prev = (rank + size - 1) % size;
  std::map<int, std::vector<int>> to_send;
  to_send[next].push_back(rank);
  to_send[prev];  // empty message: must still arrive (as empty)
  if (next == prev) to_send[next] = {rank};
  const auto received = run_exchange(comm, to_send);
  EXPECT_EQ(received.by_source.count(prev), 1U);
  EXPECT_EQ(received.by_source.count(next), 1U);
  if (size > 2) {
    EXPECT_EQ(received.by_source.at(prev), std::vector<int>{prev});
    EXPECT_TRUE(received.by_source.at(next).empty());
  }
}

TEST(SparseExchange, EveryoneToRankZeroAndAgreement) {
  auto comm = distopo::private_copy(MPI_COMM_WORLD);
  const int rank = comm.rank();
  const int size = comm.size();
  std::vector<int> flags{rank, size - rank};
  const auto received = run_exchange(comm, {{0, std::vector<int>(static_cast<std::size_t>(rank) * 1000, rank)}}, flags);
  EXPECT_EQ(flags[0], size - 1);  // MPI_MAX of rank
  EXPECT_EQ(flags[1], size);
  if (rank == 0) {
    ASSERT_EQ(received.by_source.size(), static_cast<std::size_t>(size));
    for (const auto& [source, data] : received.by_source) {
      EXPECT_EQ(data.size(), static_cast<std::size_t>(source) * 1000);
    }
  } else {
    EXPECT_TRUE(received.by_source.empty());
  }
}

// The documented rule: back-to-back exchanges alternate two communicators.
// Each round goes to a different peer, so a fast rank's next-round message
// would be caught by a slow rank still in this round on a shared one.
TEST(SparseExchange, RepeatedExchangesOnAlternatingCommunicatorsDoNotMix) {
  const auto comms = alternating_communicators();
  const int rank = world_rank();
  const int size = world_size();
  for (int round = 0; round < 50; ++round) {
    const int target = (rank + round) % size;
    const auto received = run_exchange(comms[round % 2], {{target, {round, rank}}});
    for (const auto& [source, data] : received.by_source) {
      ASSERT_EQ(data.size(), 2U);
      EXPECT_EQ(data[0], round) << "message of another round arrived";
      EXPECT_EQ(data[1], source);
    }
    const int expected_source = ((rank - round) % size + size) % size;
    EXPECT_EQ(received.by_source.count(expected_source), 1U);
  }
}

// The agreement is a max-reduction by dissemination (round j at offset 2^j
// mod P): every rank in turn holds the unique maximum, back to back, at every
// P (at 3 ranks the last round wraps around).
TEST(SparseExchange, AgreementMaximumFromEveryRankBackToBack) {
  const auto comms = alternating_communicators();
  const int rank = world_rank();
  const int size = world_size();
  for (int round = 0; round < 3 * size; ++round) {
    const int holder = round % size;
    std::vector<int> values{rank == holder ? 1000 + round : round, -rank, 0};
    run_exchange(comms[round % 2], {}, values);
    EXPECT_EQ(values[0], 1000 + round) << "round " << round << ", maximum held by rank " << holder;
    EXPECT_EQ(values[1], 0);
    EXPECT_EQ(values[2], 0);
  }
}

// Agreement messages reach a rank before it enters the agreement (its partners
// have no messages, it is still waiting for acknowledgements, or has not even
// started): they are kept until it gets there.
TEST(SparseExchange, LateRankGetsAgreementMessagesThatArrivedEarly) {
  const auto comms = alternating_communicators();
  const int rank = world_rank();
  const int size = world_size();
  for (int round = 0; round < 4; ++round) {
    const int late = round % size;
    if (rank == late) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::vector<int> flags{rank == late ? 5 : 0};
    // Only the late rank sends: to everyone else, so all of them must wait for it.
    std::map<int, std::vector<int>> to_send;
    if (rank == late) {
      for (int d = 0; d < size; ++d) {
        if (d != late) to_send[d] = {round};
      }
    }
    const auto received = run_exchange(comms[round % 2], to_send, flags);
    EXPECT_EQ(flags[0], 5);
    if (rank != late) {
      ASSERT_EQ(received.by_source.count(late), 1U);
      EXPECT_EQ(received.by_source.at(late), std::vector<int>{round});
    }
    EXPECT_EQ(received.by_source.size(), rank == late ? 0U : 1U);
  }
}

TEST(SparseExchange, ReceiverChoosesPlacement) {
  auto comm = distopo::private_copy(MPI_COMM_WORLD);
  const int rank = comm.rank();
  const int size = comm.size();
  std::vector<std::vector<long>> payloads(static_cast<std::size_t>(size));
  std::vector<OutgoingMessage<long>> messages;
  for (int d = 0; d < size; ++d) {
    payloads[static_cast<std::size_t>(d)].assign(static_cast<std::size_t>(d + 1), rank);
    messages.push_back({d, payloads[static_cast<std::size_t>(d)]});
  }
  std::vector<long> all;
  distopo::sparse_exchange_into<long>(
      comm, messages,
      [&](int, int count) {
        const auto old = all.size();
        all.resize(old + static_cast<std::size_t>(count));
        return all.data() + old;
      },
      {}, {}, distopo::exchange_route(comm));
  EXPECT_EQ(all.size(), static_cast<std::size_t>(size) * static_cast<std::size_t>(rank + 1));
  const long sum = std::accumulate(all.begin(), all.end(), 0L);
  EXPECT_EQ(sum, static_cast<long>(rank + 1) * size * (size - 1) / 2);
}

// A receiver rejects every message from an odd rank; each odd sender learns
// it (with the rejecting destination) before it joins the agreement, and the
// agreement then tells every rank in the same round.
TEST(SparseExchange, ReceiverVerdictsReachSendersAndAgreement) {
  auto comm = distopo::private_copy(MPI_COMM_WORLD);
  const int rank = comm.rank();
  const int size = comm.size();
  const int target = (rank + 1) % size;
  std::vector<int> payload{rank};
  std::vector<OutgoingMessage<int>> messages{{target, payload}};
  std::vector<int> received;
  std::vector<int> rejected_by;
  std::vector<int> flags{0};
  const distopo::ExchangeVerdicts verdicts{.accept = [](int source, int, int) { return source % 2 == 1 ? 7 : 0; },
                                           .on_rejected =
                                               [&](int destination, int verdict) {
                                                 EXPECT_EQ(verdict, 7);
                                                 rejected_by.push_back(destination);
                                                 flags[0] = 1;
                                               }};
  distopo::sparse_exchange_into<int>(
      comm, messages,
      [&](int, int count) {
        received.resize(received.size() + static_cast<std::size_t>(count));
        return received.data() + received.size() - static_cast<std::size_t>(count);
      },
      flags, verdicts, distopo::exchange_route(comm));
  if (rank % 2 == 1) {
    EXPECT_EQ(rejected_by, std::vector<int>{target});
  } else {
    EXPECT_TRUE(rejected_by.empty());
  }
  EXPECT_EQ(flags[0], size > 1 ? 1 : 0) << "agreement must carry the rejection to every rank";
  EXPECT_EQ(received, std::vector<int>{(rank + size - 1) % size});
}

// Every rank to every rank, messages of every kind (some empty) in the order
// kinds and destinations interleave: each arrives once, whole, with its kind.
TEST(SparseExchange, EveryRankToEveryRankWithKinds) {
  auto comm = distopo::private_copy(MPI_COMM_WORLD);
  const int rank = comm.rank();
  const int size = comm.size();
  std::vector<std::vector<int>> payloads;
  std::vector<OutgoingMessage<int>> messages;
  payloads.reserve(static_cast<std::size_t>(size) * 2);
  for (int d = 0; d < size; ++d) {
    for (int kind : {(rank + d) % (distopo::kMaxMessageKinds - 1), distopo::kMaxMessageKinds - 1}) {
      const int length = (rank * 7 + d * 3 + kind) % 5;  // 0 to 4 ints
      payloads.emplace_back();
      for (int i = 0; i < length; ++i) payloads.back().push_back(1000000 * rank + 1000 * d + 10 * kind + i);
      messages.push_back({d, payloads.back(), kind});
    }
  }
  std::map<std::pair<int, int>, std::vector<int>> received;  // (source, kind)
  std::vector<int> landing;
  distopo::sparse_exchange_into<int>(
      comm, messages,
      [&](int source, int kind, int count) {
        std::vector<int>& into = received[{source, kind}];
        EXPECT_TRUE(into.empty()) << "two messages of kind " << kind << " from " << source;
        into.resize(static_cast<std::size_t>(count));
        return into.data();
      },
      {}, {}, distopo::exchange_route(comm));
  for (int s = 0; s < size; ++s) {
    for (int kind : {(s + rank) % (distopo::kMaxMessageKinds - 1), distopo::kMaxMessageKinds - 1}) {
      const int length = (s * 7 + rank * 3 + kind) % 5;
      std::vector<int> expected;
      for (int i = 0; i < length; ++i) expected.push_back(1000000 * s + 1000 * rank + 10 * kind + i);
      const auto it = received.find({s, kind});
      if (length == 0 && it == received.end()) continue;  // an empty message placed nowhere
      ASSERT_NE(it, received.end()) << "nothing of kind " << kind << " from " << s;
      EXPECT_EQ(it->second, expected) << "kind " << kind << " from " << s;
    }
  }
}

// Rank 0 has no room for the last rank's message: every rank throws the same
// DroppedMessages, naming rank 0, after the round (whichever route it took).
TEST(SparseExchange, ReceiverWithoutRoomEndsTheRoundTheSameOnEveryRank) {
  auto comm = distopo::private_copy(MPI_COMM_WORLD);
  const int rank = comm.rank();
  const int size = comm.size();
  std::vector<int> payload(3, rank);
  std::vector<OutgoingMessage<int>> messages{{0, payload}};
  std::vector<int> landing(3);
  std::string message;
  try {
    distopo::sparse_exchange_into<int>(
        comm, messages,
        [&](int source, int) -> int* {
          if (source == size - 1) throw std::bad_alloc();
          return landing.data();
        },
        {}, {}, distopo::exchange_route(comm));
  } catch (const distopo::DroppedMessages& error) {
    message = error.what();
  }
  EXPECT_NE(message.find("rank 0: out of memory"), std::string::npos) << "rank " << rank << " got: " << message;
}

// Odd ranks take the node-aware route (gathering everything for other nodes
// of 2 ranks), even ranks the direct one: every rank gets the same
// MPI_ERR_ARG after the round, none waits for the others.
TEST(SparseExchange, RanksGivenDifferentRoutesAllFailTheSame) {
  auto comm = distopo::private_copy(MPI_COMM_WORLD);
  auto relay = distopo::private_copy(MPI_COMM_WORLD);
  const int rank = comm.rank();
  const int size = comm.size();
  if (size < 3) GTEST_SKIP() << "needs 2 nodes of 2 ranks";
  distopo::ExchangeRoute route;
  if (rank % 2 == 1) {
    route.ranks_per_node = 2;
    route.gather_min = 1;
    route.relay_channel = [&] { return relay.get(); };
  }
  std::vector<std::vector<int>> payloads(static_cast<std::size_t>(size));
  std::vector<OutgoingMessage<int>> messages;
  for (int d = 0; d < size; ++d) {
    payloads[static_cast<std::size_t>(d)] = {rank, d};
    messages.push_back({d, payloads[static_cast<std::size_t>(d)]});
  }
  std::vector<int> landing;
  int error_class = MPI_SUCCESS;
  try {
    distopo::sparse_exchange_into<int>(
        comm, messages,
        [&](int, int count) {
          landing.resize(landing.size() + static_cast<std::size_t>(count));
          return landing.data() + landing.size() - static_cast<std::size_t>(count);
        },
        {}, {}, route);
  } catch (const distopo::Error& error) {
    error_class = error.error_class();
  }
  EXPECT_EQ(error_class, MPI_ERR_ARG);
}

// The info keys win over the environment; an unknown value is MPI_ERR_ARG
// (on this rank: dist_graph_create turns it into every rank's error).
TEST(SparseExchange, RouteFromTheInfoKeys) {
  auto comm = distopo::private_copy(MPI_COMM_WORLD);
  const InfoHandle node_aware({{distopo::kExchangeInfoKey, "node_aware"},
                               {distopo::kRanksPerNodeInfoKey, "2"},
                               {distopo::kGatherMinInfoKey, "3"}});
  const distopo::ExchangeRoute route = distopo::exchange_route(comm, node_aware.get());
  EXPECT_EQ(route.node_aware(), comm.size() > 2);
  EXPECT_FALSE(route.find_nodes);
  if (route.node_aware()) {
    EXPECT_EQ(route.ranks_per_node, 2);
    EXPECT_EQ(route.gather_min, 3U);
    EXPECT_TRUE(route.relay_channel);
  }
  const InfoHandle direct({{distopo::kExchangeInfoKey, "direct"}, {distopo::kRanksPerNodeInfoKey, "2"}});
  EXPECT_FALSE(distopo::exchange_route(comm, direct.get()).node_aware());
  const InfoHandle unknown({{distopo::kExchangeInfoKey, "sideways"}});
  int error_class = MPI_SUCCESS;
  try {
    (void)distopo::exchange_route(comm, unknown.get());
  } catch (const distopo::Error& error) {
    error_class = error.error_class();
  }
  EXPECT_EQ(error_class, MPI_ERR_ARG);
}

// Node-aware without declared nodes: the first exchange on a channel goes
// direct and then finds the nodes (every rank asked), so the next one knows
// them; on this machine all ranks are one node, which is the direct route.
TEST(SparseExchange, NodesToBeFoundAreFoundByTheFirstExchange) {
  if (std::getenv(distopo::kRanksPerNodeEnv) != nullptr) GTEST_SKIP() << "nodes declared in the environment";
  auto comm = distopo::private_copy(MPI_COMM_WORLD);
  const int rank = comm.rank();
  const int size = comm.size();
  const InfoHandle node_aware({{distopo::kExchangeInfoKey, "node_aware"}});
  const distopo::ExchangeRoute first = distopo::exchange_route(comm, node_aware.get());
  EXPECT_TRUE(first.find_nodes);
  EXPECT_FALSE(first.node_aware());
  std::vector<int> payload = {rank};
  const std::vector<OutgoingMessage<int>> messages = {{(rank + 1) % size, payload}};
  std::vector<int> landing;
  distopo::sparse_exchange_into<int>(
      comm, messages,
      [&](int, int count) {
        landing.resize(static_cast<std::size_t>(count));
        return landing.data();
      },
      {}, {}, first);
  EXPECT_EQ(landing, std::vector<int>{(rank + size - 1) % size});
  const distopo::ExchangeRoute next = distopo::exchange_route(comm, node_aware.get());
  EXPECT_FALSE(next.find_nodes);
  EXPECT_FALSE(next.node_aware());
}

// Registered a second time with DISTOPO_EXCHANGE=node_aware on emulated nodes
// (tests/core/CMakeLists.txt): those runs must get the node-aware route.
TEST(SparseExchange, RouteFromTheEnvironment) {
  auto comm = distopo::private_copy(MPI_COMM_WORLD);
  const char* asked = std::getenv(distopo::kExchangeEnv);
  const distopo::ExchangeRoute route = distopo::exchange_route(comm);
  if (asked == nullptr || std::string(asked) != "node_aware") {
    EXPECT_FALSE(route.node_aware() && asked != nullptr && std::string(asked) == "direct");
    return;
  }
  // Without declared nodes this machine is one node.
  const char* declared = std::getenv(distopo::kRanksPerNodeEnv);
  const int per_node = declared != nullptr ? std::atoi(declared) : comm.size();
  EXPECT_EQ(route.node_aware(), per_node > 1 && per_node < comm.size());
}

}  // namespace
