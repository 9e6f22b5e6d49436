// The node-aware route of the sparse exchange (sparse_exchange.hpp,
// ExchangeRoute): the locality-aware sparse data exchange of Bienz, Gautam
// and Kharel (arXiv 2308.13869), as two NBX rounds.
//
// Round 1 is the direct route's NBX, except that a rank with at least
// `gather_min` messages for other nodes sends them as one "gather" to each
// gateway of its own node instead: node A's gateway for node B and lane l is
// its rank (B c + l) mod |A|, where a rank's lane is its index on its node
// mod c and c = max(1, ranks per node / nodes) spreads each pair of nodes
// over c gateways when there are fewer nodes than ranks per node. Round 1's
// agreement also says whether anyone gathered; if nobody did (rings,
// stencils, small degrees), the exchange ends there as the direct one would.
//
// Round 2 runs on a copy of the channel. Each gateway sends what it gathered
// for node B as one "bundle" to B's gateway for (A, l), which hands every
// receiver its records in one "delivery". Deliveries and bundles are
// acknowledged once every hop after them was, carrying the receivers'
// verdicts back; a gateway then "reports" them to each rank it gathered
// from, which joins round 2's agreement once it has all its reports. So the
// agreement completes only after every record arrived, and a sender hears
// its receivers' verdicts before it contributes, as on the direct route.
//
// Out of memory in round 2 ends like a dropped message on the direct route
// (sparse_exchange.hpp): what a rank cannot hold, or cannot say what became
// of, it reports as dropped by itself, from memory it holds already or from
// the stack; every rank then throws the same DroppedMessages. What round 2
// needs before its first message (its agreement, its channel, the counts of
// deliveries per node-mate) is allocated before round 1.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "distopo/core/comm.hpp"
#include "distopo/core/element_type.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/sparse_exchange.hpp"
#include "dropped_message.hpp"
#include "max_reduction.hpp"
#include "nbx.hpp"

namespace distopo::detail {
namespace {

// Records are padded to units of 8 bytes; a round-2 message starts with one
// unit holding the sender's id of it.
constexpr std::size_t kUnit = 8;
// A verdict: the receiver (or a rank relaying the record) had no room.
constexpr int kDropped = INT_MIN;

struct RecordHeader {
  int destination;
  int source;
  int kind;
  int count;
};
constexpr std::size_t kHeaderBytes = 2 * kUnit;
static_assert(sizeof(RecordHeader) <= kHeaderBytes);

std::size_t padded(std::size_t bytes) { return (bytes + kUnit - 1) / kUnit * kUnit; }

void append_record(std::vector<std::byte>& into, const RecordHeader& header, const void* payload,
                   std::size_t payload_bytes) {
  const std::size_t at = into.size();
  into.resize(at + kHeaderBytes + padded(payload_bytes));
  std::memcpy(into.data() + at, &header, sizeof header);
  if (payload_bytes > 0) std::memcpy(into.data() + at + kHeaderBytes, payload, payload_bytes);
}

// Calls visit(header, payload, record, record bytes) for each record of
// bytes [first, last).
template <class Visit>
void for_each_record(const std::byte* first, const std::byte* last, std::size_t element_size, Visit&& visit) {
  while (first + kHeaderBytes <= last) {
    RecordHeader header{};
    std::memcpy(&header, first, sizeof header);
    const std::size_t bytes = kHeaderBytes + padded(static_cast<std::size_t>(header.count) * element_size);
    visit(header, first + kHeaderBytes, first, bytes);
    first += bytes;
  }
}

// What a receiver (or a relaying rank) said about one record.
struct Verdict {
  int source;
  int receiver;
  int verdict;
};

// Appends without throwing: false when there was no memory.
template <class T>
bool try_push(std::vector<T>& into, const T& value) {
  try {
    into.push_back(value);
    return true;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

class NodeAwareExchange {
 public:
  NodeAwareExchange(MPI_Comm comm, const ExchangeRoute& route, std::size_t element_size, const PlaceFn& place,
                    const DoneFn& done, const VerdictFn& on_verdict, std::span<int> agreement_max)
      : comm_(comm),
        element_size_(element_size),
        place_(place),
        done_(done),
        on_verdict_(on_verdict),
        self_(comm_rank(comm)),
        size_(comm_size(comm)),
        k_(route.ranks_per_node),
        gather_min_(route.gather_min),
        node_(self_ / k_),
        lanes_(std::max(1, k_ / ((size_ + k_ - 1) / k_))),
        relay_channel_(route.relay_channel),
        unit_type_(contiguous_bytes(kUnit)),
        agreement_max_(agreement_max),
        values_(agreement_max.size() + 1, 0),
        agreement_(comm, values_, kAgreementTag),
        deliveries_from_(static_cast<std::size_t>(node_size(node_)), 0) {}

  void run(const std::vector<RawMessage>& outgoing) {
    const std::vector<RawMessage>& round1 = plan_gathers(outgoing);
    const std::span<int> routes = agreement_max_.last(kRouteSlots);
    routes[2] = gathers_sent_ > 0 || !gathered_.empty() ? 1 : 0;
    nbx_exchange(
        comm_, element_size_, round1,
        [this](int source, int kind, int count) {
          return kind == kGatherKind ? room(source, count) : place_(source, kind, count);
        },
        [this](int source, int kind, int count, const void* data) {
          return kind == kGatherKind ? 0 : done_(source, kind, count, data);
        },
        on_verdict_, agreement_max_, kMaxMessageKinds + 1);
    if (routes[2] != 0 && routes[0] == -routes[1]) relay();
  }

 private:
  // Round 2's tags. An acknowledgement or a report is a header on its own
  // (ints on the stack of either side); the verdicts, if any, follow as a
  // message of their own.
  enum Tag : int { kAgreementTag = 1, kBundleTag, kDeliveryTag, kAckTag, kReportTag, kVerdictsTag };
  // Whose a round-2 message is: this rank's bundles, or the deliveries of a
  // bundle it received (an index into relays_).
  static constexpr int kGateway = -1;

  struct Sent {
    int to;
    int tag;
    int owner;
    std::vector<std::byte> bytes;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  struct VerdictsSent {
    std::vector<Verdict> verdicts;
    MPI_Request request;
  };
  struct Relay {
    int upstream;
    int upstream_id;
    int acks_missing = 0;
    std::vector<Verdict> verdicts;
    bool lost = false;            // a verdict could not be kept: all its records count as dropped here
    int upstream_id_dropped = 0;  // -n: the n-th message from upstream (acknowledge)
  };
  struct Gathered {
    int source;
    std::vector<std::byte> bytes;
  };

  [[nodiscard]] int node_of(int rank) const { return rank / k_; }
  [[nodiscard]] int node_size(int node) const { return std::min(k_, size_ - node * k_); }
  [[nodiscard]] int lane_of(int rank) const { return (rank % k_) % lanes_; }
  // Node `from`'s gateway for node `to` and `lane`.
  [[nodiscard]] int gateway(int from, int to, int lane) const {
    return from * k_ + (to * lanes_ + lane) % node_size(from);
  }

  // Round 1's messages: the caller's, but for a rank with many messages for
  // other nodes, which go into gathers (those for this rank's own gateway
  // role straight into gathered_): then round1_.
  const std::vector<RawMessage>& plan_gathers(const std::vector<RawMessage>& outgoing) {
    std::size_t off_node = 0;
    for (const RawMessage& message : outgoing) off_node += node_of(message.destination) != node_ ? 1 : 0;
    if (kUnit % element_size_ != 0 || off_node < gather_min_) return outgoing;

    std::map<int, std::vector<std::byte>> gathers;  // per gateway of this node, this rank included
    std::vector<RawMessage>& round1 = round1_;
    for (const RawMessage& message : outgoing) {
      const int node = node_of(message.destination);
      if (node == node_) {
        round1.push_back(message);
        continue;
      }
      append_record(gathers[gateway(node_, node, lane_of(self_))],
                    {message.destination, self_, message.kind, message.count}, message.data,
                    static_cast<std::size_t>(message.count) * element_size_);
    }
    for (const auto& [hop, bytes] : gathers) {
      // Too large for one message: this rank sends directly.
      if (bytes.size() / element_size_ > static_cast<std::size_t>(INT_MAX)) return outgoing;
    }
    for (auto& [hop, bytes] : gathers) {
      if (hop == self_) {
        gathered_.push_back({self_, std::move(bytes)});
        continue;
      }
      const std::vector<std::byte>& stored = gather_storage_.emplace_back(std::move(bytes));
      round1.push_back({hop, stored.data(), static_cast<int>(stored.size() / element_size_), kGatherKind});
    }
    gathers_sent_ = static_cast<int>(gather_storage_.size());
    // In destination order, which NBX posts from the rank after this one on.
    std::stable_sort(round1.begin(), round1.end(),
                     [](const RawMessage& a, const RawMessage& b) { return a.destination < b.destination; });
    return round1;
  }

  // Where a gather from `source` is received (throws std::bad_alloc: then
  // round 1 drops it).
  void* room(int source, int count) {
    Gathered& gathered = gathered_.emplace_back();
    gathered.source = source;
    try {
      gathered.bytes.resize(static_cast<std::size_t>(count) * element_size_);
    } catch (const std::bad_alloc&) {
      gathered_.pop_back();
      throw;
    }
    return gathered.bytes.data();
  }

  // --- Round 2 ---------------------------------------------------------------

  void relay() {
    relay_comm_ = relay_channel_();
    agreement_.use_copy(relay_comm_);
    reports_missing_ = gathers_sent_;
    for (const Gathered& gathered : gathered_) reports_missing_ += gathered.source == self_ ? 1 : 0;
    send_bundles();
    gateway_progress();
    contribute_if_ready();
    while (!agreement_.done()) poll();
    agreement_.complete_sends();
    for (Sent& message : sent_) check_mpi(PMPI_Wait(&message.request, MPI_STATUS_IGNORE), "MPI_Wait");
    for (VerdictsSent& verdicts : verdicts_sent_) {
      check_mpi(PMPI_Wait(&verdicts.request, MPI_STATUS_IGNORE), "MPI_Wait");
    }
    std::copy(values_.begin(), values_.end() - 1, agreement_max_.begin());
    if (values_.back() != 0) {
      throw DroppedMessages(MPI_ERR_NO_MEM, "rank " + std::to_string(size_ - values_.back()) +
                                                ": out of memory for the data other ranks sent it; it was dropped");
    }
  }

  void new_message(int to, int tag, int owner) {
    std::vector<std::byte> bytes(kUnit);
    const int id = static_cast<int>(sent_.size());
    std::memcpy(bytes.data(), &id, sizeof id);
    sent_.push_back({to, tag, owner, std::move(bytes)});
  }

  void post(std::size_t index) {
    Sent& message = sent_[index];
    check_mpi(MPI_Isend(message.bytes.data(), static_cast<int>(message.bytes.size() / kUnit), unit_type_, message.to,
                        message.tag, relay_comm_, &message.request),
              "MPI_Isend");
  }

  // Builds sent_[first ...) with build() and checks their sizes; false (and
  // nothing kept) when memory or a message's size ran out.
  template <class Build>
  bool build_messages(std::size_t first, Build&& build) {
    try {
      build();
      for (std::size_t index = first; index < sent_.size(); ++index) {
        if (sent_[index].bytes.size() / kUnit > static_cast<std::size_t>(INT_MAX)) throw std::bad_alloc();
      }
      return true;
    } catch (const std::bad_alloc&) {
      sent_.resize(first);
      return false;
    }
  }

  // The gathered records as one bundle per node: posted, or, without memory
  // for them, reported dropped by this rank.
  void send_bundles() {
    const bool built = build_messages(0, [&] {
      std::map<int, std::size_t> bundle_of;  // node -> index in sent_
      for (const Gathered& gathered : gathered_) {
        for_each_record(gathered.bytes.data(), gathered.bytes.data() + gathered.bytes.size(), element_size_,
                        [&](const RecordHeader& header, const std::byte*, const std::byte* record, std::size_t bytes) {
                          const int node = node_of(header.destination);
                          auto [it, added] = bundle_of.try_emplace(node, sent_.size());
                          if (added) new_message(gateway(node, node_, lane_of(header.source)), kBundleTag, kGateway);
                          std::vector<std::byte>& into = sent_[it->second].bytes;
                          into.insert(into.end(), record, record + bytes);
                        });
      }
    });
    gateway_lost_ = !built;
    for (std::size_t index = 0; index < sent_.size(); ++index) post(index);
    bundle_acks_missing_ = static_cast<int>(sent_.size());
    for (Gathered& gathered : gathered_) std::vector<std::byte>().swap(gathered.bytes);
  }

  // Sends a header on `tag` ({header, verdict count}: eager, from the stack)
  // and `verdicts` after it, non-blocking where there is memory to keep them.
  void send_with_verdicts(int to, int tag, int header, const std::vector<Verdict>& verdicts) {
    int words[2] = {header, static_cast<int>(verdicts.size())};
    check_mpi(MPI_Send(words, 2, MPI_INT, to, tag, relay_comm_), "MPI_Send");
    if (verdicts.empty()) return;
    const int count = static_cast<int>(3 * verdicts.size());
    try {
      VerdictsSent& kept = verdicts_sent_.emplace_back(VerdictsSent{verdicts, MPI_REQUEST_NULL});
      check_mpi(MPI_Isend(kept.verdicts.data(), count, MPI_INT, to, kVerdictsTag, relay_comm_, &kept.request),
                "MPI_Isend");
    } catch (const std::bad_alloc&) {
      check_mpi(MPI_Send(verdicts.data(), count, MPI_INT, to, kVerdictsTag, relay_comm_), "MPI_Send");
    }
  }

  // Receives the verdicts announced by a header from `from` (count of them),
  // appending them to `into`; false when there was no memory (then they are
  // dropped).
  bool receive_verdicts(int from, int count, std::vector<Verdict>& into) {
    if (count == 0) return true;
    const std::size_t at = into.size();
    try {
      into.resize(at + static_cast<std::size_t>(count));
    } catch (const std::bad_alloc&) {
      drop_message(relay_comm_, from, kVerdictsTag, MPI_INT);
      return false;
    }
    check_mpi(MPI_Recv(into.data() + at, 3 * count, MPI_INT, from, kVerdictsTag, relay_comm_, MPI_STATUS_IGNORE),
              "MPI_Recv");
    return true;
  }

  // Once every bundle is acknowledged: each rank gathered from gets the
  // verdicts about its records (all dropped here if this rank lost track).
  void gateway_progress() {
    if (bundle_acks_missing_ > 0 || gateway_done_) return;
    gateway_done_ = true;
    for (const Gathered& gathered : gathered_) {
      std::vector<Verdict> verdicts;
      bool lost = gateway_lost_;
      for (const Verdict& verdict : gateway_verdicts_) {
        if (verdict.source == gathered.source && !try_push(verdicts, verdict)) lost = true;
      }
      if (lost) {
        verdicts.clear();
        verdicts.shrink_to_fit();
      }
      if (gathered.source == self_) {
        if (lost) judged(self_, self_, kDropped);
        for (const Verdict& verdict : verdicts) judged(verdict.source, verdict.receiver, verdict.verdict);
        --reports_missing_;
        contribute_if_ready();
        continue;
      }
      // A lost report names this rank as where the records were dropped.
      send_with_verdicts(gathered.source, kReportTag, lost ? self_ : -1, verdicts);
    }
  }

  void on_report(const MPI_Status& status) {
    int words[2] = {0, 0};
    check_mpi(MPI_Recv(words, 2, MPI_INT, status.MPI_SOURCE, kReportTag, relay_comm_, MPI_STATUS_IGNORE), "MPI_Recv");
    if (words[0] >= 0) judged(self_, words[0], kDropped);
    std::vector<Verdict> verdicts;
    if (!receive_verdicts(status.MPI_SOURCE, words[1], verdicts)) judged(self_, status.MPI_SOURCE, kDropped);
    for (const Verdict& verdict : verdicts) judged(verdict.source, verdict.receiver, verdict.verdict);
    --reports_missing_;
    contribute_if_ready();
  }

  // A verdict about one of this rank's own records.
  void judged(int source, int receiver, int verdict) {
    if (source != self_) {
      throw Error(MPI_ERR_INTERN, "sparse exchange: a verdict about rank " + std::to_string(source) +
                                      "'s message came back to rank " + std::to_string(self_));
    }
    if (verdict == kDropped) {
      values_.back() = std::max(values_.back(), size_ - receiver);
    } else if (verdict != 0) {
      on_verdict_(receiver, verdict);
    }
  }

  void contribute_if_ready() {
    if (contributed_ || reports_missing_ > 0) return;
    contributed_ = true;
    std::copy(agreement_max_.begin(), agreement_max_.end(), values_.begin());
    agreement_.start();
  }

  // A record that reached its receiver (this rank): placed, then judged.
  int take(const RecordHeader& header, const std::byte* payload) {
    void* target = room_for(place_, header.source, header.kind, header.count);
    if (target == nullptr && header.count > 0) return kDropped;
    if (header.count > 0) std::memcpy(target, payload, static_cast<std::size_t>(header.count) * element_size_);
    return done_(header.source, header.kind, header.count, target);
  }

  // Takes this rank's records of a bundle or delivery, collecting verdicts
  // about them into `relay`.
  void take_records(const std::vector<std::byte>& message, Relay& relay) {
    for_each_record(message.data() + kUnit, message.data() + message.size(), element_size_,
                    [&](const RecordHeader& header, const std::byte* payload, const std::byte*, std::size_t) {
                      if (header.destination != self_) return;
                      const int verdict = take(header, payload);
                      if (verdict != 0 && !try_push(relay.verdicts, {header.source, self_, verdict})) relay.lost = true;
                    });
  }

  // Bundles come once from each sender, deliveries from node-mates: their
  // place among the messages from the same sender names a dropped one.
  int arrival(int source) {
    return node_of(source) == node_ ? ++deliveries_from_[static_cast<std::size_t>(source - node_ * k_)] : 1;
  }

  // Receives a probed bundle or delivery; empty when there was no room: then
  // it is dropped and acknowledged so (-arrival).
  std::vector<std::byte> receive(const MPI_Status& status, int arrival) {
    int units = 0;
    check_mpi(MPI_Get_count(&status, unit_type_, &units), "MPI_Get_count");
    std::vector<std::byte> message;
    try {
      message.resize(static_cast<std::size_t>(units) * kUnit);
    } catch (const std::bad_alloc&) {
      drop_message(relay_comm_, status.MPI_SOURCE, status.MPI_TAG, unit_type_);
      acknowledge(status.MPI_SOURCE, -arrival, {});
      return {};
    }
    check_mpi(
        MPI_Recv(message.data(), units, unit_type_, status.MPI_SOURCE, status.MPI_TAG, relay_comm_, MPI_STATUS_IGNORE),
        "MPI_Recv");
    return message;
  }

  static int id_of(const std::vector<std::byte>& message) {
    int id = 0;
    std::memcpy(&id, message.data(), sizeof id);
    return id;
  }

  // `id`: the message's, or -n for the n-th message from `to`, all of whose
  // records count as dropped here.
  void acknowledge(int to, int id, const std::vector<Verdict>& verdicts) {
    send_with_verdicts(to, kAckTag, id, verdicts);
  }

  void on_delivery(const MPI_Status& status) {
    const int n = arrival(status.MPI_SOURCE);
    const std::vector<std::byte> message = receive(status, n);
    if (message.empty()) return;
    // Its verdicts are collected as a relay's with nothing to pass on.
    Relay taken{status.MPI_SOURCE, id_of(message), 0, {}, false, -n};
    take_records(message, taken);
    acknowledge(status.MPI_SOURCE, taken.lost ? -n : taken.upstream_id, taken.verdicts);
  }

  // A bundle: one delivery per receiver on this node, this rank's own
  // records taken here. Without memory for the deliveries the bundle counts
  // as dropped by this rank.
  void on_bundle(const MPI_Status& status) {
    const int n = arrival(status.MPI_SOURCE);
    const std::vector<std::byte> message = receive(status, n);
    if (message.empty()) return;
    const std::size_t first = sent_.size();
    const auto relay_index = static_cast<int>(relays_.size());
    const bool built = build_messages(first, [&] {
      std::map<int, std::size_t> delivery_to;  // receiver -> index in sent_
      for_each_record(message.data() + kUnit, message.data() + message.size(), element_size_,
                      [&](const RecordHeader& header, const std::byte*, const std::byte* record, std::size_t bytes) {
                        if (header.destination == self_) return;
                        auto [it, added] = delivery_to.try_emplace(header.destination, sent_.size());
                        if (added) new_message(header.destination, kDeliveryTag, relay_index);
                        std::vector<std::byte>& into = sent_[it->second].bytes;
                        into.insert(into.end(), record, record + bytes);
                      });
      relays_.push_back({status.MPI_SOURCE, id_of(message), 0, {}, false, -n});
    });
    if (!built) {
      acknowledge(status.MPI_SOURCE, -n, {});
      return;
    }
    Relay& relay = relays_.back();
    take_records(message, relay);
    // Posted in the order of their ids, as every message is (nth_sent_to).
    for (std::size_t index = first; index < sent_.size(); ++index) post(index);
    relay.acks_missing = static_cast<int>(sent_.size() - first);
    relay_progress(relay);
  }

  void relay_progress(Relay& relay) {
    if (relay.acks_missing > 0) return;
    acknowledge(relay.upstream, relay.lost ? relay.upstream_id_dropped : relay.upstream_id, relay.verdicts);
    relay.verdicts = {};
  }

  // The index of the n-th message (from 1) this rank sent `rank`.
  [[nodiscard]] std::size_t nth_sent_to(int rank, int n) const {
    for (std::size_t i = 0; i < sent_.size(); ++i) {
      if (sent_[i].to == rank && --n == 0) return i;
    }
    throw Error(MPI_ERR_INTERN,
                "sparse exchange: rank " + std::to_string(rank) + " acknowledged a message this rank never sent it");
  }

  void on_ack(const MPI_Status& status) {
    const int from = status.MPI_SOURCE;
    int words[2] = {0, 0};
    check_mpi(MPI_Recv(words, 2, MPI_INT, from, kAckTag, relay_comm_, MPI_STATUS_IGNORE), "MPI_Recv");
    const bool dropped = words[0] < 0;
    const std::size_t id = dropped ? nth_sent_to(from, -words[0]) : static_cast<std::size_t>(words[0]);
    const Sent& message = sent_[id];
    Relay* relay = message.owner == kGateway ? nullptr : &relays_[static_cast<std::size_t>(message.owner)];
    std::vector<Verdict>& verdicts = relay != nullptr ? relay->verdicts : gateway_verdicts_;
    bool& lost = relay != nullptr ? relay->lost : gateway_lost_;
    if (!receive_verdicts(from, words[1], verdicts)) lost = true;
    if (dropped) {
      for_each_record(message.bytes.data() + kUnit, message.bytes.data() + message.bytes.size(), element_size_,
                      [&](const RecordHeader& header, const std::byte*, const std::byte*, std::size_t) {
                        if (!try_push(verdicts, {header.source, from, kDropped})) lost = true;
                      });
    }
    if (relay == nullptr) {
      --bundle_acks_missing_;
      gateway_progress();
    } else {
      --relay->acks_missing;
      relay_progress(*relay);
    }
  }

  void poll() {
    int arrived = 0;
    MPI_Status status;
    check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, relay_comm_, &arrived, &status), "MPI_Iprobe");
    if (!arrived) return;
    switch (status.MPI_TAG) {
      case kBundleTag:
        on_bundle(status);
        break;
      case kDeliveryTag:
        on_delivery(status);
        break;
      case kAckTag:
        on_ack(status);
        break;
      case kReportTag:
        on_report(status);
        break;
      case kAgreementTag:
        agreement_.receive(status.MPI_SOURCE);
        break;
      default:
        throw Error(MPI_ERR_INTERN, "sparse exchange: a message with tag " + std::to_string(status.MPI_TAG) +
                                        " from rank " + std::to_string(status.MPI_SOURCE) +
                                        " on the relay channel, which must carry nothing else");
    }
  }

  MPI_Comm comm_;
  std::size_t element_size_;
  const PlaceFn& place_;
  const DoneFn& done_;
  const VerdictFn& on_verdict_;
  int self_;
  int size_;
  int k_;
  std::size_t gather_min_;
  int node_;
  int lanes_;
  std::function<MPI_Comm()> relay_channel_;
  MPI_Comm relay_comm_ = MPI_COMM_NULL;  // round 2's: made when it starts
  MPI_Datatype unit_type_;
  std::span<int> agreement_max_;
  // Round 2's values: the caller's, taken when this rank contributes
  // (verdicts may set them until then), and size - r for the lowest rank r
  // that dropped a record (0: none).
  std::vector<int> values_;
  MaxReduction agreement_;            // round 2's, on the relay channel once it is made
  std::vector<int> deliveries_from_;  // per node-mate (arrival)

  // Round 1.
  std::vector<RawMessage> round1_;
  std::deque<std::vector<std::byte>> gather_storage_;  // this rank's gathers, while round 1 sends them
  int gathers_sent_ = 0;
  std::deque<Gathered> gathered_;  // as a gateway: what it gathers (its own records too)

  // Round 2.
  std::deque<Sent> sent_;  // bundles first, then deliveries; stable while they are sent
  std::deque<VerdictsSent> verdicts_sent_;
  int reports_missing_ = 0;
  bool contributed_ = false;
  int bundle_acks_missing_ = 0;
  bool gateway_lost_ = false;  // the bundles could not be built, or a verdict not kept
  bool gateway_done_ = false;
  std::vector<Verdict> gateway_verdicts_;
  std::deque<Relay> relays_;
};

}  // namespace

void node_aware_exchange(MPI_Comm comm, const ExchangeRoute& route, std::size_t element_size,
                         const std::vector<RawMessage>& outgoing, const PlaceFn& place, const DoneFn& done,
                         const VerdictFn& on_verdict, std::span<int> agreement_max) {
  NodeAwareExchange(comm, route, element_size, place, done, on_verdict, agreement_max).run(outgoing);
}

}  // namespace distopo::detail
