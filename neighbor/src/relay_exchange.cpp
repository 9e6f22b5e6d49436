// The relayed part of an aggregated collective (exchange.hpp, RelayExchange).
//
// Messages, all MPI_PACKED on the collective's channel, each step with its
// own tag, every length a 64-bit word:
//   a -> x (gather):   per group of a that x relays, (blocks, bytes); the data
//   x -> y (relay):    the source node and lane; per group, (blocks,
//                      bytes); the data
//   y -> b (scatter):  per group of b that y brings, (blocks, bytes); the data
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
#include <vector>

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

}  // namespace relay

namespace {

using relay::get;
using relay::kDropped;
using relay::kWord;
using relay::put;
using relay::Word;

// The relaying exchanges with a run in progress, which every poll progresses.
std::mutex registry_mutex;
std::vector<RelayExchange*> running;

}  // namespace

RelayExchange::RelayExchange(std::shared_ptr<const Plan> plan, MPI_Comm channel, Origin origin, bool drop)
    : plan_(std::move(plan)), channel_(channel), origin_(origin), drop_(drop), run_(std::make_unique<Run>()) {
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
    running.erase(std::remove(running.begin(), running.end(), this), running.end());
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

void RelayExchange::begin(Tags tags) noexcept {
  const Routes& r = *plan_->routes;
  const std::uint64_t limit = plan_->selection.aggregate_max_bytes;
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
    std::size_t bytes = 2 * kWord * message.groups.size();
    for (int g : message.groups) {
      for (std::size_t k = receives.first[g]; k < receives.first[g + 1]; ++k) {
        if (static_cast<std::uint64_t>(receives.bytes[k]) <= limit)
          bytes += static_cast<std::size_t>(receives.bytes[k]);
      }
    }
    run.from_relays[j].resize(bytes);
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
  for (std::size_t d = 0; d < r.destinations.size(); ++d) {
    run.dest_pieces[d].assign(r.destinations[d].groups.size(), {});
    run.dest_left[d] = r.destinations[d].groups.size();
  }
  run.to_destinations.resize(r.destinations.size());
  run.to_destination_requests.assign(r.destinations.size(), MPI_REQUEST_NULL);
  // Then this rank's blocks, one message to each send relay.
  run.to_relays.resize(r.to_send_relays.size());
  run.to_relay_requests.assign(r.to_send_relays.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < r.to_send_relays.size(); ++i) {
    const auto& message = r.to_send_relays[i];
    const std::size_t header = 2 * message.groups.size();
    std::size_t bytes = header * kWord;
    for (int g : message.groups) {
      for (std::size_t k = drop_ ? 0 : sends.first[g]; !drop_ && k < sends.first[g + 1]; ++k) {
        if (static_cast<std::uint64_t>(sends.bytes[k]) <= limit) bytes += static_cast<std::size_t>(sends.bytes[k]);
      }
    }
    std::vector<unsigned char>& buffer = run.to_relays[i];
    buffer.resize(bytes);
    MPI_Count position = static_cast<MPI_Count>(header * kWord);
    for (std::size_t n = 0; n < message.groups.size(); ++n) {
      const int g = message.groups[n];
      if (drop_) {
        put(buffer, 2 * n, kDropped);
        put(buffer, 2 * n + 1, 0);
        continue;
      }
      const MPI_Count start = position;
      Word blocks = 0;
      for (std::size_t k = sends.first[g]; k < sends.first[g + 1]; ++k) {
        if (static_cast<std::uint64_t>(sends.bytes[k]) > limit) continue;
        ++blocks;
        const Block& b = sends.blocks[k];
        if (relay::contiguous(b.type)) {
          if (sends.bytes[k] > 0)
            std::memcpy(buffer.data() + position, b.buffer, static_cast<std::size_t>(sends.bytes[k]));
          position += sends.bytes[k];
        } else if (const int rc =
                       mpi::pack(b.buffer, b.count, b.type, buffer.data(), static_cast<MPI_Count>(bytes), &position);
                   rc != MPI_SUCCESS) {
          fail(rc, false, r.sends[static_cast<std::size_t>(g)].peer);
        }
      }
      put(buffer, 2 * n, blocks);
      put(buffer, 2 * n + 1, static_cast<Word>(position - start));
    }
    const int rc = mpi::isend(buffer.data(), static_cast<MPI_Count>(bytes), MPI_PACKED, message.relay, tags.gather,
                              channel_, &run.to_relay_requests[i]);
    if (rc != MPI_SUCCESS) fail(rc, false, message.relay);
  }
  if (!run.registered) {
    const std::lock_guard registry(registry_mutex);
    running.push_back(this);
    run.registered = true;
  }
}

bool RelayExchange::complete() const noexcept {
  const Run& run = *run_;
  const auto none = [](const std::vector<MPI_Request>& requests) {
    return std::all_of(requests.begin(), requests.end(), [](MPI_Request q) { return q == MPI_REQUEST_NULL; });
  };
  return run.from_relays_left == 0 && run.participants_left == 0 && run.in_pairs_left == 0 &&
         none(run.to_relay_requests) && none(run.empty_receives) && none(run.out_pair_requests) &&
         none(run.to_destination_requests);
}

bool RelayExchange::step() noexcept {
  step_send_relay();
  step_receive_relay();
  step_destination();
  // A poll tests no send: eager sends complete on their own, others as their
  // receivers take them, which the probes and tests of the receiving side
  // progress. Testing each at every poll cost a call per request and poll.
  const Run& run = *run_;
  if (run.from_relays_left == 0 && run.participants_left == 0 && run.in_pairs_left == 0) test_sends();
  return complete();
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
  const std::uint64_t limit = plan_->selection.aggregate_max_bytes;
  Run& run = *run_;
  const auto& message = r.from_receive_relays[j];
  const auto& data = run.from_relays[j];
  run.from_relay_done[j] = 1;
  --run.from_relays_left;
  std::size_t offset = 2 * kWord * message.groups.size();
  for (std::size_t n = 0; n < message.groups.size(); ++n) {
    const auto g = static_cast<std::size_t>(message.groups[n]);
    const int peer = r.receives[g].peer;
    const std::size_t total = r.receives[g].slots.size();
    const Word blocks = offset <= data.size() ? get(data.data(), 2 * n) : kDropped;
    const Word bytes = offset <= data.size() ? get(data.data(), 2 * n + 1) : 0;
    // Blocks the sender sent direct that no receive was posted for yet.
    std::size_t empty = 0;
    if (drop_) {
      empty = blocks == kDropped ? total : total - std::min<std::size_t>(total, static_cast<std::size_t>(blocks));
    } else {
      std::size_t expected_blocks = 0;
      Word expected_bytes = 0;
      for (std::size_t k = receives.first[g]; k < receives.first[g + 1]; ++k) {
        if (static_cast<std::uint64_t>(receives.bytes[k]) > limit) continue;
        ++expected_blocks;
        expected_bytes += static_cast<Word>(receives.bytes[k]);
      }
      if (blocks == kDropped) {
        empty = expected_blocks;
      } else if (blocks != expected_blocks || bytes > expected_bytes || offset + bytes > data.size()) {
        fail(MPI_ERR_TRUNCATE, true, peer);
      } else if (bytes == expected_bytes) {
        MPI_Count position = static_cast<MPI_Count>(offset);
        for (std::size_t k = receives.first[g]; k < receives.first[g + 1]; ++k) {
          if (static_cast<std::uint64_t>(receives.bytes[k]) > limit) continue;
          const Block& b = receives.blocks[k];
          if (relay::contiguous(b.type)) {
            if (receives.bytes[k] > 0) {
              std::memcpy(b.buffer, data.data() + position, static_cast<std::size_t>(receives.bytes[k]));
            }
            position += receives.bytes[k];
          } else if (const int rc = mpi::unpack(data.data(), static_cast<MPI_Count>(data.size()), &position, b.buffer,
                                                b.count, b.type);
                     rc != MPI_SUCCESS) {
            fail(rc, true, peer);
            break;
          }
        }
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

bool RelayExchange::poll() noexcept {
  const WorldErrorsReturned returned;
  {
    // Held while the others step, so that none is destroyed meanwhile; their
    // own mutexes are only tried (a thread stepping its own exchange takes
    // the registry after its mutex).
    const std::lock_guard registry(registry_mutex);
    for (RelayExchange* other : running) {
      if (other == this) continue;
      std::unique_lock lock(other->run_->mutex, std::try_to_lock);
      if (lock.owns_lock() && !other->complete()) (void)other->step();
    }
  }
  const std::lock_guard lock(run_->mutex);
  const bool done = step();
  if (done && run_->registered) {
    const std::lock_guard registry(registry_mutex);
    running.erase(std::remove(running.begin(), running.end(), this), running.end());
    run_->registered = false;
  }
  return done;
}

void RelayExchange::finish() noexcept {
  while (!poll()) {
  }
}

}  // namespace distopo::detail
