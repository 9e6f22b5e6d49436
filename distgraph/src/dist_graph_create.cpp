// dist_graph_create: validate -> bucket edge ends by owner -> one NBX exchange
// on the private channel, whose agreement step also decides every error and
// the weighted/reorder flags -> Kokkos sort of packed keys -> record. One
// collective round besides the duplication of the result.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "creation_agreement.hpp"
#include "distopo/core/private_channel.hpp"
#include "distopo/core/runtime.hpp"
#include "distopo/core/sparse_exchange.hpp"
#include "distopo/distgraph.hpp"
#include "distopo/distgraph/edge_key.hpp"
#include "distopo/distgraph/edge_redistribution.hpp"
#include "distopo/distgraph/key_sort.hpp"
#include "edge_input.hpp"
#include "edge_keys.hpp"
#include "install_topology.hpp"
#include "kokkos_runtime.hpp"
#include "peer_buckets.hpp"

namespace distopo {
namespace {

// Every edge (s, d, w) has two ends: (out, d, w) stored by rank s and
// (in, s, w) stored by rank d.
template <class Input>
auto edge_ends(const Input& input) {
  return [&input](auto&& emit) {
    input.for_each([&](int source, int destination, int weight) {
      emit(source, pack_edge(EdgeDirection::out, destination, weight));
      emit(destination, pack_edge(EdgeDirection::in, source, weight));
    });
  };
}

// The keys, in sorted runs of equal ends -> the record: in-ends come first
// (direction bit 0). `record` has room for every list already (ListRoom), so
// this allocates nothing and cannot fail after the exchange; the sort's
// counting path hands over each distinct end once, with its count, and the
// keys are never rewritten.
DistGraphTopology fill_lists(std::span<EdgeKey> keys, const KeyBits& bits, bool weighted, DistGraphTopology record) {
  record.weighted = weighted;
  for_each_sorted_run(keys, bits, [&record, weighted](EdgeKey key, std::size_t count) {
    const bool in = edge_direction(key) == EdgeDirection::in;
    std::vector<int>& ranks = in ? record.sources : record.destinations;
    ranks.insert(ranks.end(), count, edge_rank(key));
    if (!weighted) return;
    std::vector<int>& weights = in ? record.source_weights : record.destination_weights;
    weights.insert(weights.end(), count, edge_weight(key));
  });
  return record;
}

// In- and out-degree of this rank as edge ends arrive, and room for the
// lists they will become: both degrees must fit in an int, and the room is
// taken while the exchange runs, so a rank without memory for its lists
// rejects the message that needs it and its sender reports the error in the
// exchange's agreement step, which every rank sees.
class ListRoom {
 public:
  static constexpr int kOverflow = 1;
  static constexpr int kNoMemory = 2;

  explicit ListRoom(bool weighted) : weighted_(weighted) {}

  // Counts `keys` (and notes their bits for the sort, in the same pass: the
  // keys were just received and are still in cache), makes room for them and
  // returns the verdict.
  int add(std::span<const EdgeKey> keys) {
    std::size_t out = 0;
    std::uint64_t any = bits_.any();
    std::uint64_t all = bits_.all();
    for (const EdgeKey key : keys) {
      out += static_cast<std::size_t>(edge_direction(key));
      any |= key;
      all &= key;
    }
    if (!keys.empty()) {
      bits_.add(any);
      bits_.add(all);
    }
    out_ += out;
    in_ += keys.size() - out;
    if (in_ > INT_MAX || out_ > INT_MAX) return kOverflow;
    try {
      make_room(lists_.sources, in_);
      make_room(lists_.destinations, out_);
      if (weighted_) {
        make_room(lists_.source_weights, in_);
        make_room(lists_.destination_weights, out_);
      }
    } catch (const std::bad_alloc&) {
      return kNoMemory;
    }
    return 0;
  }

  DistGraphTopology take() { return std::move(lists_); }
  [[nodiscard]] const KeyBits& bits() const { return bits_; }

 private:
  // The vectors stay empty until the lists are written: the old room is
  // freed before the larger one is taken (reserve() would hold both at once,
  // next to every key received so far).
  static void make_room(std::vector<int>& list, std::size_t size) {
    if (size <= list.capacity()) return;
    std::vector<int>().swap(list);
    list.reserve(size);
  }

  bool weighted_;
  std::size_t in_ = 0;
  std::size_t out_ = 0;
  KeyBits bits_;
  DistGraphTopology lists_;
};

// Validate -> bucket -> exchange on `channel` -> sort: the lists of this rank.
template <class Input>
DistGraphTopology redistribute(MPI_Comm comm, MPI_Comm channel, const Input& input, const DistGraphOptions& options) {
  constexpr const char* kCaller = detail::kCreate;
  ensure_runtime();
  detail::ensure_kokkos();
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);

  detail::KeyBuffer own;  // the ends this rank stores: its own, then those received
  std::vector<OutgoingMessage<EdgeKey>> messages;
  std::optional<detail::PeerBuckets> buckets;
  std::optional<LocalError> error = local_step(kCaller, rank, "the edge ends to send", [&]() -> std::optional<LocalError> {
    if (auto invalid = input.validate(rank, size)) return invalid;
    buckets.emplace(rank, edge_ends(input), own);
    if (const std::optional<int> peer = buckets->oversized_peer()) {
      return rank_error(MPI_ERR_ARG, kCaller, rank, "more than INT_MAX edge ends for rank " + std::to_string(*peer));
    }
    messages = buckets->messages();
    return std::nullopt;
  });
  if (error) {
    // Sends nothing, keeps nothing, but still takes part, so nobody hangs.
    messages.clear();
    buckets.reset();
    own.release();
  }
  detail::CreationAgreement agreement(error, options, rank, size, "weights");
  ListRoom room(options.weighted);
  if (!error) {
    if (const int verdict = room.add(own.keys()); verdict != 0) {
      error = verdict == ListRoom::kNoMemory
                  ? out_of_memory(kCaller, rank, "its neighbor lists")
                  : rank_error(MPI_ERR_ARG, kCaller, rank, "its own edges give it an in- or out-degree above INT_MAX");
      agreement.record_error(rank);
    }
  }
  std::size_t received_until = own.size();
  const ExchangeVerdicts verdicts{
      .accept =
          [&](int, int) {
            const int verdict = room.add(own.keys().subspan(received_until));
            received_until = own.size();
            return verdict;
          },
      .on_rejected =
          [&](int destination, int verdict) {
            if (error) return;
            error = verdict == ListRoom::kNoMemory
                        ? rank_error(MPI_ERR_NO_MEM, kCaller, rank,
                                     "rank " + std::to_string(destination) + " has no memory for its neighbor lists")
                        : rank_error(MPI_ERR_ARG, kCaller, rank,
                                     "its edges would give rank " + std::to_string(destination) +
                                         " an in- or out-degree above INT_MAX");
            agreement.record_error(rank);
          }};
  try {
    sparse_exchange_into<EdgeKey>(
        channel, messages, [&own](int, int count) { return own.append(static_cast<std::size_t>(count)); },
        agreement.values(), verdicts);
  } catch (const DroppedMessages&) {
    agreement.throw_if_failed(channel, error, kCaller);  // an input error, if any, is what the user needs
    throw;
  }
  agreement.throw_if_failed(channel, error, kCaller);
  buckets.reset();
  return fill_lists(own.keys(), room.bits(), options.weighted, room.take());
}

template <class Input>
Comm create_from(MPI_Comm comm_old, const Input& input, const DistGraphOptions& options) {
  ensure_runtime();
  require_intracommunicator(comm_old, detail::kCreate);
  const PrivateChannel channel = private_channel(comm_old);
  return detail::install_dist_graph(comm_old, redistribute(comm_old, channel.comm, input, options), options);
}

}  // namespace

Comm dist_graph_create(MPI_Comm comm_old, std::span<const Edge> edges, const DistGraphOptions& options) {
  return create_from(comm_old, detail::ListEdges(edges, options.weighted), options);
}

Comm dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
                       const int weights[], const DistGraphOptions& options) {
  return create_from(comm_old, detail::ArrayEdges(n, sources, degrees, destinations, weights, options.weighted),
                     options);
}

DistGraphTopology redistribute_edges(MPI_Comm comm, MPI_Comm channel, int n, const int sources[], const int degrees[],
                                     const int destinations[], const int weights[], const DistGraphOptions& options) {
  return redistribute(comm, channel, detail::ArrayEdges(n, sources, degrees, destinations, weights, options.weighted),
                      options);
}

}  // namespace distopo
