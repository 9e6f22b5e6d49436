// Relaying for the other ranks of this node (RelayExchange, exchange.hpp):
// as a send relay, the node's blocks for one other node gathered into one
// message; as a receive relay, one other node's message split into one
// message per destination rank (formats in relay_exchange.cpp).
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "relay_run.hpp"

namespace distopo::detail {
namespace {

using relay::get;
using relay::kDropped;
using relay::kWord;
using relay::put;
using relay::Word;

template <class Member>
std::ptrdiff_t find_rank(const std::vector<Member>& members, int rank) {
  const auto it =
      std::lower_bound(members.begin(), members.end(), rank, [](const Member& m, int r) { return m.rank < r; });
  return it != members.end() && it->rank == rank ? it - members.begin() : -1;
}

// `out` laid out as the `header` words, then each piece's (blocks, bytes)
// unless the receiver knows them (`with_sizes` false), then the pieces' data
// in order.
template <class Piece>
void pack_pieces(std::vector<unsigned char>& out, std::initializer_list<Word> header, const std::vector<Piece>& pieces,
                 bool with_sizes = true) {
  const std::size_t table = header.size() + (with_sizes ? 2 * pieces.size() : 0);
  std::size_t bytes = table * kWord;
  for (const Piece& q : pieces) bytes += static_cast<std::size_t>(q.bytes);
  out.resize(bytes);
  std::size_t word = 0;
  for (const Word value : header) put(out, word++, value);
  std::size_t at = table * kWord;
  for (const Piece& q : pieces) {
    if (with_sizes) {
      put(out, word++, q.blocks);
      put(out, word++, q.bytes);
    }
    if (q.bytes > 0) std::memcpy(out.data() + at, q.data, static_cast<std::size_t>(q.bytes));
    at += static_cast<std::size_t>(q.bytes);
  }
}

// The `count` pieces of `data` laid out as pack_pieces does after `header`
// words, each handed to take(n, piece): their sizes read from the message,
// or from `known` (learned at init; their data pointers unused). A message
// too short for its table gives dropped pieces, a piece longer than what
// follows an empty one, and either truncated() once per shortfall.
template <class Piece, class Truncated, class Take>
void unpack_pieces(const std::vector<unsigned char>& data, std::size_t header, std::size_t count,
                   const std::vector<Piece>* known, const Truncated& truncated, const Take& take) {
  std::size_t offset = (header + (known != nullptr ? 0 : 2 * count)) * kWord;
  const bool whole = data.size() >= offset && (known == nullptr || known->size() == count);
  if (!whole) truncated();
  for (std::size_t n = 0; n < count; ++n) {
    Piece piece;
    piece.blocks = kDropped;
    if (whole) {
      piece = known != nullptr
                  ? Piece{data.data() + offset, (*known)[n].blocks, (*known)[n].bytes}
                  : Piece{data.data() + offset, get(data.data(), header + 2 * n), get(data.data(), header + 2 * n + 1)};
      if (offset + piece.bytes > data.size()) {
        truncated();
        piece.bytes = 0;
      }
      offset += static_cast<std::size_t>(piece.bytes);
    }
    take(n, piece);
  }
}

}  // namespace

void RelayExchange::step_send_relay() noexcept {
  const Routes& r = *plan_->routes;
  Run& run = *run_;
  // As a send relay: take the participants' messages; a pair complete goes
  // on. One probe of any source finds what came; only when that is a later
  // run's message (a persistent collective reuses its tags) are the
  // participants probed one by one, since a later run's message from one
  // stays behind this run's (MPI's non-overtaking rule).
  while (run.participants_left > 0) {
    int flag = 0;
    MPI_Status status;
    if (const int rc = PMPI_Iprobe(MPI_ANY_SOURCE, run.tags.gather, channel_, &flag, &status); rc != MPI_SUCCESS) {
      fail(rc, true, -1);
      break;
    }
    if (!flag) break;
    std::ptrdiff_t found = find_rank(r.participants, status.MPI_SOURCE);
    const bool probed = found >= 0 && !run.participant_done[static_cast<std::size_t>(found)];
    if (!probed) {
      found = -1;
      for (std::size_t q = 0; q < r.participants.size() && found < 0; ++q) {
        if (run.participant_done[q]) continue;
        int here = 0;
        if (PMPI_Iprobe(r.participants[q].rank, run.tags.gather, channel_, &here, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
            here) {
          found = static_cast<std::ptrdiff_t>(q);
        }
      }
      if (found < 0) break;
    }
    const auto who = static_cast<std::size_t>(found);
    const int from = r.participants[who].rank;
    std::vector<unsigned char> scratch;
    int got_from = 0, rc = MPI_SUCCESS;
    // The message probed is the next one from its sender with this tag.
    if (probed) {
      relay::receive_probed(channel_, status, run.tags.gather, scratch, &rc);
    } else if (!relay::receive_next(channel_, from, run.tags.gather, scratch, &got_from, &rc)) {
      if (rc != MPI_SUCCESS) fail(rc, true, from);
      break;  // polled again later
    }
    run.participant_data[who].swap(scratch);
    take_participant(who, rc);
  }
}

void RelayExchange::take_participant(std::size_t who, int rc) noexcept {
  const Routes& r = *plan_->routes;
  Run& run = *run_;
  using Piece = Run::Piece;
  const int from = r.participants[who].rank;
  run.participant_done[who] = 1;
  --run.participants_left;
  auto& data = run.participant_data[who];
  if (rc != MPI_SUCCESS) {
    fail(rc, true, from);
    data.clear();
  }
  const auto& groups = r.participants[who].groups;
  unpack_pieces<Piece>(
      data, 0, groups.size(), nullptr, [&] { fail(MPI_ERR_TRUNCATE, true, from); },
      [&](std::size_t n, const Piece& piece) {
        const auto p = static_cast<std::size_t>(groups[n].first);
        run.out_pieces[p][static_cast<std::size_t>(groups[n].second)] = piece;
        if (--run.out_pair_left[p] > 0) return;
        // The pair is complete: one message to its receive relay.
        auto& out = run.out_pairs[p];
        // A pre-posted run's receive relay learned the groups' sizes at init.
        pack_pieces(out, {static_cast<Word>(r.node), static_cast<Word>(r.send_pairs[p].lane)}, run.out_pieces[p],
                    !run.preposted);
        const int y = r.send_pairs[p].partner;
        const int posted = mpi::isend(out.data(), static_cast<MPI_Count>(out.size()), MPI_PACKED, y, run.tags.relay,
                                      channel_, &run.out_pair_requests[p]);
        if (posted != MPI_SUCCESS) fail(posted, false, y);
      });
}

void RelayExchange::step_receive_relay() noexcept {
  const Routes& r = *plan_->routes;
  Run& run = *run_;
  // As a receive relay: take the pairs; a destination complete gets its message.
  while (run.in_pairs_left > 0) {
    std::vector<unsigned char> scratch;
    std::size_t p = r.receive_pairs.size();
    for (std::size_t q = 0; q < run.early.size(); ++q) {
      if (run.in_pair_done[q] || run.early[q].empty()) continue;
      scratch.swap(run.early[q].front());
      run.early[q].pop_front();
      p = q;
      break;
    }
    int from = -1;
    if (p == r.receive_pairs.size()) {
      int rc = MPI_SUCCESS;
      if (!relay::receive_next(channel_, MPI_ANY_SOURCE, run.tags.relay, scratch, &from, &rc)) {
        if (rc != MPI_SUCCESS) fail(rc, true, -1);
        break;
      }
      if (rc != MPI_SUCCESS) {
        fail(rc, true, from);
        continue;  // not counted: a relay sends nothing shorter than its header
      }
      p = pair_of(scratch, from);
      if (p == r.receive_pairs.size()) continue;
      if (run.in_pair_done[p]) {
        run.early[p].push_back(std::move(scratch));
        continue;
      }
    }
    take_pair(p, scratch, from);
  }
}

std::size_t RelayExchange::pair_of(const std::vector<unsigned char>& message, int from) noexcept {
  const Routes& r = *plan_->routes;
  if (message.size() < 2 * kWord) {
    fail(MPI_ERR_TRUNCATE, true, from);
    return r.receive_pairs.size();
  }
  const std::pair<int, int> key{static_cast<int>(get(message.data(), 0)), static_cast<int>(get(message.data(), 1))};
  const auto it =
      std::lower_bound(r.receive_pairs.begin(), r.receive_pairs.end(), key,
                       [](const RelayedPair& q, std::pair<int, int> k) { return std::pair(q.node, q.lane) < k; });
  if (it == r.receive_pairs.end() || std::pair(it->node, it->lane) != key) {
    fail(MPI_ERR_OTHER, true, from);
    return r.receive_pairs.size();
  }
  return static_cast<std::size_t>(it - r.receive_pairs.begin());
}

void RelayExchange::take_pair(std::size_t p, std::vector<unsigned char>& message, int from) noexcept {
  const Routes& r = *plan_->routes;
  Run& run = *run_;
  using Piece = Run::Piece;
  run.in_pair_done[p] = 1;
  --run.in_pairs_left;
  const auto it = r.receive_pairs.begin() + static_cast<std::ptrdiff_t>(p);
  auto& data = run.in_pairs[p];
  data.swap(message);
  unpack_pieces<Piece>(
      data, 2, it->to.size(), run.preposted ? &run.pair_sizes[p] : nullptr, [&] { fail(MPI_ERR_TRUNCATE, true, from); },
      [&](std::size_t g, const Piece& piece) {
        const auto d = static_cast<std::size_t>(r.destination_of[p][g]);
        run.dest_pieces[d][run.position[p][g]] = piece;
        if (--run.dest_left[d] > 0) return;
        auto& out = run.to_destinations[d];
        pack_pieces(out, {}, run.dest_pieces[d], !run.preposted);
        const int b = r.destinations[d].rank;
        if (b == origin_.rank) {
          hand_over(out);
          return;
        }
        const int posted = mpi::isend(out.data(), static_cast<MPI_Count>(out.size()), MPI_PACKED, b, run.tags.scatter,
                                      channel_, &run.to_destination_requests[d]);
        if (posted != MPI_SUCCESS) fail(posted, false, b);
      });
}

// This rank is its own receive relay: what it would send itself is taken as
// if received (truncated, as MPI would, when its slots hold less).
void RelayExchange::hand_over(std::vector<unsigned char>& message) noexcept {
  const Routes& r = *plan_->routes;
  Run& run = *run_;
  const auto it = std::lower_bound(r.from_receive_relays.begin(), r.from_receive_relays.end(), origin_.rank,
                                   [](const Routes::RelayMessage& m, int rank) { return m.relay < rank; });
  if (it == r.from_receive_relays.end() || it->relay != origin_.rank) {
    fail(MPI_ERR_OTHER, true, origin_.rank);
    return;
  }
  const auto j = static_cast<std::size_t>(it - r.from_receive_relays.begin());
  if (run.from_relay_done[j]) return;
  auto& into = run.from_relays[j];
  if (!drop_ && message.size() > into.size()) {
    fail(MPI_ERR_TRUNCATE, true, origin_.rank);
    run.from_relay_done[j] = 1;
    --run.from_relays_left;
    return;
  }
  into.assign(message.begin(), message.end());
  take_from_receive_relay(j);
}

}  // namespace distopo::detail
