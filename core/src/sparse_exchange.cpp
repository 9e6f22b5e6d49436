#include "distopo/core/sparse_exchange.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <deque>
#include <new>
#include <string>

#include "distopo/core/comm.hpp"
#include "distopo/core/element_type.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/idle_backoff.hpp"
#include "distopo/core/node_layout.hpp"
#include "dropped_message.hpp"
#include "max_reduction.hpp"
#include "nbx.hpp"

namespace distopo::detail {
namespace {
// The exchange owns its communicator while it runs, so fixed tags suffice;
// a data message's tag is kFirstDataTag plus its kind.
constexpr int kAckTag = 1;
constexpr int kAgreementTag = 2;
constexpr int kFirstDataTag = 3;
// The acknowledgement of a message its receiver had no room for (never a
// verdict of `done`).
constexpr int kDropped = INT_MIN;

// Sends `verdict` to `source` as the acknowledgement of its message: pending
// in `sent` (its value kept in `verdicts`), or blocking when there is no room
// to keep it pending (one int; its receiver is probing for it).
void acknowledge(MPI_Comm comm, int source, int verdict, std::vector<MPI_Request>& sent, std::deque<int>& verdicts) {
  bool kept = false;
  try {
    verdicts.push_back(verdict);
    sent.emplace_back();
    kept = true;
  } catch (const std::bad_alloc&) {
    if (verdicts.size() > sent.size()) verdicts.pop_back();
  }
  if (kept) {
    check_mpi(MPI_Isend(&verdicts.back(), 1, MPI_INT, source, kAckTag, comm, &sent.back()), "MPI_Isend");
  } else {
    check_mpi(MPI_Send(&verdict, 1, MPI_INT, source, kAckTag, comm), "MPI_Send");
  }
}

// Where posting starts: messages in destination order are posted from the
// first destination after this rank, wrapping around (as MPI libraries order
// an alltoall's peers). In plain order every rank would reach the high ranks
// last, and the highest would finish last by the time a rank takes to post
// all its messages (the simulated study: docs/results/scaling/README.md).
std::size_t first_to_post(const std::vector<RawMessage>& outgoing, int self) {
  const auto by_destination = [](const RawMessage& a, const RawMessage& b) { return a.destination < b.destination; };
  if (!std::is_sorted(outgoing.begin(), outgoing.end(), by_destination)) return 0;
  const auto after_self =
      std::upper_bound(outgoing.begin(), outgoing.end(), self,
                       [](int rank, const RawMessage& message) { return rank < message.destination; });
  return static_cast<std::size_t>(after_self - outgoing.begin());
}

// How long the loop polls before its naps, and its longest nap
// (idle_backoff.hpp): an exchange of 10^5 edges per rank on shared cores
// waits a few milliseconds, and every nap may delay a message still on its
// way (docs/design/sparse-exchange.md, "Waiting ranks sleep").
constexpr std::chrono::microseconds kPollBeforeNaps{4000};
constexpr std::chrono::microseconds kLongestNap{100};

// This rank's messages above the size that MPI sends eagerly (a 4 KiB bound,
// below the eager limits of MPICH over UCX and of SimGrid): each moves only as
// its sender makes progress, so a sender must keep polling until its receiver
// acknowledges it. Per destination, sorted; nothing of size P.
class LargeSends {
 public:
  static constexpr std::size_t kEagerBytes = 4096;

  LargeSends(const std::vector<RawMessage>& outgoing, int self, std::size_t element_size) {
    for (const RawMessage& message : outgoing) {
      if (message.destination != self && static_cast<std::size_t>(message.count) * element_size > kEagerBytes) {
        destinations_.push_back(message.destination);
      }
    }
    std::sort(destinations_.begin(), destinations_.end());
  }
  // An acknowledgement from `destination` arrived: one message to it was received.
  void received_by(int destination) {
    const auto [first, last] = std::equal_range(destinations_.begin(), destinations_.end(), destination);
    if (first != last) destinations_.erase(first);
  }
  [[nodiscard]] bool none_in_flight() const { return destinations_.empty(); }

 private:
  std::vector<int> destinations_;  // of the large messages not yet acknowledged
};

}  // namespace

void* room_for(const PlaceFn& place, int source, int kind, int count) {
  try {
    return place(source, kind, count);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

void sparse_exchange_raw(MPI_Comm comm, std::size_t element_size, const std::vector<RawMessage>& outgoing,
                         const PlaceFn& place, const DoneFn& done, const VerdictFn& on_verdict,
                         std::span<int> agreement_max, const ExchangeRoute& route) {
  for (const RawMessage& message : outgoing) {
    if (message.kind < 0 || message.kind >= kMaxMessageKinds) {
      throw Error(MPI_ERR_INTERN, "sparse exchange: message kind " + std::to_string(message.kind) + " out of range");
    }
  }
  // The caller's values and every rank's route (its ranks per node, or -1
  // while its nodes are still to be found, as the maximum and the
  // minimum): ranks given different routes find out in the same round, all
  // of them, instead of waiting for each other. A gather a direct rank
  // receives from such a rank is dropped unread.
  const int route_id = route.find_nodes ? -1 : route.ranks_per_node;
  std::vector<int> values(agreement_max.begin(), agreement_max.end());
  values.push_back(route_id);
  values.push_back(-route_id);
  values.push_back(0);
  const std::span<int> routes(values.end() - kRouteSlots, values.end());
  const VerdictFn verdict_then_values = [&](int destination, int verdict) {
    on_verdict(destination, verdict);
    std::copy(agreement_max.begin(), agreement_max.end(), values.begin());
  };
  const auto name = [](int id) {
    return id < 0 ? std::string("nodes still to be found") : std::to_string(id) + " ranks per node";
  };
  const auto check_routes = [&] {
    std::copy(values.begin(), values.end() - kRouteSlots, agreement_max.begin());
    if (routes[0] != -routes[1]) {
      throw RouteMismatch(MPI_ERR_ARG, std::string("ranks were given different exchange routes (") + kExchangeInfoKey +
                                           ", " + kExchangeEnv + " or the declared nodes differ: " + name(-routes[1]) +
                                           " and " + name(routes[0]) + "); they must be the same on all ranks");
    }
  };
  try {
    if (route.node_aware()) {
      node_aware_exchange(comm, route, element_size, outgoing, place, done, verdict_then_values, values);
    } else {
      std::vector<std::byte> stray;
      nbx_exchange(
          comm, element_size, outgoing,
          [&](int source, int kind, int count) -> void* {
            if (kind != kGatherKind) return place(source, kind, count);
            stray.resize(static_cast<std::size_t>(count) * element_size);
            return stray.data();
          },
          [&](int source, int kind, int count, const void* data) {
            return kind == kGatherKind ? 0 : done(source, kind, count, data);
          },
          verdict_then_values, values, kMaxMessageKinds + 1);
    }
  } catch (const DroppedMessages&) {
    check_routes();
    throw;
  }
  check_routes();
  if (route.find_nodes) route.find_nodes();  // every rank asked: collective
}

// Requests are completed through PMPI_ names: the C API library interposes
// MPI_Wait*/MPI_Test* (for persistent neighborhood collectives).
void nbx_exchange(MPI_Comm comm, std::size_t element_size, const std::vector<RawMessage>& outgoing,
                  const PlaceFn& place, const DoneFn& done, const VerdictFn& on_verdict, std::span<int> agreement_max,
                  int kinds) {
  const int self = comm_rank(comm);
  const int size = comm_size(comm);
  const MPI_Datatype element_type = contiguous_bytes(element_size);

  // Everything this rank needs is allocated before its first send, so that
  // running out of memory here leaves nothing in flight (the round can be
  // joined again); later, a message without room is dropped and an
  // acknowledgement without room is sent blocking.
  // The caller's values and one slot more: size - r for the lowest rank r
  // that had to drop a message, 0 if none. The caller's are taken when this
  // rank contributes: verdict callbacks may set them until then.
  std::vector<int> values(agreement_max.size() + 1, 0);
  MaxReduction agreement(comm, values, kAgreementTag);
  const auto contribute = [&] {
    std::copy(agreement_max.begin(), agreement_max.end(), values.begin());
    agreement.start();
  };
  std::vector<MPI_Request> acks_sent;
  std::deque<int> verdicts_sent;  // stable addresses while the acknowledgements are pending
  std::vector<MPI_Request> sends;
  sends.reserve(outgoing.size());
  LargeSends large_sends(outgoing, self, element_size);

  // Eager sends, each confirmed by an acknowledgement from its receiver:
  // NBX's synchronous-send semantics without MPI_Issend, which MPICH over UCX
  // completes far more slowly (docs/design/sparse-exchange.md).
  const std::size_t first = first_to_post(outgoing, self);
  for (std::size_t i = 0; i < outgoing.size(); ++i) {
    const RawMessage& message = outgoing[(first + i) % outgoing.size()];
    if (message.destination == self) continue;
    sends.emplace_back();
    check_mpi(MPI_Isend(message.data, message.count, element_type, message.destination, kFirstDataTag + message.kind,
                        comm, &sends.back()),
              "MPI_Isend");
  }
  std::size_t acks_missing = sends.size();

  // The message to ourselves is a copy; doing it after posting the sends
  // overlaps it with their transfer.
  for (const RawMessage& message : outgoing) {
    if (message.destination != self) continue;
    void* target = room_for(place, self, message.kind, message.count);
    if (target == nullptr && message.count > 0) {
      values.back() = std::max(values.back(), size - self);
      continue;
    }
    if (message.count > 0) std::memcpy(target, message.data, static_cast<std::size_t>(message.count) * element_size);
    if (const int verdict = done(self, message.kind, message.count, target); verdict != 0) {
      on_verdict(self, verdict);
    }
  }
  // A rank enters the agreement once every message of its own was received
  // (and its verdicts are in); the agreement completes once every rank has.
  if (acks_missing == 0) contribute();

  // One MPI_Iprobe per turn for all three kinds of message: it is the loop's
  // only progress poll (see max_reduction.hpp for why that matters). A rank
  // that waits long for the others sleeps between polls (idle_backoff.hpp),
  // unless a large message of its own is still unreceived: that one moves
  // only as its sender makes progress.
  IdleBackoff backoff(kPollBeforeNaps, kLongestNap);
  while (!agreement.done()) {
    int arrived = 0;
    MPI_Status status;
    check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &arrived, &status), "MPI_Iprobe");
    if (!arrived) {
      if (large_sends.none_in_flight()) backoff.idle();
      continue;
    }
    backoff.progress();
    const int source = status.MPI_SOURCE;
    const int tag = status.MPI_TAG;
    if (tag >= kFirstDataTag && tag < kFirstDataTag + kinds) {
      const int kind = tag - kFirstDataTag;
      int count = 0;
      check_mpi(MPI_Get_count(&status, element_type, &count), "MPI_Get_count");
      void* target = room_for(place, source, kind, count);
      int verdict = kDropped;
      if (target == nullptr && count > 0) {
        // The sender reports it in the agreement: this rank may have
        // contributed already.
        drop_message(comm, source, tag, element_type);
      } else {
        check_mpi(MPI_Recv(target, count, element_type, source, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
        verdict = done(source, kind, count, target);
      }
      acknowledge(comm, source, verdict, acks_sent, verdicts_sent);
      continue;
    }
    switch (tag) {
      case kAckTag: {
        int verdict = 0;
        check_mpi(MPI_Recv(&verdict, 1, MPI_INT, source, kAckTag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
        if (verdict == kDropped) {
          values.back() = std::max(values.back(), size - source);
        } else if (verdict != 0) {
          on_verdict(source, verdict);
        }
        large_sends.received_by(source);
        if (--acks_missing == 0) contribute();
        break;
      }
      case kAgreementTag:
        agreement.receive(source);
        break;
      default:
        throw Error(MPI_ERR_INTERN, "sparse exchange: a message with tag " + std::to_string(tag) + " from rank " +
                                        std::to_string(source) +
                                        " on the exchange's communicator, which must carry nothing else");
    }
  }
  // Acknowledged data sends and small acknowledgements complete at once.
  agreement.complete_sends();
  check_mpi(PMPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  check_mpi(PMPI_Waitall(static_cast<int>(acks_sent.size()), acks_sent.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  std::copy(values.begin(), values.end() - 1, agreement_max.begin());
  if (values.back() != 0) {
    throw DroppedMessages(MPI_ERR_NO_MEM, "rank " + std::to_string(size - values.back()) +
                                              ": out of memory for the data other ranks sent it; it was dropped");
  }
}

}  // namespace distopo::detail
