// Making a plan: the agreed settings, the machine nodes, and for the
// node-aware algorithm the routes, planned by each node's leader from its
// ranks' remote peers. Nothing here holds anything of size P: a leader holds
// its node's remote edges, every other rank its own.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/node_layout.hpp"
#include "distopo/core/shared_channel.hpp"
#include "plan.hpp"

namespace distopo::detail {
namespace {

struct NodeInfo {
  int node = 0;
  int node_count = 1;
  bool emulated = false;
  MPI_Comm node_comm = MPI_COMM_NULL;  // this node's ranks, in comm's order
};

struct NodeCommGuard {
  MPI_Comm& comm;
  ~NodeCommGuard() {
    if (comm != MPI_COMM_NULL) PMPI_Comm_free(&comm);
  }
};

NodeInfo discover(MPI_Comm comm, int rank, int ranks_per_node) {
  NodeInfo info;
  const int size = comm_size(comm);
  if (ranks_per_node > 0) {
    info.emulated = true;
    info.node = rank / ranks_per_node;
    info.node_count = (size + ranks_per_node - 1) / ranks_per_node;
    check_mpi(PMPI_Comm_split(comm, info.node, rank, &info.node_comm), "MPI_Comm_split");
    return info;
  }
  check_mpi(PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &info.node_comm),
            "MPI_Comm_split_type");
  // A node is named by its lowest rank in `comm` (local rank 0 of the
  // split), which every member finds in the group without a message; only
  // the count takes a collective. The names need not be 0 .. count-1: they
  // are keys. (A count of lower leaders by MPI_Exscan, before, cost a round
  // and a broadcast, and SMPI's MPI_Exscan sends P^2 / 2 messages.)
  MPI_Group comm_group = MPI_GROUP_NULL, node_group = MPI_GROUP_NULL;
  check_mpi(PMPI_Comm_group(comm, &comm_group), "MPI_Comm_group");
  check_mpi(PMPI_Comm_group(info.node_comm, &node_group), "MPI_Comm_group");
  const int first = 0;
  const int translated = PMPI_Group_translate_ranks(node_group, 1, &first, comm_group, &info.node);
  PMPI_Group_free(&node_group);
  PMPI_Group_free(&comm_group);
  check_mpi(translated, "MPI_Group_translate_ranks");
  int local_rank = 0;
  check_mpi(PMPI_Comm_rank(info.node_comm, &local_rank), "MPI_Comm_rank");
  int count = local_rank == 0 ? 1 : 0;
  check_mpi(PMPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_INT, MPI_SUM, comm), "MPI_Allreduce");
  info.node_count = count;
  return info;
}

// The nodes of this rank's sources and destinations. Emulated nodes are
// computed; discovered ones are exchanged with the neighbors: each rank
// sends its node to its destinations and its sources (two directions, two
// tags).
void peer_nodes(const NeighborSequence& s, const NodeInfo& info, int ranks_per_node, MPI_Comm channel, int tag,
                std::vector<int>& source_nodes, std::vector<int>& destination_nodes) {
  source_nodes.assign(s.sources.size(), -1);
  destination_nodes.assign(s.destinations.size(), -1);
  if (info.emulated) {
    for (int slot : s.recv_order) source_nodes[slot] = s.sources[slot] / ranks_per_node;
    for (int slot : s.send_order) destination_nodes[slot] = s.destinations[slot] / ranks_per_node;
    return;
  }
  std::vector<MPI_Request> requests;
  requests.reserve(2 * (s.recv_order.size() + s.send_order.size()));
  const auto post = [&](int rc) { check_mpi(rc, "neighbor plan: exchanging node numbers"); };
  for (int slot : s.recv_order) {
    requests.emplace_back();
    post(PMPI_Irecv(&source_nodes[slot], 1, MPI_INT, s.sources[slot], tag, channel, &requests.back()));
  }
  for (int slot : s.send_order) {
    requests.emplace_back();
    post(PMPI_Irecv(&destination_nodes[slot], 1, MPI_INT, s.destinations[slot], tag + 1, channel, &requests.back()));
  }
  for (int slot : s.send_order) {
    requests.emplace_back();
    post(PMPI_Isend(&info.node, 1, MPI_INT, s.destinations[slot], tag, channel, &requests.back()));
  }
  for (int slot : s.recv_order) {
    requests.emplace_back();
    post(PMPI_Isend(&info.node, 1, MPI_INT, s.sources[slot], tag + 1, channel, &requests.back()));
  }
  post(PMPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
}

// This rank's remote groups of one direction, sorted by (peer node, peer),
// and the slots that stay on the node, in posting order.
std::vector<RemoteGroup> remote_groups(const std::vector<int>& order, const std::vector<int>& ranks,
                                       const std::vector<int>& nodes, int my_node, std::vector<int>& local_order) {
  std::map<std::pair<int, int>, std::vector<int>> by_peer;
  for (int slot : order) {
    const int node = nodes[slot];
    if (node == my_node) {
      local_order.push_back(slot);
    } else {
      by_peer[{node, ranks[slot]}].push_back(slot);
    }
  }
  std::vector<RemoteGroup> groups;
  groups.reserve(by_peer.size());
  for (auto& [key, slots] : by_peer) groups.push_back({key.second, key.first, -1, std::move(slots)});
  return groups;
}

// y(A, B, lane): the middle one of the lane's distinct receivers (its groups
// sorted by (a, b)), which A's and B's leaders both see, so both pick the
// same rank without a round. Lanes with the same receivers get the same y,
// which then sends each receiver one message holding the blocks of all of
// them: on a stencil the lanes of a rank's two images in the planes beside
// it share their 9 receivers, centred on the rank between them. (A hash of
// the pair and lane, before, spread lanes with the same receivers over
// different ranks, each then sending to all of them.)
int receive_relay(const std::vector<std::pair<int, int>>& groups) {
  std::vector<int> receivers;
  receivers.reserve(groups.size());
  for (const auto& g : groups) receivers.push_back(g.second);
  std::sort(receivers.begin(), receivers.end());
  receivers.erase(std::unique(receivers.begin(), receivers.end()), receivers.end());
  return receivers[receivers.size() / 2];
}

// A node pair's groups (sorted by (a, b)) in lanes of at most
// `senders_per_lane` sending ranks (choose_lanes), each lane with its own
// relays, so that a relay takes at most that many messages per pair and
// sends one. Lanes follow the senders' order, so both nodes' leaders, which
// see the same groups and the same agreed lane size, cut the same lanes,
// and a receiver's groups stay in sender order across lanes. With one sender per
// lane its send relay is the sender itself (the only rank of the lane with
// blocks for the other node): it sends its blocks for a node as one message
// straight to that node's receive relay, with no gather step on its own node.
using Groups = std::vector<std::pair<int, int>>;
std::vector<Groups> lanes(const Groups& groups, std::size_t senders_per_lane) {
  std::vector<int> senders;
  for (const auto& g : groups) {
    if (senders.empty() || senders.back() != g.first) senders.push_back(g.first);
  }
  const std::size_t count = (senders.size() + senders_per_lane - 1) / senders_per_lane;
  std::vector<Groups> out(count);
  std::size_t sender = 0;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (i > 0 && groups[i].first != groups[i - 1].first) ++sender;
    out[sender * count / senders.size()].push_back(groups[i]);
  }
  return out;
}

// What a rank tells its leader: its rank, then its remote (peer, peer node)
// pairs of both directions.
std::vector<int> leader_request(int rank, const Routes& r) {
  std::vector<int> v = {rank, static_cast<int>(r.sends.size()), static_cast<int>(r.receives.size())};
  for (const auto& g : r.sends) v.insert(v.end(), {g.peer, g.peer_node});
  for (const auto& g : r.receives) v.insert(v.end(), {g.peer, g.peer_node});
  return v;
}

// The leader's work: relays for every pair of its node, and each local
// rank's part of the answer: x of each of its send groups, y of each of its
// receive groups, then the pairs it relays as x (node B, y, G, G x (a, b))
// and as y (node A, G, G x (a, b)).
std::vector<std::vector<int>> plan_relays(const std::vector<int>& requests, const std::vector<int>& offsets,
                                          std::size_t senders_per_lane) {
  const std::size_t locals = offsets.size() - 1;
  std::vector<int> ranks(locals);
  std::map<int, std::size_t> local_of;  // global rank -> local index
  // pair lists: other node -> (a, b) groups
  std::map<int, std::vector<std::pair<int, int>>> out_pairs, in_pairs;
  for (std::size_t l = 0; l < locals; ++l) {
    const int* v = requests.data() + offsets[l];
    ranks[l] = v[0];
    local_of[v[0]] = l;
    const int sends = v[1];
    const int receives = v[2];
    const int* e = v + 3;
    for (int i = 0; i < sends; ++i, e += 2) out_pairs[e[1]].push_back({v[0], e[0]});
    for (int i = 0; i < receives; ++i, e += 2) in_pairs[e[1]].push_back({e[0], v[0]});
  }
  std::vector<long long> load(locals, 0);
  // Pairs cut into lanes: (other node, lane) -> groups.
  std::map<std::pair<int, int>, Groups> out_lanes, in_lanes;
  for (auto& [node, groups] : out_pairs) {
    std::sort(groups.begin(), groups.end());
    auto cut = lanes(groups, senders_per_lane);
    for (std::size_t l = 0; l < cut.size(); ++l) out_lanes[{node, static_cast<int>(l)}] = std::move(cut[l]);
  }
  for (auto& [node, groups] : in_pairs) {
    std::sort(groups.begin(), groups.end());
    auto cut = lanes(groups, senders_per_lane);
    for (std::size_t l = 0; l < cut.size(); ++l) in_lanes[{node, static_cast<int>(l)}] = std::move(cut[l]);
  }
  std::map<std::pair<int, int>, int> in_relay;  // (node A, lane) -> y
  for (const auto& [key, groups] : in_lanes) {
    const int y = receive_relay(groups);
    in_relay[key] = y;
    load[local_of.at(y)] += static_cast<long long>(groups.size());
  }
  // Send relays: the largest lanes first, each to the least loaded of its
  // senders, so that no rank carries all of them while one exists that
  // carries less.
  std::vector<std::pair<int, int>> order;
  for (const auto& [key, groups] : out_lanes) order.push_back(key);
  std::stable_sort(order.begin(), order.end(),
                   [&](const auto& a, const auto& b) { return out_lanes.at(a).size() > out_lanes.at(b).size(); });
  std::map<std::pair<int, int>, int> out_relay;  // (node B, lane) -> x
  for (const auto& key : order) {
    int best = -1;
    for (const auto& g : out_lanes.at(key)) {
      if (best < 0 || load[local_of.at(g.first)] < load[local_of.at(best)]) best = g.first;
    }
    out_relay[key] = best;
    load[local_of.at(best)] += static_cast<long long>(out_lanes.at(key).size());
  }

  // A group's lane: the lane of the pair that holds its sender.
  const auto lane_relay = [](const std::map<std::pair<int, int>, Groups>& cut,
                             const std::map<std::pair<int, int>, int>& relay, int node, std::pair<int, int> group) {
    for (auto it = cut.lower_bound({node, 0}); it != cut.end() && it->first.first == node; ++it) {
      if (std::binary_search(it->second.begin(), it->second.end(), group)) return relay.at(it->first);
    }
    return -1;
  };
  std::vector<std::vector<int>> answers(locals);
  for (std::size_t l = 0; l < locals; ++l) {
    const int* v = requests.data() + offsets[l];
    const int* e = v + 3;
    auto& a = answers[l];
    for (int i = 0; i < v[1]; ++i, e += 2) a.push_back(lane_relay(out_lanes, out_relay, e[1], {v[0], e[0]}));
    for (int i = 0; i < v[2]; ++i, e += 2) a.push_back(lane_relay(in_lanes, in_relay, e[1], {e[0], v[0]}));
    std::size_t count_at = a.size();
    a.push_back(0);
    for (const auto& [key, groups] : out_lanes) {
      if (out_relay.at(key) != ranks[l]) continue;
      ++a[count_at];
      a.insert(a.end(), {key.first, key.second, receive_relay(groups), static_cast<int>(groups.size())});
      for (const auto& g : groups) a.insert(a.end(), {g.first, g.second});
    }
    count_at = a.size();
    a.push_back(0);
    for (const auto& [key, groups] : in_lanes) {
      if (in_relay.at(key) != ranks[l]) continue;
      ++a[count_at];
      a.insert(a.end(), {key.first, key.second, static_cast<int>(groups.size())});
      for (const auto& g : groups) a.insert(a.end(), {g.first, g.second});
    }
  }
  return answers;
}

// Gathers the requests at the leader, plans there, scatters the answers.
std::vector<int> ask_leader(MPI_Comm node_comm, const std::vector<int>& request, std::size_t senders_per_lane) {
  int local_rank = 0;
  int locals = 0;
  check_mpi(PMPI_Comm_rank(node_comm, &local_rank), "MPI_Comm_rank");
  check_mpi(PMPI_Comm_size(node_comm, &locals), "MPI_Comm_size");
  const bool leader = local_rank == 0;
  int length = static_cast<int>(request.size());
  std::vector<int> lengths(leader ? locals : 0), offsets(leader ? locals + 1 : 0, 0);
  check_mpi(PMPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, node_comm), "MPI_Gather");
  for (int l = 0; leader && l < locals; ++l) offsets[l + 1] = offsets[l] + lengths[l];
  std::vector<int> requests(leader ? static_cast<std::size_t>(offsets[locals]) : 0);
  check_mpi(PMPI_Gatherv(request.data(), length, MPI_INT, requests.data(), lengths.data(), offsets.data(), MPI_INT, 0,
                         node_comm),
            "MPI_Gatherv");
  std::vector<int> flat;
  if (leader) {
    const auto answers = plan_relays(requests, std::vector<int>(offsets.begin(), offsets.end()), senders_per_lane);
    for (int l = 0; l < locals; ++l) {
      lengths[l] = static_cast<int>(answers[l].size());
      offsets[l + 1] = offsets[l] + lengths[l];
      flat.insert(flat.end(), answers[l].begin(), answers[l].end());
    }
  }
  check_mpi(PMPI_Scatter(lengths.data(), 1, MPI_INT, &length, 1, MPI_INT, 0, node_comm), "MPI_Scatter");
  std::vector<int> answer(static_cast<std::size_t>(length));
  check_mpi(
      PMPI_Scatterv(flat.data(), lengths.data(), offsets.data(), MPI_INT, answer.data(), length, MPI_INT, 0, node_comm),
      "MPI_Scatterv");
  return answer;
}

// Reads the leader's answer into `r` and derives the relaying tables.
void adopt_answer(const std::vector<int>& answer, Routes& r) {
  const int* v = answer.data();
  for (auto& g : r.sends) g.relay = *v++;
  for (auto& g : r.receives) g.relay = *v++;
  for (int pairs = *v++; pairs > 0; --pairs) {
    RelayedPair p;
    p.node = *v++;
    p.lane = *v++;
    p.partner = *v++;
    const int groups = *v++;
    for (int i = 0; i < groups; ++i, v += 2) {
      p.from.push_back(v[0]);
      p.to.push_back(v[1]);
    }
    r.send_pairs.push_back(std::move(p));
  }
  for (int pairs = *v++; pairs > 0; --pairs) {
    RelayedPair p;
    p.node = *v++;
    p.lane = *v++;
    p.partner = -1;
    const int groups = *v++;
    for (int i = 0; i < groups; ++i, v += 2) {
      p.from.push_back(v[0]);
      p.to.push_back(v[1]);
    }
    r.receive_pairs.push_back(std::move(p));
  }
  // One message per distinct relay, groups in (peer node, peer) order.
  const auto messages = [](const std::vector<RemoteGroup>& groups) {
    std::map<int, std::vector<int>> by_relay;
    for (std::size_t i = 0; i < groups.size(); ++i) by_relay[groups[i].relay].push_back(static_cast<int>(i));
    std::vector<Routes::RelayMessage> out;
    for (auto& [relay, list] : by_relay) out.push_back({relay, std::move(list)});
    return out;
  };
  r.to_send_relays = messages(r.sends);
  r.from_receive_relays = messages(r.receives);
  // A participant's message: over the pairs in node order, its groups (sorted by b).
  std::map<int, std::vector<std::pair<int, int>>> participants, destinations;
  for (std::size_t p = 0; p < r.send_pairs.size(); ++p) {
    const auto& pair = r.send_pairs[p];
    for (std::size_t g = 0; g < pair.from.size(); ++g) {
      participants[pair.from[g]].push_back({static_cast<int>(p), static_cast<int>(g)});
    }
  }
  for (std::size_t p = 0; p < r.receive_pairs.size(); ++p) {
    const auto& pair = r.receive_pairs[p];
    for (std::size_t g = 0; g < pair.to.size(); ++g) {
      destinations[pair.to[g]].push_back({static_cast<int>(p), static_cast<int>(g)});
    }
  }
  for (auto& [rank, list] : participants) r.participants.push_back({rank, std::move(list), -1});
  r.destination_of.resize(r.receive_pairs.size());
  for (std::size_t p = 0; p < r.receive_pairs.size(); ++p) r.destination_of[p].assign(r.receive_pairs[p].to.size(), -1);
  for (auto& [rank, list] : destinations) {
    for (const auto& [p, g] : list) r.destination_of[p][g] = static_cast<int>(r.destinations.size());
    r.destinations.push_back({rank, std::move(list), -1});
  }
}

// Joined groups (plan.hpp): a receive relay's own blocks for each of its
// destinations, and a destination's blocks from each of its receive relays,
// leave the direct messages on the node. Both ends see the same pairs: d is
// a destination of y exactly when y is one of d's receive relays.
void join_local_blocks(const NeighborSequence& s, int rank, Routes& r) {
  const auto by_peer = [](const std::vector<int>& order, const std::vector<int>& ranks) {
    std::map<int, std::vector<int>> slots;
    for (int slot : order) slots[ranks[slot]].push_back(slot);
    return slots;
  };
  // `peers` ascending: r.destinations and r.from_receive_relays are in rank
  // order (built from maps above), and so is what is pushed from them.
  const auto drop_peers = [](std::vector<int>& order, const std::vector<int>& ranks, const std::vector<int>& peers) {
    std::erase_if(order, [&](int slot) { return std::binary_search(peers.begin(), peers.end(), ranks[slot]); });
  };
  std::vector<int> joined_peers;
  auto sends_to = by_peer(r.local_send_order, s.destinations);
  for (auto& d : r.destinations) {
    const auto it = sends_to.find(d.rank);
    if (d.rank == rank || it == sends_to.end()) continue;  // this rank's own message is handed over, not sent
    d.joined = static_cast<int>(r.joined_sends.size());
    r.joined_sends.push_back({d.rank, r.node, rank, std::move(it->second)});
    joined_peers.push_back(d.rank);
  }
  drop_peers(r.local_send_order, s.destinations, joined_peers);
  joined_peers.clear();
  auto receives_from = by_peer(r.local_recv_order, s.sources);
  for (auto& m : r.from_receive_relays) {
    const auto it = receives_from.find(m.relay);
    if (m.relay == rank || it == receives_from.end()) continue;
    m.groups.push_back(static_cast<int>(r.receives.size()));
    r.receives.push_back({m.relay, r.node, m.relay, std::move(it->second)});
    joined_peers.push_back(m.relay);
  }
  drop_peers(r.local_recv_order, s.sources, joined_peers);
}

}  // namespace

SettingsAgreement::SettingsAgreement(const PlanSettings& settings) {
  const long long nodes = node_count_offer(settings.known_node_count);  // reads the processor name when unknown
  values = {static_cast<long long>(settings.algorithm),
            -static_cast<long long>(settings.algorithm),
            settings.aggregate_max_bytes,
            -settings.aggregate_max_bytes,
            settings.ranks_per_node,
            -settings.ranks_per_node,
            nodes,
            -nodes};
}

void SettingsAgreement::reduce(MPI_Comm comm) {
  check_mpi(PMPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_LONG_LONG, MPI_MAX, comm),
            "MPI_Allreduce");
}

int SettingsAgreement::agreed_node_count() const { return distopo::agreed_node_count(values[6], values[7]); }

void SettingsAgreement::check(const char* caller) const {
  const char* names[] = {"distopo_neighbor_algorithm (DISTOPO_NEIGHBOR_ALGORITHM)",
                         "distopo_neighbor_aggregate_max_bytes (DISTOPO_NEIGHBOR_AGGREGATE_MAX_BYTES)",
                         "distopo_ranks_per_node (DISTOPO_RANKS_PER_NODE)"};
  for (std::size_t i = 0; i < 3; ++i) {
    if (values[2 * i] != -values[2 * i + 1]) {
      throw Error(MPI_ERR_ARG, std::string(caller) + ": the setting " + names[i] +
                                   " must be the same on every rank of the communicator");
    }
  }
}

namespace {

// How a node pair's blocks are cut into lanes, agreed over `comm` (one
// allreduce of the blocks and (rank, other node) pairs of all ranks).
struct LaneChoice {
  std::size_t senders = 1;  // per lane
  bool relays_pay = false;  // whether auto takes the node-aware plan
};
// Lanes of one sender where a rank has, on average, at least kLaneBlocks
// blocks for each other node it sends to. Sparser patterns whose ranks each
// send to many other nodes (at least kGatherPairsPerRank: the host's adapter
// sends that many messages per rank) gather on their own node first, as
// many senders per lane as give its message kLaneBlocks blocks (two: a rank
// with blocks for a node has at least one), so the adapter sends half the
// messages. Sparse patterns with few such pairs stay direct under auto, as
// nothing was measured to pay there; forced, they relay in lanes of one.
LaneChoice choose_lanes(MPI_Comm comm, const Routes& routes) {
  std::array<long long, 2> counts{0, 0};
  for (std::size_t g = 0; g < routes.sends.size(); ++g) {
    counts[0] += static_cast<long long>(routes.sends[g].slots.size());
    if (g == 0 || routes.sends[g].peer_node != routes.sends[g - 1].peer_node) ++counts[1];
  }
  check_mpi(PMPI_Allreduce(MPI_IN_PLACE, counts.data(), 2, MPI_LONG_LONG, MPI_SUM, comm), "MPI_Allreduce");
  const auto [blocks, pairs] = counts;
  if (pairs == 0) return {};
  if (blocks >= kLaneBlocks * pairs) return {.senders = 1, .relays_pay = true};
  if (pairs < kGatherPairsPerRank * comm_size(comm)) return {};
  return {.senders = static_cast<std::size_t>((kLaneBlocks * pairs + blocks - 1) / blocks), .relays_pay = true};
}

// The node-aware part of `plan`: nodes, the peers' nodes, and (unless
// `judge_pattern` finds that relays do not pay: choose_lanes) the routes.
void plan_routes(Plan& plan, MPI_Comm comm, int rank, const PlanSettings& settings, MPI_Comm channel, int tag,
                 bool judge_pattern, std::uint64_t default_max_bytes) {
  const NeighborSequence& s = plan.sequence;
  Selection& choice = plan.selection;
  NodeInfo info = discover(comm, rank, settings.ranks_per_node);
  const NodeCommGuard guard{info.node_comm};
  choice.node_count = info.node_count;
  choice.emulated_nodes = info.emulated;
  if (judge_pattern && info.node_count == 1) return;

  std::vector<int> source_nodes, destination_nodes;
  peer_nodes(s, info, settings.ranks_per_node, channel, tag, source_nodes, destination_nodes);
  auto routes = std::make_unique<Routes>();
  routes->node = info.node;
  routes->sends = remote_groups(s.send_order, s.destinations, destination_nodes, info.node, routes->local_send_order);
  routes->receives = remote_groups(s.recv_order, s.sources, source_nodes, info.node, routes->local_recv_order);
  const LaneChoice lanes = choose_lanes(comm, *routes);
  if (judge_pattern && !lanes.relays_pay) return;
  adopt_answer(ask_leader(info.node_comm, leader_request(rank, *routes), lanes.senders), *routes);
  join_local_blocks(s, rank, *routes);
  routes->local = {MessagePlan(routes->local_recv_order, s.sources),
                   MessagePlan(routes->local_send_order, s.destinations)};
  choice.algorithm = NeighborAlgorithm::aggregated;
  choice.senders_per_lane = static_cast<int>(lanes.senders);
  choice.aggregate_max_bytes =
      settings.aggregate_max_bytes >= 0 ? static_cast<std::uint64_t>(settings.aggregate_max_bytes) : default_max_bytes;
  plan.routes = std::move(routes);
}

std::shared_ptr<Plan> direct_plan(const TopologyRecord& record, int rank, NeighborAlgorithm setting) {
  auto plan = std::make_shared<Plan>();
  plan->sequence = neighbor_sequence(record, rank);
  const NeighborSequence& s = plan->sequence;
  plan->direct = {MessagePlan(s.recv_order, s.sources), MessagePlan(s.send_order, s.destinations)};
  plan->selection.setting = setting;
  return plan;
}

}  // namespace

std::shared_ptr<const Plan> make_plan(MPI_Comm comm, const TopologyRecord& record, int rank,
                                      const PlanSettings& settings, MPI_Comm channel, int tag) {
  std::shared_ptr<Plan> plan = direct_plan(record, rank, settings.algorithm);
  // Auto spends nothing on finding nodes and relays here: for the forms that
  // are not persistent it is the direct algorithm (docs/design/
  // neighbor-collectives.md, "When auto takes it"); the persistent form asks
  // make_persistent_auto_plan.
  if (settings.algorithm != NeighborAlgorithm::aggregated) return plan;
  plan_routes(*plan, comm, rank, settings, channel, tag, false, UINT64_MAX);
  return plan;
}

std::shared_ptr<const Plan> make_persistent_auto_plan(MPI_Comm comm, const TopologyRecord& record, int rank,
                                                      const PlanSettings& settings, MPI_Comm channel, int tag) {
  std::shared_ptr<Plan> plan = direct_plan(record, rank, NeighborAlgorithm::automatic);
  // Declared nodes are one machine cut up for testing, where relays only add copies.
  if (settings.ranks_per_node > 0 || settings.known_node_count == 1) return plan;
  plan_routes(*plan, comm, rank, settings, channel, tag, true, kAutoAggregateMaxBytes);
  remember_family_node_count(comm, plan->selection.node_count);
  return plan;
}

bool auto_aggregates(MPI_Comm comm, long long small, long long remote) {
  std::array<long long, 2> counts{small, remote};
  check_mpi(PMPI_Allreduce(MPI_IN_PLACE, counts.data(), 2, MPI_LONG_LONG, MPI_SUM, comm), "MPI_Allreduce");
  return counts[1] > 0 && 2 * counts[0] >= counts[1];
}

}  // namespace distopo::detail
