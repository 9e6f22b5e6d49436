#include "edge_inbox.hpp"

#include <algorithm>
#include <climits>
#include <new>

#include "equal_runs.hpp"

namespace distopo::detail {
namespace {

// The bits and order of `count` weights, read once while they are in cache.
Piece stored_piece(std::uint32_t direction_rank, const int* weights, std::size_t count, std::size_t offset,
                   bool in_own_list) {
  std::uint32_t any = 0;
  std::uint32_t all = ~std::uint32_t{0};
  std::size_t descents = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const auto weight = static_cast<std::uint32_t>(weights[i]);
    any |= weight;
    all &= weight;
    descents += static_cast<std::size_t>(i > 0 && weights[i] < weights[i - 1]);
  }
  return {direction_rank, static_cast<std::uint32_t>(count), kWeightsFollow, in_own_list, descents == 0, any, all,
          offset};
}

// A piece whose ends all have `weight` (unweighted: 0), none of them stored.
Piece uniform_piece(std::uint32_t direction_rank, std::size_t count, std::int32_t weight) {
  return {direction_rank, static_cast<std::uint32_t>(count), weight, false, true, 0, 0, 0};
}

}  // namespace

int* EdgeInbox::place(int source, MessageKind kind, int count) {
  const auto ints = static_cast<std::size_t>(count);
  int* at = nullptr;
  std::size_t offset = 0;
  if (kind == MessageKind::keys || kind == MessageKind::out_keys_by_source) {
    KeyBuffer& keys = kind == MessageKind::keys ? keys_ : by_source_;
    offset = keys.size();
    at = reinterpret_cast<int*>(keys.append((ints + 1) / 2));
  } else {
    offset = received_.size();
    at = received_.append(ints);
  }
  placed_ = Placed{kind, source, offset, ints};
  return at;
}

Rejection EdgeInbox::accept() {
  if (!placed_) return Rejection::none;
  const Placed message = *placed_;
  placed_.reset();
  // Undone if the message is rejected: a rank that rejects keeps counting
  // what arrives after (the create fails on every rank anyway).
  const std::uint64_t in = in_;
  const std::uint64_t out = out_;
  const std::size_t pieces = pieces_.size();
  const std::size_t per_direction[2] = {pieces_per_direction_[0], pieces_per_direction_[1]};
  Rejection rejection = Rejection::malformed;
  switch (message.kind) {
    case MessageKind::keys:
      if (message.count % 2 == 0) rejection = accept_keys();
      break;
    case MessageKind::runs:
    case MessageKind::in_run_from_sender:
    case MessageKind::out_run_from_sender:
      rejection = accept_runs(message);
      break;
    case MessageKind::out_keys_by_source:
      if (message.count % 2 == 0) rejection = accept_by_source(message);
      break;
  }
  if (rejection == Rejection::none) rejection = reserve_room();
  if (rejection != Rejection::none) {
    in_ = in;
    out_ = out;
    pieces_.truncate(pieces);
    pieces_per_direction_[0] = per_direction[0];
    pieces_per_direction_[1] = per_direction[1];
    if (message.kind == MessageKind::keys) {
      keys_.truncate(message.offset);
      keys_accepted_ = std::min(keys_accepted_, message.offset);
    } else if (message.kind == MessageKind::out_keys_by_source) {
      by_source_.truncate(message.offset);
    } else {
      received_.truncate(message.offset);
    }
  }
  return rejection;
}

Rejection EdgeInbox::accept_own_keys() {
  const Rejection rejection = accept_keys();
  return rejection == Rejection::none ? reserve_room() : rejection;
}

Rejection EdgeInbox::accept_keys() {
  const std::span<const EdgeKey> batch = keys_.items().subspan(keys_accepted_);
  std::uint64_t out = 0;
  std::uint64_t any = 0;
  std::uint64_t all = ~std::uint64_t{0};
  bool valid = true;
  for (const EdgeKey key : batch) {
    out += static_cast<std::uint64_t>(edge_direction(key));
    any |= key;
    all &= key;
    valid = valid && edge_rank(key) < size_;
  }
  if (!valid || (any >> 63) != 0) return Rejection::malformed;
  if (!batch.empty()) {
    keys_bits_.add(any);
    keys_bits_.add(all);
  }
  keys_accepted_ = keys_.size();
  if (const Rejection rejection = count_ends(false, batch.size() - out); rejection != Rejection::none) {
    return rejection;
  }
  return count_ends(true, out);
}

Rejection EdgeInbox::accept_runs(const Placed& message) {
  const std::size_t end = message.offset + message.count;
  if (message.kind != MessageKind::runs) {
    const bool out = message.kind == MessageKind::out_run_from_sender;
    const std::uint32_t neighbor = direction_rank(out, message.source);
    const int* const ints = received_.data() + message.offset;
    if (!weighted_ && message.count == 1) {
      if (ints[0] < 0) return Rejection::malformed;
      return add_piece(uniform_piece(neighbor, static_cast<std::size_t>(ints[0]), 0));
    }
    return add_piece(stored_piece(neighbor, ints, message.count, message.offset, false));
  }
  // [R, R headers, the weights of the runs that carry them]
  if (message.count < 1) return Rejection::malformed;
  const int runs = received_.data()[message.offset];
  if (runs < 0 || static_cast<std::size_t>(runs) > (message.count - 1) / kRunHeaderInts) return Rejection::malformed;
  std::size_t weights_at = message.offset + 1 + static_cast<std::size_t>(runs) * kRunHeaderInts;
  for (int r = 0; r < runs; ++r) {
    const RunHeader run =
        read_run_header(received_.data() + message.offset + 1 + static_cast<std::size_t>(r) * kRunHeaderInts);
    if (run.count < 0 || rank_of(run.direction_rank) >= size_ || run.weight < kWeightsFollow) {
      return Rejection::malformed;
    }
    const auto count = static_cast<std::size_t>(run.count);
    Rejection rejection = Rejection::none;
    if (run.weight >= 0) {
      rejection = add_piece(uniform_piece(run.direction_rank, count, run.weight));
    } else {
      if (count > end - weights_at) return Rejection::malformed;
      rejection = add_piece(stored_piece(run.direction_rank, received_.data() + weights_at, count, weights_at, false));
      weights_at += count;
    }
    if (rejection != Rejection::none) return rejection;
  }
  return weights_at == end ? Rejection::none : Rejection::malformed;
}

Rejection EdgeInbox::accept_by_source(const Placed& message) {
  bool valid = true;
  for (const EdgeKey key : by_source_.items().subspan(message.offset, message.count / 2)) {
    valid = valid && (key >> 62) == static_cast<EdgeKey>(EdgeDirection::out) && edge_rank(key) < size_;
  }
  return valid ? Rejection::none : Rejection::malformed;
}

OwnList EdgeInbox::by_source_as_own_list() {
  const std::size_t n = by_source_.size();
  if (n == 0) return {};
  KeyBits bits;
  for (const EdgeKey key : by_source_.items()) bits.add(key);
  // The one allocation: the weights' scratch, 4 bytes an end (a list of its
  // own took 8 beside the keys).
  GrowingBuffer<int> room;
  if (weighted_) room.reserve(n);
  write_keys_in_place(by_source_.items(), bits, room.data(), weighted_);
  room.release();
  // The list's ints, 2n or n, in whole keys; the rest given back in place.
  by_source_.resize_within(weighted_ ? n : (n + 1) / 2);
  by_source_.shrink_to_size();
  return OwnList(true, n, weighted_, reinterpret_cast<int*>(by_source_.take_block()));
}

Piece EdgeInbox::own_piece(std::uint32_t direction_rank, std::size_t first, std::size_t count) const {
  return weighted_ ? stored_piece(direction_rank, own_->weights() + first, count, first, true)
                   : uniform_piece(direction_rank, count, 0);
}

Rejection EdgeInbox::add_piece(const Piece& piece) {
  if (piece.count == 0) return Rejection::none;
  try {
    pieces_.reserve_growing(pieces_.size() + 1);
    pieces_.push_back(piece);
  } catch (const std::bad_alloc&) {
    return Rejection::no_memory;
  }
  ++pieces_per_direction_[is_out(piece.direction_rank) ? 1 : 0];
  return count_ends(is_out(piece.direction_rank), piece.count);
}

Rejection EdgeInbox::count_ends(bool out, std::uint64_t ends) {
  std::uint64_t& degree = out ? out_ : in_;
  degree += ends;
  return degree > INT_MAX ? Rejection::degree_overflow : Rejection::none;
}

Rejection EdgeInbox::adopt_own_list(OwnList list, std::size_t neighbors, int self, std::size_t self_first,
                                    std::size_t self_count) {
  const bool out = list.out();
  own_groups_ = neighbors;
  own_ = std::move(list);
  if (const Rejection rejection = count_ends(out, own_->ends()); rejection != Rejection::none) return rejection;
  if (self_count > 0) {
    // Self-loops: their ends of the other direction, neighbor `self`, in order.
    const std::uint32_t neighbor = direction_rank(!out, self);
    if (const Rejection rejection = add_piece(own_piece(neighbor, self_first, self_count));
        rejection != Rejection::none) {
      return rejection;
    }
  }
  return reserve_room();
}

void EdgeInbox::reserve_exact_room(std::size_t ends) {
  // The first reservations take the room exactly: freed with the
  // communicator, a block of the size the next create asks for comes back
  // from glibc's heap, its pages mapped, where one grown by half lay above
  // the mmap threshold and came as fresh pages each time
  // (docs/design/distgraph-create.md, "The room in the size it needs").
  // Beyond them, where many small messages would each cost an allocation,
  // it grows by half.
  constexpr std::size_t kExactReservations = 64;
  if (room_reservations_ < kExactReservations) {
    if (ends > room_.capacity()) ++room_reservations_;
    room_.reserve(ends);
  } else {
    room_.reserve_growing(ends);
  }
}

Rejection EdgeInbox::reserve_room() {
  try {
    const std::uint64_t ends = in_ + out_;
    if (mixed()) {
      // Everything becomes single ends (lists()).
      keys_.reserve_growing(ends);
      if (weighted_) room_.reserve_growing(ends);
    } else if (pieces_.size() > 0 || own_) {
      const std::uint64_t assembled = assembled_ends();
      reserve_exact_room(assembled);
      if (weighted_) received_.reserve_growing(assembled);
      // The own list is cut into pieces when its direction has others.
      if (own_ && pieces_in(own_->out())) pieces_.reserve_growing(pieces_.size() + own_groups_);
    } else if (weighted_) {
      room_.reserve_growing(keys_.size());
    }
    mirror_.reserve(ends * (mirror_weights_ ? 2 : 1));
  } catch (const std::bad_alloc&) {
    return Rejection::no_memory;
  }
  return Rejection::none;
}

void EdgeInbox::discard() {
  in_ = out_ = 0;
  received_.release();
  placed_.reset();
  keys_.release();
  keys_accepted_ = 0;
  keys_bits_ = KeyBits();
  by_source_.release();
  pieces_.release();
  pieces_per_direction_[0] = pieces_per_direction_[1] = 0;
  own_.reset();
  own_groups_ = 0;
  room_.release();
  room_reservations_ = 0;
  mirror_ = NativeReservation();
}

DistGraphTopology EdgeInbox::lists(int self, bool spare_core) && {
  if (mixed()) expand_into_keys();
  if (pieces_.size() == 0 && !own_) return std::move(*this).lists_of_keys(self, spare_core);

  const bool own_assembled = own_ && pieces_in(own_->out());
  if (own_assembled) {
    // The own list's groups join the pieces of their direction (room for
    // them was taken with the first such piece).
    const bool out = own_->out();
    const int* const ranks = own_->ranks();
    const auto rank_at = [ranks](std::size_t i) { return ranks[i]; };
    for_each_equal_run(0, own_->ends(), rank_at, [&](std::size_t i, std::size_t j) {
      pieces_.push_back(own_piece(direction_rank(out, ranks[i]), i, j - i));
    });
  }
  const std::size_t assembled = assembled_ends();
  const PieceData data{received_.data(), own_ ? own_->weights() : nullptr};
  write_pieces(pieces_.items(), data, weighted_ ? room_.data() : nullptr, weighted_ ? received_.data() : room_.data(),
               self, spare_core);
  if (own_assembled) own_.reset();
  if (weighted_) {
    received_.resize_within(assembled);
    received_.shrink_to_size();
  } else {
    received_.release();
  }
  room_.resize_within(assembled);
  room_.shrink_to_size();

  // Assembled lists: in first, then out, ranks in `ranks`, weights in `weights`.
  const int* const ranks = weighted_ ? received_.data() : room_.data();
  const int* const weights = weighted_ ? room_.data() : nullptr;
  DistGraphTopology lists;
  lists.weighted = weighted_;
  std::size_t first = 0;
  for (const bool out : {false, true}) {
    NeighborList& neighbors = out ? lists.destinations : lists.sources;
    NeighborList& neighbor_weights = out ? lists.destination_weights : lists.source_weights;
    const std::size_t degree = static_cast<std::size_t>(out ? out_ : in_);
    if (pieces_in(out)) {
      neighbors = NeighborList(ranks + first, degree);
      if (weighted_) neighbor_weights = NeighborList(weights + first, degree);
      first += degree;
    } else if (own_ && own_->out() == out) {
      neighbors = NeighborList(own_->ranks(), degree);
      if (weighted_) neighbor_weights = NeighborList(own_->weights(), degree);
    }
  }
  void* const blocks[] = {own_ ? own_->take_block() : nullptr, room_.take_block(), received_.take_block()};
  return std::move(record_).finish_in(blocks, lists);
}

void EdgeInbox::expand_into_keys() {
  // Room for every end was taken once ends of both kinds had arrived.
  const auto append = [this](EdgeKey key) {
    *keys_.append(1) = key;
    keys_bits_.add(key);
  };
  for (const Piece& piece : pieces_.items()) {
    const auto direction = is_out(piece.direction_rank) ? EdgeDirection::out : EdgeDirection::in;
    const int rank = rank_of(piece.direction_rank);
    const int* const weights =
        piece.weight >= 0 ? nullptr : (piece.in_own_list ? own_->weights() : received_.data()) + piece.offset;
    for (std::size_t i = 0; i < piece.count; ++i) {
      append(pack_edge(direction, rank, weights != nullptr ? weights[i] : weighted_ ? piece.weight : 1));
    }
  }
  if (own_) {
    const auto direction = own_->out() ? EdgeDirection::out : EdgeDirection::in;
    for (std::size_t i = 0; i < own_->ends(); ++i) {
      append(pack_edge(direction, own_->ranks()[i], weighted_ ? own_->weights()[i] : 1));
    }
  }
  pieces_.release();
  pieces_per_direction_[0] = pieces_per_direction_[1] = 0;
  own_.reset();
  received_.release();
}

DistGraphTopology EdgeInbox::lists_of_keys(int self, bool spare_core) && {
  const std::size_t ends = keys_.size();
  write_keys_in_place(keys_.items(), keys_bits_, room_.data(), weighted_, self, spare_core);
  const std::size_t capacity = keys_.capacity();
  record_.adopt(keys_.take_block(), 2 * capacity);
  record_.shrink_to((weighted_ ? 2 : 1) * ends);
  return std::move(record_).finish(static_cast<std::size_t>(in_), static_cast<std::size_t>(out_), weighted_);
}

}  // namespace distopo::detail
