// The relayed part of an aggregated collective (exchange.hpp, RelayExchange).
//
// Messages, all MPI_PACKED on the collective's channel, each step with its
// own tag, every count and length a 32-bit word (relay::Word):
//   a -> x (gather):   per group of a that x relays, (blocks, bytes); the data
//   x -> y (relay):    the source node and lane; per group, (blocks,
//                      bytes), except in a pre-posted run, whose y learned
//                      them at init (learn_sizes); the data
//   y -> b (scatter):  per group of b that y brings, then y's own group for b
//                      if joined (plan.hpp), (blocks, bytes), except in a
//                      pre-posted run, whose b knows them from its own
//                      receive types; the data
// Groups are in the plan's orders (plan.hpp), so a relay needs no more than
// the lengths to split what it gets: it learns a message's size by probing
// (MPI_Iprobe, then MPI_Recv of exactly that message), and keeps no
// datatype. Blocks are packed with MPI_Pack, or copied when their datatype
// is contiguous: in a homogeneous run MPI_Pack's format is the bytes
// themselves, which MPICH and SMPI both use.
//
// A group marked dropped (blocks = kDropped) comes from a rank whose
// arguments were bad: it sent every block of the group as an empty direct
// message instead, which the receiver takes in with empty receives.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "distopo/core/runtime.hpp"
#include "relay_run.hpp"
#include "world_errors_returned.hpp"

namespace distopo::detail {
namespace relay {

// Contiguous datatypes are copied, others packed.
bool contiguous(MPI_Datatype type) {
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  MPI_Count size = 0;
  if (PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS ||
      mpi::type_size(type, &size) != MPI_SUCCESS) {
    return false;
  }
  return lb == 0 && true_lb == 0 && extent == size && true_extent == size;
}

// The next message of `tag` from `source` (MPI_ANY_SOURCE: any), received
// whole into `buffer`; false if none has arrived.
bool receive_next(MPI_Comm channel, int source, int tag, std::vector<unsigned char>& buffer, int* from, int* rc) {
  int flag = 0;
  MPI_Status status;
  *rc = PMPI_Iprobe(source, tag, channel, &flag, &status);
  if (*rc != MPI_SUCCESS || !flag) return false;
  *from = status.MPI_SOURCE;
  receive_probed(channel, status, tag, buffer, rc);
  return true;
}

void receive_probed(MPI_Comm channel, MPI_Status status, int tag, std::vector<unsigned char>& buffer, int* rc) {
  MPI_Count bytes = 0;
  *rc = mpi::message_bytes(&status, &bytes);
  if (*rc != MPI_SUCCESS) return;
  buffer.resize(static_cast<std::size_t>(bytes));
  MPI_Request request = MPI_REQUEST_NULL;
  *rc = mpi::irecv(buffer.data(), bytes, MPI_PACKED, status.MPI_SOURCE, tag, channel, &request);
  if (*rc == MPI_SUCCESS) *rc = PMPI_Wait(&request, MPI_STATUS_IGNORE);
}

void pack_relayed(const GroupBlocks& from, std::size_t g, std::vector<unsigned char>& buffer, MPI_Count* position,
                  int* rc) {
  for (std::size_t k = from.first[g]; k < from.first[g + 1]; ++k) {
    if (!from.relayed[k]) continue;
    const Block& b = from.blocks[k];
    if (contiguous(b.type)) {
      if (from.bytes[k] > 0) std::memcpy(buffer.data() + *position, b.buffer, static_cast<std::size_t>(from.bytes[k]));
      *position += from.bytes[k];
    } else if (const int code =
                   mpi::pack(b.buffer, b.count, b.type, buffer.data(), static_cast<MPI_Count>(buffer.size()), position);
               code != MPI_SUCCESS && *rc == MPI_SUCCESS) {
      *rc = code;
    }
  }
}

bool unpack_relayed(const GroupBlocks& into, std::size_t g, const std::vector<unsigned char>& data, MPI_Count* position,
                    int* rc) {
  for (std::size_t k = into.first[g]; k < into.first[g + 1]; ++k) {
    if (!into.relayed[k]) continue;
    const Block& b = into.blocks[k];
    if (contiguous(b.type)) {
      if (into.bytes[k] > 0) std::memcpy(b.buffer, data.data() + *position, static_cast<std::size_t>(into.bytes[k]));
      *position += into.bytes[k];
    } else if (const int code =
                   mpi::unpack(data.data(), static_cast<MPI_Count>(data.size()), position, b.buffer, b.count, b.type);
               code != MPI_SUCCESS) {
      *rc = code;
      return false;
    }
  }
  return true;
}

}  // namespace relay

namespace {

using relay::get;
using relay::kDropped;
using relay::kWord;
using relay::put;
using relay::Word;

// Whose exchanges a poll steps: the process's. SMPI runs every simulated rank
// in one process, so there the registry holds every rank's exchanges, kept
// apart by rank: each rank steps its own (stepping another rank's made MPI
// calls as the wrong rank), and finds them without scanning the others'
// (one list for all made every turn cost O(P)).
#ifdef DISTOPO_SMPI_BUILD
int process_id() noexcept {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
#else
constexpr int process_id() noexcept { return 0; }
#endif

// The relaying exchanges with a run in progress, which every poll of the
// same process progresses.
std::mutex registry_mutex;
std::unordered_map<int, std::vector<RelayExchange*>> running_by_process;

std::vector<RelayExchange*>& running(int process) { return running_by_process[process]; }

void forget(std::vector<RelayExchange*>& list, RelayExchange* exchange) {
  list.erase(std::remove(list.begin(), list.end(), exchange), list.end());
}

}  // namespace

RelayExchange::RelayExchange(std::shared_ptr<const Plan> plan, MPI_Comm channel, Origin origin, bool drop)
    : plan_(std::move(plan)),
      channel_(channel),
      origin_(origin),
      drop_(drop),
      process_(process_id()),
      run_(std::make_unique<Run>()) {
  const Routes& r = *plan_->routes;
  Run& run = *run_;
  run.position.resize(r.receive_pairs.size());
  for (std::size_t p = 0; p < r.receive_pairs.size(); ++p) run.position[p].assign(r.receive_pairs[p].to.size(), 0);
  for (const auto& d : r.destinations) {
    for (std::size_t i = 0; i < d.groups.size(); ++i) {
      run.position[static_cast<std::size_t>(d.groups[i].first)][static_cast<std::size_t>(d.groups[i].second)] = i;
    }
  }
}

RelayExchange::~RelayExchange() {
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (!finalized && !complete() && run_->registered) finish();
  if (run_->registered) {
    const std::lock_guard lock(registry_mutex);
    forget(running(process_), this);
  }
  if (!finalized) {
    for (MPI_Datatype& type : owned_types) PMPI_Type_free(&type);
  }
}

void RelayExchange::fail(int code, bool receive, int peer) noexcept {
  if (error_ != MPI_SUCCESS) return;
  error_ = code;
  error_receive_ = receive;
  error_peer_ = peer;
}

Error RelayExchange::error() const { return transfer_error(error_, origin_, error_receive_, error_peer_); }

// Each participant sends each of its send relays the (blocks, bytes) of the
// groups it will carry; a send relay, once it has every participant's,
// sends each receive relay of its pairs the (node, lane) and size of the
// pair's message and the (blocks, bytes) of its groups, which its runs then
// leave out. A receive relay does not know its send relays (plan.hpp: y
// needs only the source node), so it takes those from any source: only
// this round uses the init tags.
void RelayExchange::learn_sizes(Tags init) noexcept {
  const Routes& r = *plan_->routes;
  Run& run = *run_;
  const WorldErrorsReturned returned;
  std::vector<MPI_Request> requests;  // the sends
  // As a participant.
  std::vector<std::vector<unsigned char>> headers(r.to_send_relays.size());
  for (std::size_t i = 0; i < r.to_send_relays.size(); ++i) {
    const auto& message = r.to_send_relays[i];
    headers[i].resize(2 * kWord * message.groups.size());
    for (std::size_t n = 0; n < message.groups.size(); ++n) {
      const auto g = static_cast<std::size_t>(message.groups[n]);
      put(headers[i], 2 * n, drop_ ? kDropped : sends.relayed_blocks[g]);
      put(headers[i], 2 * n + 1, drop_ ? 0 : sends.relayed_bytes[g]);
    }
    requests.push_back(MPI_REQUEST_NULL);
    const int rc = mpi::isend(headers[i].data(), static_cast<MPI_Count>(headers[i].size()), MPI_PACKED, message.relay,
                              init.gather, channel_, &requests.back());
    if (rc != MPI_SUCCESS) fail(rc, false, message.relay);
  }
  // As a send relay.
  std::vector<std::vector<unsigned char>> from(r.participants.size());
  std::vector<MPI_Request> from_requests(r.participants.size(), MPI_REQUEST_NULL);
  for (std::size_t q = 0; q < r.participants.size(); ++q) {
    from[q].resize(2 * kWord * r.participants[q].groups.size());
    const int rc = mpi::irecv(from[q].data(), static_cast<MPI_Count>(from[q].size()), MPI_PACKED,
                              r.participants[q].rank, init.gather, channel_, &from_requests[q]);
    if (rc != MPI_SUCCESS) fail(rc, true, r.participants[q].rank);
  }
  // (node, lane, the pair message's bytes, 64 bits wide), then its groups'
  // (blocks, bytes).
  std::vector<std::vector<unsigned char>> pair_sizes(r.send_pairs.size());
  std::vector<std::uint64_t> pair_total(r.send_pairs.size());
  bool relayed = false;
  // As a receive relay.
  std::vector<int> pair_source(r.receive_pairs.size(), -1);
  run.pair_sizes.assign(r.receive_pairs.size(), {});
  std::vector<std::size_t> pair_bytes(r.receive_pairs.size(), 0);
  std::size_t pairs_left = r.receive_pairs.size();
  while (!relayed || pairs_left > 0) {
    step_running(this);
    if (!relayed) {
      int all = 0;
      if (const int rc =
              PMPI_Testall(static_cast<int>(from_requests.size()), from_requests.data(), &all, MPI_STATUSES_IGNORE);
          rc != MPI_SUCCESS) {
        fail(rc, true, -1);
        all = 1;
      }
      if (all) {
        run.participant_bytes.assign(r.participants.size(), 0);
        constexpr std::size_t kTableWord = relay::kPairSizeBytes / kWord;
        for (std::size_t p = 0; p < r.send_pairs.size(); ++p) {
          pair_sizes[p].resize(relay::kPairSizeBytes + 2 * kWord * r.send_pairs[p].from.size());
          put(pair_sizes[p], 0, static_cast<Word>(r.node));
          put(pair_sizes[p], 1, static_cast<Word>(r.send_pairs[p].lane));
          pair_total[p] = 2 * kWord;
        }
        for (std::size_t q = 0; q < r.participants.size(); ++q) {
          const auto& groups = r.participants[q].groups;
          std::size_t total = 2 * kWord * groups.size();
          for (std::size_t n = 0; n < groups.size(); ++n) {
            const Word blocks = get(from[q].data(), 2 * n);
            const Word bytes = blocks == kDropped ? 0 : get(from[q].data(), 2 * n + 1);
            total += static_cast<std::size_t>(bytes);
            const auto p = static_cast<std::size_t>(groups[n].first);
            const auto k = static_cast<std::size_t>(groups[n].second);
            pair_total[p] += bytes;
            put(pair_sizes[p], kTableWord + 2 * k, blocks);
            put(pair_sizes[p], kTableWord + 2 * k + 1, bytes);
          }
          run.participant_bytes[q] = total;
        }
        for (std::size_t p = 0; p < r.send_pairs.size(); ++p) {
          std::memcpy(pair_sizes[p].data() + 2 * kWord, &pair_total[p], sizeof pair_total[p]);
          requests.push_back(MPI_REQUEST_NULL);
          const int y = r.send_pairs[p].partner;
          const int rc = mpi::isend(pair_sizes[p].data(), static_cast<MPI_Count>(pair_sizes[p].size()), MPI_PACKED, y,
                                    init.relay, channel_, &requests.back());
          if (rc != MPI_SUCCESS) fail(rc, false, y);
        }
        relayed = true;
      }
    }
    while (pairs_left > 0) {
      std::vector<unsigned char> message;
      int source = -1, rc = MPI_SUCCESS;
      if (!relay::receive_next(channel_, MPI_ANY_SOURCE, init.relay, message, &source, &rc)) {
        if (rc != MPI_SUCCESS) {
          fail(rc, true, -1);
          pairs_left = 0;
        }
        break;
      }
      std::size_t p = rc == MPI_SUCCESS && message.size() >= relay::kPairSizeBytes ? pair_of(message, source)
                                                                                   : r.receive_pairs.size();
      if (p < r.receive_pairs.size() &&
          message.size() != relay::kPairSizeBytes + 2 * kWord * r.receive_pairs[p].to.size()) {
        p = r.receive_pairs.size();
      }
      if (p == r.receive_pairs.size() || pair_source[p] >= 0) {
        fail(rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER, true, source);
      } else {
        pair_source[p] = source;
        std::uint64_t bytes = 0;
        std::memcpy(&bytes, message.data() + 2 * kWord, sizeof bytes);
        pair_bytes[p] = static_cast<std::size_t>(bytes);
        const unsigned char* const table = message.data() + relay::kPairSizeBytes;
        run.pair_sizes[p].resize(r.receive_pairs[p].to.size());
        for (std::size_t g = 0; g < run.pair_sizes[p].size(); ++g) {
          run.pair_sizes[p][g] = {nullptr, get(table, 2 * g), get(table, 2 * g + 1)};
        }
      }
      --pairs_left;
    }
  }
  for (MPI_Request& q : requests) {
    if (const int rc = PMPI_Wait(&q, MPI_STATUS_IGNORE); rc != MPI_SUCCESS) fail(rc, false, -1);
  }
  // One receive per pair, from its send relay, of the largest size that relay
  // sends here: a send relay with several pairs for this rank sends them in
  // the order they complete, so a receive from it may get any of them.
  run.slots.clear();
  std::vector<std::size_t> order(r.receive_pairs.size());
  for (std::size_t p = 0; p < order.size(); ++p) order[p] = p;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return pair_source[a] < pair_source[b]; });
  for (std::size_t k = 0; k < order.size();) {
    std::size_t end = k, largest = 0;
    while (end < order.size() && pair_source[order[end]] == pair_source[order[k]])
      largest = std::max(largest, pair_bytes[order[end++]]);
    for (; k < end; ++k) run.slots.push_back({pair_source[order[k]], largest});
  }
  run.slot_data.resize(run.slots.size());
  run.preposted = !drop_ && error_ == MPI_SUCCESS;
}

void RelayExchange::begin(Tags tags) noexcept {
  const Routes& r = *plan_->routes;
  Run& run = *run_;
  const std::lock_guard lock(run.mutex);
  run.tags = tags;
  error_ = MPI_SUCCESS;
  // Receives first: from each receive relay (a dropping run probes instead).
  run.from_relays.resize(r.from_receive_relays.size());
  run.from_relay_requests.assign(r.from_receive_relays.size(), MPI_REQUEST_NULL);
  run.from_relay_done.assign(r.from_receive_relays.size(), 0);
  run.from_relays_left = r.from_receive_relays.size();
  run.completed_indices.resize(r.from_receive_relays.size());
  run.completed_statuses.resize(r.from_receive_relays.size());
  run.empty_receives.clear();
  for (std::size_t j = 0; j < r.from_receive_relays.size() && !drop_; ++j) {
    const auto& message = r.from_receive_relays[j];
    std::size_t bytes = run.preposted ? 0 : 2 * kWord * message.groups.size();
    for (int g : message.groups) bytes += receives.relayed_bytes[static_cast<std::size_t>(g)];
    run.from_relays[j].resize(bytes);
    if (message.relay == origin_.rank) continue;  // this rank's own relaying hands it over (take_pair)
    const int rc = mpi::irecv(run.from_relays[j].data(), static_cast<MPI_Count>(bytes), MPI_PACKED, message.relay,
                              tags.scatter, channel_, &run.from_relay_requests[j]);
    if (rc != MPI_SUCCESS) fail(rc, true, message.relay);
  }
  // The relays' state.
  run.participant_data.resize(r.participants.size());
  run.participant_done.assign(r.participants.size(), 0);
  run.participants_left = r.participants.size();
  run.out_pieces.resize(r.send_pairs.size());
  run.out_pair_left.resize(r.send_pairs.size());
  for (std::size_t p = 0; p < r.send_pairs.size(); ++p) {
    run.out_pieces[p].assign(r.send_pairs[p].from.size(), {});
    run.out_pair_left[p] = r.send_pairs[p].from.size();
  }
  run.out_pairs.resize(r.send_pairs.size());
  run.out_pair_requests.assign(r.send_pairs.size(), MPI_REQUEST_NULL);
  run.in_pairs.resize(r.receive_pairs.size());
  run.in_pair_done.assign(r.receive_pairs.size(), 0);
  run.early.resize(r.receive_pairs.size());
  run.in_pairs_left = r.receive_pairs.size();
  run.dest_pieces.resize(r.destinations.size());
  run.dest_left.resize(r.destinations.size());
  run.joined_data.resize(r.joined_sends.size());
  for (std::size_t d = 0; d < r.destinations.size(); ++d) {
    const auto& destination = r.destinations[d];
    run.dest_pieces[d].assign(destination.groups.size() + (destination.joined >= 0 ? 1 : 0), {});
    run.dest_left[d] = destination.groups.size();
    if (destination.joined < 0) continue;
    // This rank's own blocks for d, packed now: they wait for the relayed ones.
    const auto j = static_cast<std::size_t>(destination.joined);
    Run::Piece& own = run.dest_pieces[d].back();
    if (drop_) {
      own.blocks = kDropped;
      continue;
    }
    std::vector<unsigned char>& data = run.joined_data[j];
    data.resize(joined.relayed_bytes[j]);
    MPI_Count position = 0;
    int rc = MPI_SUCCESS;
    relay::pack_relayed(joined, j, data, &position, &rc);
    own = {data.data(), joined.relayed_blocks[j], static_cast<Word>(position)};
    if (rc != MPI_SUCCESS) fail(rc, false, destination.rank);
  }
  run.to_destinations.resize(r.destinations.size());
  run.to_destination_requests.assign(r.destinations.size(), MPI_REQUEST_NULL);
  if (run.preposted) {
    // Every receive up front: from the participants, the send relays (sizes
    // from learn_sizes), and the receive relays (sizes from this rank's own
    // slots, as above).
    run.posted.assign(r.participants.size() + run.slots.size() + r.from_receive_relays.size(), MPI_REQUEST_NULL);
    run.posted_indices.resize(run.posted.size());
    run.posted_statuses.resize(run.posted.size());
    for (std::size_t q = 0; q < r.participants.size(); ++q) {
      if (r.participants[q].rank == origin_.rank) continue;  // its own blocks come below
      run.participant_data[q].resize(run.participant_bytes[q]);
      const int rc = mpi::irecv(run.participant_data[q].data(), static_cast<MPI_Count>(run.participant_bytes[q]),
                                MPI_PACKED, r.participants[q].rank, tags.gather, channel_, &run.posted[q]);
      if (rc != MPI_SUCCESS) take_posted(q, rc, MPI_Status{});
    }
    for (std::size_t k = 0; k < run.slots.size(); ++k) {
      run.slot_data[k].resize(run.slots[k].bytes);
      const int rc = mpi::irecv(run.slot_data[k].data(), static_cast<MPI_Count>(run.slots[k].bytes), MPI_PACKED,
                                run.slots[k].source, tags.relay, channel_, &run.posted[r.participants.size() + k]);
      if (rc != MPI_SUCCESS) fail(rc, true, run.slots[k].source);
    }
    const std::size_t first = r.participants.size() + run.slots.size();
    for (std::size_t j = 0; j < r.from_receive_relays.size(); ++j) {
      run.posted[first + j] = run.from_relay_requests[j];
      run.from_relay_requests[j] = MPI_REQUEST_NULL;
      if (run.posted[first + j] == MPI_REQUEST_NULL && r.from_receive_relays[j].relay != origin_.rank) {
        take_posted(first + j, MPI_ERR_OTHER, MPI_Status{});  // failed above
      }
    }
  }
  // Then this rank's blocks, one message to each send relay.
  run.to_relays.resize(r.to_send_relays.size());
  run.to_relay_requests.assign(r.to_send_relays.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < r.to_send_relays.size(); ++i) {
    const auto& message = r.to_send_relays[i];
    const std::size_t header = 2 * message.groups.size();
    std::size_t bytes = header * kWord;
    for (int g : message.groups) {
      if (!drop_) bytes += sends.relayed_bytes[static_cast<std::size_t>(g)];
    }
    std::vector<unsigned char>& buffer = run.to_relays[i];
    buffer.resize(bytes);
    MPI_Count position = static_cast<MPI_Count>(header * kWord);
    for (std::size_t n = 0; n < message.groups.size(); ++n) {
      const auto g = static_cast<std::size_t>(message.groups[n]);
      if (drop_) {
        put(buffer, 2 * n, kDropped);
        put(buffer, 2 * n + 1, 0);
        continue;
      }
      const MPI_Count start = position;
      int rc = MPI_SUCCESS;
      relay::pack_relayed(sends, g, buffer, &position, &rc);
      put(buffer, 2 * n, sends.relayed_blocks[g]);
      put(buffer, 2 * n + 1, static_cast<Word>(position - start));
      if (rc != MPI_SUCCESS) fail(rc, false, r.sends[g].peer);
    }
    if (message.relay == origin_.rank) {
      // This rank relays these groups itself: no message to itself.
      const auto q =
          static_cast<std::size_t>(std::lower_bound(r.participants.begin(), r.participants.end(), origin_.rank,
                                                    [](const Routes::Member& m, int rank) { return m.rank < rank; }) -
                                   r.participants.begin());
      run.participant_data[q].swap(buffer);
      take_participant(q, MPI_SUCCESS);
      continue;
    }
    const int rc = mpi::isend(buffer.data(), static_cast<MPI_Count>(bytes), MPI_PACKED, message.relay, tags.gather,
                              channel_, &run.to_relay_requests[i]);
    if (rc != MPI_SUCCESS) fail(rc, false, message.relay);
  }
  if (!run.registered) {
    const std::lock_guard registry(registry_mutex);
    running(process_).push_back(this);
    run.registered = true;
  }
}

bool RelayExchange::complete() const noexcept {
  const Run& run = *run_;
  const auto none = [](const std::vector<MPI_Request>& requests) {
    return std::all_of(requests.begin(), requests.end(), [](MPI_Request q) { return q == MPI_REQUEST_NULL; });
  };
  return run.receives_left() == 0 && none(run.to_relay_requests) && none(run.empty_receives) &&
         none(run.out_pair_requests) && none(run.to_destination_requests);
}

bool RelayExchange::step() noexcept {
  if (run_->preposted) {
    step_preposted();
  } else {
    step_send_relay();
    step_receive_relay();
    step_destination();
  }
  // A poll tests no send: eager sends complete on their own, others as their
  // receivers take them, which the probes and tests of the receiving side
  // progress. Testing each at every poll cost a call per request and poll.
  const Run& run = *run_;
  if (run.from_relays_left == 0 && run.participants_left == 0 && run.in_pairs_left == 0) test_sends();
  return complete();
}

void RelayExchange::step_preposted() noexcept {
  Run& run = *run_;
  if (run.receives_left() > 0) {
    // MPI_Testsome: one progress call for all of them in MPICH.
    int completed = 0;
    const int rc = PMPI_Testsome(static_cast<int>(run.posted.size()), run.posted.data(), &completed,
                                 run.posted_indices.data(), run.posted_statuses.data());
    if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
      fail(rc, true, -1);
    } else if (completed != MPI_UNDEFINED) {
      for (int k = 0; k < completed; ++k) {
        const auto i = static_cast<std::size_t>(run.posted_indices[static_cast<std::size_t>(k)]);
        const MPI_Status& status = run.posted_statuses[static_cast<std::size_t>(k)];
        take_posted(i, rc == MPI_ERR_IN_STATUS ? status.MPI_ERROR : rc, status);
      }
    }
  }
  relay::test_all(run.empty_receives, [this](int rc) { fail(rc, true, -1); });
}

void RelayExchange::take_posted(std::size_t i, int code, const MPI_Status& status) noexcept {
  const Routes& r = *plan_->routes;
  Run& run = *run_;
  run.posted[i] = MPI_REQUEST_NULL;
  MPI_Count bytes = 0;
  if (code == MPI_SUCCESS) code = mpi::message_bytes(&status, &bytes);
  if (i < r.participants.size()) {
    if (code == MPI_SUCCESS) run.participant_data[i].resize(static_cast<std::size_t>(bytes));
    take_participant(i, code);
    return;
  }
  i -= r.participants.size();
  if (i < run.slots.size()) {
    const int from = run.slots[i].source;
    std::vector<unsigned char>& message = run.slot_data[i];
    std::size_t p = r.receive_pairs.size();
    if (code != MPI_SUCCESS) {
      fail(code, true, from);
    } else {
      message.resize(static_cast<std::size_t>(bytes));
      p = pair_of(message, from);
      if (p < r.receive_pairs.size() && run.in_pair_done[p]) {
        fail(MPI_ERR_OTHER, true, from);
        p = r.receive_pairs.size();
      }
    }
    // Not counted otherwise, as when probing: sizes come from init, so a
    // failure here is MPI's, not the arguments'.
    if (p < r.receive_pairs.size()) take_pair(p, message, from);
    return;
  }
  i -= run.slots.size();
  if (code == MPI_SUCCESS) {
    take_from_receive_relay(i);
    return;
  }
  fail(code, true, r.from_receive_relays[i].relay);
  run.from_relay_done[i] = 1;
  --run.from_relays_left;
}

void RelayExchange::test_sends() noexcept {
  Run& run = *run_;
  const auto failed_send = [this](int rc) { fail(rc, false, -1); };
  relay::test_all(run.to_relay_requests, failed_send);
  relay::test_all(run.out_pair_requests, failed_send);
  relay::test_all(run.to_destination_requests, failed_send);
}

void RelayExchange::step_destination() noexcept {
  const Routes& r = *plan_->routes;
  Run& run = *run_;
  // As a destination: unpack what the receive relays bring, in the order it
  // comes.
  if (drop_) {
    for (std::size_t j = 0; j < r.from_receive_relays.size(); ++j) {
      if (run.from_relay_done[j]) continue;
      const int relay = r.from_receive_relays[j].relay;
      if (relay == origin_.rank) continue;  // handed over by take_pair
      int from = 0, rc = MPI_SUCCESS;
      if (relay::receive_next(channel_, relay, run.tags.scatter, run.from_relays[j], &from, &rc)) {
        take_from_receive_relay(j);
      } else if (rc != MPI_SUCCESS) {
        fail(rc, true, relay);
      }
    }
  } else if (run.from_relays_left > 0) {
    // MPI_Testsome: one progress call for all of them in MPICH. (SMPI's
    // MPI_Testany would lengthen its injected wait with every call that finds
    // nothing, whatever smpi/grow-injected-times says.)
    int completed = 0;
    const int rc = PMPI_Testsome(static_cast<int>(run.from_relay_requests.size()), run.from_relay_requests.data(),
                                 &completed, run.completed_indices.data(), run.completed_statuses.data());
    if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
      fail(rc, true, -1);
    } else if (completed != MPI_UNDEFINED) {
      for (int k = 0; k < completed; ++k) {
        const auto j = static_cast<std::size_t>(run.completed_indices[static_cast<std::size_t>(k)]);
        const int code = rc == MPI_ERR_IN_STATUS ? run.completed_statuses[static_cast<std::size_t>(k)].MPI_ERROR : rc;
        if (code == MPI_SUCCESS) {
          take_from_receive_relay(j);
          continue;
        }
        fail(code, true, r.from_receive_relays[j].relay);
        run.from_relay_requests[j] = MPI_REQUEST_NULL;
        run.from_relay_done[j] = 1;
        --run.from_relays_left;
      }
    }
  }
  relay::test_all(run.empty_receives, [this](int rc) {
    // A dropping run receives its direct blocks into nothing: truncation is
    // expected there.
    if (!drop_) fail(rc, true, -1);
  });
}

void RelayExchange::take_from_receive_relay(std::size_t j) noexcept {
  const Routes& r = *plan_->routes;
  Run& run = *run_;
  const auto& message = r.from_receive_relays[j];
  const auto& data = run.from_relays[j];
  run.from_relay_done[j] = 1;
  --run.from_relays_left;
  // A pre-posted run's message carries no lengths: the receive types give them.
  const bool sized = !run.preposted;
  std::size_t offset = sized ? 2 * kWord * message.groups.size() : 0;
  for (std::size_t n = 0; n < message.groups.size(); ++n) {
    const auto g = static_cast<std::size_t>(message.groups[n]);
    const int peer = r.receives[g].peer;
    const std::size_t total = r.receives[g].slots.size();
    Word blocks = kDropped;
    Word bytes = 0;
    if (!sized) {
      blocks = receives.relayed_blocks[g];
      bytes = receives.relayed_bytes[g];
    } else if (offset <= data.size()) {
      blocks = get(data.data(), 2 * n);
      bytes = get(data.data(), 2 * n + 1);
    }
    // Blocks the sender sent direct that no receive was posted for yet.
    std::size_t empty = 0;
    if (drop_) {
      empty = blocks == kDropped ? total : total - std::min<std::size_t>(total, static_cast<std::size_t>(blocks));
    } else {
      const Word expected_blocks = receives.relayed_blocks[g];
      const Word expected_bytes = receives.relayed_bytes[g];
      if (blocks == kDropped) {
        empty = expected_blocks;
      } else if (blocks != expected_blocks || bytes > expected_bytes || offset + bytes > data.size()) {
        fail(MPI_ERR_TRUNCATE, true, peer);
      } else if (bytes == expected_bytes) {
        MPI_Count position = static_cast<MPI_Count>(offset);
        if (int rc = MPI_SUCCESS; !relay::unpack_relayed(receives, g, data, &position, &rc)) fail(rc, true, peer);
      }
    }
    if (blocks != kDropped) offset += static_cast<std::size_t>(bytes);
    for (std::size_t e = 0; e < empty; ++e) {
      run.empty_receives.push_back(MPI_REQUEST_NULL);
      const int rc = PMPI_Irecv(nullptr, 0, MPI_BYTE, peer, run.tags.direct, channel_, &run.empty_receives.back());
      if (rc != MPI_SUCCESS) fail(rc, true, peer);
    }
  }
}

void RelayExchange::step_running(RelayExchange* except) noexcept {
  // Held while the others step, so that none is destroyed meanwhile; their
  // own mutexes are only tried (a thread stepping its own exchange takes
  // the registry after its mutex).
  const std::lock_guard registry(registry_mutex);
  for (RelayExchange* other : running(process_id())) {
    if (other == except) continue;
    std::unique_lock lock(other->run_->mutex, std::try_to_lock);
    if (lock.owns_lock() && !other->complete()) (void)other->step();
  }
}

void RelayExchange::unregister() noexcept {
  if (!run_->registered) return;
  const std::lock_guard registry(registry_mutex);
  forget(running(process_), this);
  run_->registered = false;
}

bool RelayExchange::poll() noexcept {
  const WorldErrorsReturned returned;
  step_running(this);
  const std::lock_guard lock(run_->mutex);
  const bool done = step();
  if (done) unregister();
  return done;
}

namespace {

bool one_thread_in_mpi() { return mpi_thread_level() != MPI_THREAD_MULTIPLE; }

}  // namespace

// A pre-posted run waits instead of polling: MPI_Waitany over the receives
// still posted by every exchange in progress (this rank's relaying for the
// others included), each completion taken by its exchange. When one of them
// is not pre-posted (it probes), or with MPI_THREAD_MULTIPLE (another thread
// may step the same exchanges), it polls as before.
bool RelayExchange::wait_turn(bool* done) noexcept {
  const WorldErrorsReturned returned;
  std::vector<MPI_Request> all;
  std::vector<std::pair<RelayExchange*, std::size_t>> owner;
  {
    const std::lock_guard registry(registry_mutex);
    for (RelayExchange* e : running(process_id())) {
      if (e->complete()) continue;
      if (!e->run_->preposted) return false;
      for (std::size_t i = 0; i < e->run_->posted.size(); ++i) {
        if (e->run_->posted[i] == MPI_REQUEST_NULL) continue;
        all.push_back(e->run_->posted[i]);
        owner.emplace_back(e, i);
      }
    }
  }
  Run& run = *run_;
  if (!all.empty() && run.receives_left() > 0) {
    // MPI_Waitany, not MPI_Waitsome: SMPI 3.32's MPI_Waitsome tests every
    // other request after the first completion (a charged MPI_Test each).
    // What else completed meanwhile the next turn takes at once.
    int index = MPI_UNDEFINED;
    MPI_Status status;
    const int rc = PMPI_Waitany(static_cast<int>(all.size()), all.data(), &index, &status);
    if (index == MPI_UNDEFINED) {
      fail(rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER, true, -1);
      return false;  // poll instead
    }
    const auto [e, i] = owner[static_cast<std::size_t>(index)];
    e->take_posted(i, rc, status);
  }
  if (run.receives_left() == 0) {
    // Nothing left to receive but the empty direct messages of dropped
    // groups: those and the sends are waited for.
    const auto wait_all = [this](std::vector<MPI_Request>& requests, bool receive) {
      for (MPI_Request& q : requests) {
        if (q == MPI_REQUEST_NULL) continue;
        if (const int rc = PMPI_Wait(&q, MPI_STATUS_IGNORE); rc != MPI_SUCCESS) fail(rc, receive, -1);
        q = MPI_REQUEST_NULL;
      }
    };
    wait_all(run.empty_receives, true);
    wait_all(run.to_relay_requests, false);
    wait_all(run.out_pair_requests, false);
    wait_all(run.to_destination_requests, false);
  }
  *done = complete();
  if (*done) unregister();
  return true;
}

void RelayExchange::finish() noexcept {
  if (run_->preposted && one_thread_in_mpi()) {
    bool done = complete();
    while (!done) {
      if (!wait_turn(&done)) done = poll();
    }
    unregister();
    return;
  }
  while (!poll()) {
  }
}

}  // namespace distopo::detail
