// Posting and completion (exchange.hpp): the direct requests, the
// combination with the relayed part, and the no-hang drain.
#include "exchange.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "world_errors_returned.hpp"

namespace distopo::detail {

// Completion goes through PMPI_ names: the C API library interposes MPI_Wait*,
// MPI_Test* and MPI_Start* (for neighborhood collectives' requests).

PostedRequests::~PostedRequests() {
  if (how_ != Posting::persistent) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  finish();
  for (std::size_t i = 0; i < posted_; ++i) {
    if (requests_[i] != MPI_REQUEST_NULL) PMPI_Request_free(&requests_[i]);
  }
  for (MPI_Datatype& type : types_) PMPI_Type_free(&type);
}

void PostedRequests::prepare(std::size_t receives, std::size_t sends, Posting how, const Origin& origin) {
  requests_.assign(receives + sends, MPI_REQUEST_NULL);
  peers_.resize(receives + sends);
  receives_ = receives;
  posted_ = 0;
  next_ = 0;
  error_ = MPI_SUCCESS;
  how_ = how;
  state_ = State::inactive;
  origin_ = origin;
}

void PostedRequests::posted() noexcept {
  if (how_ == Posting::immediate) state_ = posted_ == 0 ? State::complete : State::in_flight;
}

int PostedRequests::start_all(std::size_t first, std::size_t count) noexcept {
  // SMPI rejects MPI_Startall of no request (a null array).
  return count == 0 ? MPI_SUCCESS : PMPI_Startall(static_cast<int>(count), requests_.data() + first);
}

int PostedRequests::begin_run(int rc) noexcept {
  if (rc != MPI_SUCCESS) return rc;
  next_ = 0;
  error_ = MPI_SUCCESS;
  state_ = posted_ == 0 ? State::complete : State::in_flight;
  return rc;
}

int PostedRequests::start() noexcept { return begin_run(start_all(0, posted_)); }

int PostedRequests::start_receives() noexcept { return begin_run(start_all(0, std::min(receives_, posted_))); }

int PostedRequests::start_sends() noexcept {
  const std::size_t receives = std::min(receives_, posted_);
  return start_all(receives, posted_ - receives);
}

// A request whose completion call fails has completed (with that error): MPICH
// reports a request's own error only once it is complete, and frees or
// inactivates it like a successful one.
//
// MPICH's MPI_Wait on a non-blocking collective calls this in a loop, with no
// progress pass of its own, so each call should cost one progress pass and
// little else (each empty pass may give the CPU away under the yield helper,
// or cost a progress of the network). MPI_Request_get_status makes a
// progress pass only for a request still in flight and frees nothing: the
// scan walks past the requests that completed since the last call at the
// price of a load each, and stops at the first one in flight. MPI_Testall
// would make a pass for every 8 completed requests it walks past, and walk
// past all of them at every call. Once all are complete one MPI_Waitall,
// which makes no pass for complete requests, frees them.
bool PostedRequests::poll() noexcept {
  if (state_ != State::in_flight) return true;
  const WorldErrorsReturned returned;
  // Requests [0, next_) are complete, not freed yet.
  while (next_ < posted_) {
    int flag = 0;
    const int rc = PMPI_Request_get_status(requests_[next_], &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      fail(rc, next_);
    } else if (!flag) {
      return false;
    }
    ++next_;
  }
  release_complete();
  state_ = State::complete;
  return true;
}

// Every request is complete (some may be freed or inactive already) and its
// failure, if any, kept. MPICH's MPI_Waitall stops at the first failed
// request: the rest are then completed one by one (a freed request is
// MPI_REQUEST_NULL, an inactive persistent one completes at once).
void PostedRequests::release_complete() noexcept {
  if (posted_ == 0) return;
  if (PMPI_Waitall(static_cast<int>(posted_), requests_.data(), MPI_STATUSES_IGNORE) == MPI_SUCCESS) return;
  for (std::size_t i = 0; i < posted_; ++i) {
    if (requests_[i] != MPI_REQUEST_NULL) PMPI_Wait(&requests_[i], MPI_STATUS_IGNORE);
  }
}

void PostedRequests::finish() noexcept {
  if (state_ != State::in_flight) return;
  const WorldErrorsReturned returned;
  // Polls may have left requests [0, next_) complete, not yet freed.
  const bool polled = next_ > 0;
  for (; next_ < posted_; ++next_) {
    if (const int rc = PMPI_Wait(&requests_[next_], MPI_STATUS_IGNORE); rc != MPI_SUCCESS) fail(rc, next_);
  }
  if (polled) release_complete();
  state_ = State::complete;
}

int PostedRequests::take() noexcept {
  state_ = State::inactive;
  return error_;
}

void PostedRequests::fail(int code, std::size_t index) noexcept {
  if (error_ != MPI_SUCCESS) return;
  error_ = code;
  failed_ = index;
}

Error transfer_error(int code, const Origin& origin, bool receive, int peer) {
  int error_class = MPI_ERR_OTHER;
  MPI_Error_class(code, &error_class);
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int length = 0;
  if (MPI_Error_string(code, text.data(), &length) != MPI_SUCCESS) length = 0;
  return Error(error_class, rank_prefix(origin.caller, origin.rank) + (receive ? "the receive from" : "the send to") +
                                " rank " + std::to_string(peer) +
                                " failed: " + std::string(text.data(), static_cast<std::size_t>(length)));
}

Error PostedRequests::error() const { return transfer_error(error_, origin_, failed_ < receives_, peers_[failed_]); }

int message_type(const std::vector<Block>& blocks, MPI_Datatype* type) {
  std::vector<MPI_Count> lengths;
  std::vector<MPI_Aint> addresses;
  std::vector<MPI_Datatype> types;
  lengths.reserve(blocks.size());
  addresses.reserve(blocks.size());
  types.reserve(blocks.size());
  for (const Block& b : blocks) {
    lengths.push_back(b.count);
    addresses.push_back(static_cast<MPI_Aint>(reinterpret_cast<std::intptr_t>(b.buffer)));
    types.push_back(b.type);
  }
  int rc = mpi::type_struct(lengths, addresses, types, type);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Type_commit(type);
  if (rc != MPI_SUCCESS) PMPI_Type_free(type);
  return rc;
}

// --- Exchange: the direct requests and the relayed part together ----------

int Exchange::start() noexcept {
  if (!relayed) return direct.start();
  // The relayed blocks take two hops more than the direct ones: their
  // messages leave first, between the direct receives and the direct sends.
  const int rc = direct.start_receives();
  if (rc != MPI_SUCCESS) return rc;
  relayed->begin(tags);
  return direct.start_sends();
}

bool Exchange::poll() noexcept {
  const bool relayed_done = !relayed || relayed->poll();
  return direct.poll() && relayed_done;
}

void Exchange::finish() noexcept {
  if (relayed) relayed->finish();
  direct.finish();
}

int Exchange::take() noexcept {
  const int direct_result = direct.take();
  return direct_result != MPI_SUCCESS ? direct_result : (relayed ? relayed->result() : MPI_SUCCESS);
}

int Exchange::result() const noexcept {
  if (direct.result() != MPI_SUCCESS) return direct.result();
  return relayed ? relayed->result() : MPI_SUCCESS;
}

Error Exchange::error() const {
  if (direct.result() == MPI_SUCCESS && relayed && relayed->result() != MPI_SUCCESS) return relayed->error();
  return direct.error();
}

void begin_relayed(Exchange& exchange) {
  if (exchange.relayed) exchange.relayed->begin(exchange.tags);
}

// --- the no-hang drain ------------------------------------------------------

namespace {

// The direct messages of one posting, in posting order: who, and whether a
// receive.
struct DirectMessage {
  int peer;
  bool receive;
};

std::vector<DirectMessage> direct_messages(const Plan& plan, const Exchange* partial) {
  std::vector<DirectMessage> all;
  const auto add_plan = [&](const MessagePlan& p, bool receive) {
    for (std::size_t m = 0; m < p.size(); ++m) all.push_back({p.peer(m), receive});
  };
  if (!plan.aggregated()) {
    add_plan(plan.direct.receives, true);
    add_plan(plan.direct.sends, false);
    return all;
  }
  const Routes& routes = *plan.routes;
  const auto add_large = [&](const std::vector<RemoteGroup>& groups, const GroupBlocks* g, bool receive) {
    for (std::size_t i = 0; i < groups.size(); ++i) {
      for (std::size_t k = 0; k < groups[i].slots.size(); ++k) {
        // Nothing posted (bad arguments): every remote block is sent empty,
        // direct; its receives follow what the relays report.
        if (g == nullptr) {
          if (!receive) all.push_back({groups[i].peer, false});
          continue;
        }
        if (!g->relayed[g->first[i] + k]) all.push_back({groups[i].peer, receive});
      }
    }
  };
  const GroupBlocks* sends = partial ? &partial->relayed->sends : nullptr;
  const GroupBlocks* receives = partial ? &partial->relayed->receives : nullptr;
  const GroupBlocks* joined = partial ? &partial->relayed->joined : nullptr;
  add_plan(routes.local.receives, true);
  add_large(routes.receives, receives, true);
  add_plan(routes.local.sends, false);
  add_large(routes.sends, sends, false);
  add_large(routes.joined_sends, joined, false);
  return all;
}

}  // namespace

// Best effort: the channel returns errors (MPI_ERRORS_RETURN), and a failure
// here (a truncated receive is the rule) must not hide the error being
// reported.
void drain_rest(const std::shared_ptr<const Plan>& plan, MPI_Comm channel, const Tags& tags, const Origin& origin,
                Exchange* partial) {
  const std::vector<DirectMessage> all = direct_messages(*plan, partial);
  const std::size_t posted = partial ? std::min(partial->count_posted(), all.size()) : 0;
  std::vector<MPI_Request> sends;
  for (std::size_t i = posted; i < all.size(); ++i) {
    if (all[i].receive) continue;
    sends.push_back(MPI_REQUEST_NULL);
    PMPI_Isend(nullptr, 0, MPI_BYTE, all[i].peer, tags.direct, channel, &sends.back());
  }
  // A receive of nothing consumes the message, whatever its size (truncated).
  for (std::size_t i = posted; i < all.size(); ++i) {
    if (all[i].receive) PMPI_Recv(nullptr, 0, MPI_BYTE, all[i].peer, tags.direct, channel, MPI_STATUS_IGNORE);
  }
  for (MPI_Request& request : sends) PMPI_Wait(&request, MPI_STATUS_IGNORE);
  if (!plan->aggregated()) return;
  if (partial) {
    begin_relayed(*partial);
    return;
  }
  RelayExchange dropping(plan, channel, origin, true);
  dropping.begin(tags);
  dropping.finish();
}

}  // namespace distopo::detail
