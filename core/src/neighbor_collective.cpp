// The neighborhood collective engine: one generic driver (post receives in
// recv_order, sends in send_order, on a private duplicate with a per-collective
// tag) and five small descriptions of where each slot's block lives.
#include "distopo/core/neighbor_collective.hpp"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/neighbor_sequence.hpp"
#include "distopo/core/runtime.hpp"
#include "distopo/core/topology.hpp"

namespace distopo {
namespace {

// Cached on a user communicator (not copied by MPI_Comm_dup: a duplicate gets
// its own channel).
struct NeighborState {
  Comm channel;  // private duplicate for our traffic
  int rank = 0;
  int tag_count = 1;
  unsigned long long next_collective = 0;
  const TopologyRecord* record = nullptr;  // the record `sequence` was computed from
  NeighborSequence sequence;
  std::vector<MPI_Request> requests;  // scratch of the blocking forms
};

int delete_state(MPI_Comm, int, void* attribute, void*) {
  delete static_cast<NeighborState*>(attribute);
  return MPI_SUCCESS;
}

// Owned by the runtime like the other caches' keyvals (freed at MPI_Finalize).
constinit const RuntimeKeyval state_keyval{MPI_COMM_NULL_COPY_FN, delete_state};

const TopologyRecord& record_of(MPI_Comm comm, const char* caller) {
  if (comm == MPI_COMM_NULL) throw Error(MPI_ERR_COMM, std::string(caller) + ": communicator is MPI_COMM_NULL");
  const TopologyRecord* record = find_topology(comm);
  if (record == nullptr) {
    throw Error(MPI_ERR_TOPOLOGY, comm_rank_prefix(caller, comm) +
                                      "communicator has no topology (Cartesian, graph or distributed graph)");
  }
  return *record;
}

// Collective the first time on `comm` (duplicates it); local afterwards.
// Errors raised here are the same on every rank.
NeighborState& state_of(MPI_Comm comm, const char* caller) {
  const TopologyRecord& record = record_of(comm, caller);
  void* attribute = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, state_keyval.get(), &attribute, &found), "MPI_Comm_get_attr");
  auto* state = static_cast<NeighborState*>(attribute);
  if (!found) {
    auto owned = std::make_unique<NeighborState>();
    owned->channel = duplicate(comm);
    owned->rank = comm_rank(comm);
    int* tag_ub = nullptr;
    int has_ub = 0;
    check_mpi(MPI_Comm_get_attr(owned->channel.get(), MPI_TAG_UB, &tag_ub, &has_ub), "MPI_Comm_get_attr");
    // Tags 1 .. tag_count; MPI guarantees MPI_TAG_UB >= 32767.
    owned->tag_count = std::min(has_ub ? *tag_ub : 32767, 1 << 24);
    check_mpi(MPI_Comm_set_attr(comm, state_keyval.get(), owned.get()), "MPI_Comm_set_attr");
    state = owned.release();
  }
  if (state->record != &record) {
    state->sequence = neighbor_sequence(record, state->rank);
    state->record = &record;
    state->requests.assign(state->sequence.recv_order.size() + state->sequence.send_order.size(), MPI_REQUEST_NULL);
  }
  return *state;
}

int next_tag(NeighborState& state) {
  return 1 + static_cast<int>(state.next_collective++ % static_cast<unsigned long long>(state.tag_count));
}

struct Block {
  void* buffer;
  int count;
  MPI_Datatype type;
};

void* offset(const void* base, MPI_Aint bytes) {
  return static_cast<char*>(const_cast<void*>(base)) + bytes;  // MPI takes send buffers as const void*
}

MPI_Aint extent_of(MPI_Datatype type) {
  MPI_Aint lower = 0;
  MPI_Aint extent = 0;
  check_mpi(PMPI_Type_get_extent(type, &lower, &extent), "MPI_Type_get_extent");
  return extent;
}

// --- validation helpers --------------------------------------------------
using Check = std::optional<LocalError>;

Check check_buffers(const void* sendbuf, const void* recvbuf, const char* caller, int rank) {
  if (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE) {
    return rank_error(MPI_ERR_BUFFER, caller, rank, "MPI_IN_PLACE is not allowed in neighborhood collectives");
  }
  return std::nullopt;
}

Check check_count(int count, const char* name, const char* caller, int rank) {
  if (count < 0)
    return rank_error(MPI_ERR_COUNT, caller, rank, std::string(name) + " = " + std::to_string(count) + " is negative");
  return std::nullopt;
}

Check check_type(MPI_Datatype type, const char* name, const char* caller, int rank) {
  if (type == MPI_DATATYPE_NULL)
    return rank_error(MPI_ERR_TYPE, caller, rank, std::string(name) + " is MPI_DATATYPE_NULL");
  return std::nullopt;
}

template <class Displacement>
Check check_arrays(const int counts[], const Displacement displs[], int degree, const char* counts_name,
                   const char* displs_name, const char* caller, int rank) {
  if (degree == 0) return std::nullopt;
  if (counts == nullptr) return rank_error(MPI_ERR_ARG, caller, rank, std::string(counts_name) + " is NULL");
  if (displs == nullptr) return rank_error(MPI_ERR_ARG, caller, rank, std::string(displs_name) + " is NULL");
  for (int i = 0; i < degree; ++i) {
    if (counts[i] < 0) {
      return rank_error(
          MPI_ERR_COUNT, caller, rank,
          std::string(counts_name) + "[" + std::to_string(i) + "] = " + std::to_string(counts[i]) + " is negative");
    }
    if (displs[i] < 0) {
      return rank_error(
          MPI_ERR_ARG, caller, rank,
          std::string(displs_name) + "[" + std::to_string(i) + "] = " + std::to_string(displs[i]) + " is negative");
    }
  }
  return std::nullopt;
}

Check check_types(const MPI_Datatype types[], int degree, const char* name, const char* caller, int rank) {
  if (degree == 0) return std::nullopt;
  if (types == nullptr) return rank_error(MPI_ERR_ARG, caller, rank, std::string(name) + " is NULL");
  for (int i = 0; i < degree; ++i) {
    if (types[i] == MPI_DATATYPE_NULL) {
      return rank_error(MPI_ERR_TYPE, caller, rank,
                        std::string(name) + "[" + std::to_string(i) + "] is MPI_DATATYPE_NULL");
    }
  }
  return std::nullopt;
}

template <class... Checks>
Check first_error(Checks&&... checks) {
  Check result;
  ((result = result ? result : checks()), ...);
  return result;
}

// --- the five operations: validate(), then prepare(), then send(slot) /
// recv(slot) give each slot's block ----------------------------------------

struct Allgather {
  const void* sendbuf;
  int sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  int recvcount;
  MPI_Datatype recvtype;
  MPI_Aint recv_stride = 0;

  Check validate(const NeighborSequence&, const char* caller, int rank) const {
    return first_error([&] { return check_buffers(sendbuf, recvbuf, caller, rank); },
                       [&] { return check_count(sendcount, "sendcount", caller, rank); },
                       [&] { return check_count(recvcount, "recvcount", caller, rank); },
                       [&] { return check_type(sendtype, "sendtype", caller, rank); },
                       [&] { return check_type(recvtype, "recvtype", caller, rank); });
  }
  void prepare() { recv_stride = recvcount * extent_of(recvtype); }
  [[nodiscard]] Block send(int) const { return {const_cast<void*>(sendbuf), sendcount, sendtype}; }
  [[nodiscard]] Block recv(int slot) const { return {offset(recvbuf, slot * recv_stride), recvcount, recvtype}; }
};

struct Allgatherv {
  const void* sendbuf;
  int sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  const int* recvcounts;
  const int* displs;
  MPI_Datatype recvtype;
  MPI_Aint recv_extent = 0;

  Check validate(const NeighborSequence& s, const char* caller, int rank) const {
    return first_error(
        [&] { return check_buffers(sendbuf, recvbuf, caller, rank); },
        [&] { return check_count(sendcount, "sendcount", caller, rank); },
        [&] { return check_arrays(recvcounts, displs, s.indegree(), "recvcounts", "displs", caller, rank); },
        [&] { return check_type(sendtype, "sendtype", caller, rank); },
        [&] { return check_type(recvtype, "recvtype", caller, rank); });
  }
  void prepare() { recv_extent = extent_of(recvtype); }
  [[nodiscard]] Block send(int) const { return {const_cast<void*>(sendbuf), sendcount, sendtype}; }
  [[nodiscard]] Block recv(int slot) const {
    return {offset(recvbuf, displs[slot] * recv_extent), recvcounts[slot], recvtype};
  }
};

struct Alltoall {
  const void* sendbuf;
  int sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  int recvcount;
  MPI_Datatype recvtype;
  MPI_Aint send_stride = 0;
  MPI_Aint recv_stride = 0;

  Check validate(const NeighborSequence&, const char* caller, int rank) const {
    return first_error([&] { return check_buffers(sendbuf, recvbuf, caller, rank); },
                       [&] { return check_count(sendcount, "sendcount", caller, rank); },
                       [&] { return check_count(recvcount, "recvcount", caller, rank); },
                       [&] { return check_type(sendtype, "sendtype", caller, rank); },
                       [&] { return check_type(recvtype, "recvtype", caller, rank); });
  }
  void prepare() {
    send_stride = sendcount * extent_of(sendtype);
    recv_stride = recvcount * extent_of(recvtype);
  }
  [[nodiscard]] Block send(int slot) const { return {offset(sendbuf, slot * send_stride), sendcount, sendtype}; }
  [[nodiscard]] Block recv(int slot) const { return {offset(recvbuf, slot * recv_stride), recvcount, recvtype}; }
};

struct Alltoallv {
  const void* sendbuf;
  const int* sendcounts;
  const int* sdispls;
  MPI_Datatype sendtype;
  void* recvbuf;
  const int* recvcounts;
  const int* rdispls;
  MPI_Datatype recvtype;
  MPI_Aint send_extent = 0;
  MPI_Aint recv_extent = 0;

  Check validate(const NeighborSequence& s, const char* caller, int rank) const {
    return first_error(
        [&] { return check_buffers(sendbuf, recvbuf, caller, rank); },
        [&] { return check_arrays(sendcounts, sdispls, s.outdegree(), "sendcounts", "sdispls", caller, rank); },
        [&] { return check_arrays(recvcounts, rdispls, s.indegree(), "recvcounts", "rdispls", caller, rank); },
        [&] { return check_type(sendtype, "sendtype", caller, rank); },
        [&] { return check_type(recvtype, "recvtype", caller, rank); });
  }
  void prepare() {
    send_extent = extent_of(sendtype);
    recv_extent = extent_of(recvtype);
  }
  [[nodiscard]] Block send(int slot) const {
    return {offset(sendbuf, sdispls[slot] * send_extent), sendcounts[slot], sendtype};
  }
  [[nodiscard]] Block recv(int slot) const {
    return {offset(recvbuf, rdispls[slot] * recv_extent), recvcounts[slot], recvtype};
  }
};

struct Alltoallw {
  const void* sendbuf;
  const int* sendcounts;
  const MPI_Aint* sdispls;
  const MPI_Datatype* sendtypes;
  void* recvbuf;
  const int* recvcounts;
  const MPI_Aint* rdispls;
  const MPI_Datatype* recvtypes;

  Check validate(const NeighborSequence& s, const char* caller, int rank) const {
    return first_error(
        [&] { return check_buffers(sendbuf, recvbuf, caller, rank); },
        [&] { return check_arrays(sendcounts, sdispls, s.outdegree(), "sendcounts", "sdispls", caller, rank); },
        [&] { return check_arrays(recvcounts, rdispls, s.indegree(), "recvcounts", "rdispls", caller, rank); },
        [&] { return check_types(sendtypes, s.outdegree(), "sendtypes", caller, rank); },
        [&] { return check_types(recvtypes, s.indegree(), "recvtypes", caller, rank); });
  }
  void prepare() {}
  [[nodiscard]] Block send(int slot) const {
    return {offset(sendbuf, sdispls[slot]), sendcounts[slot], sendtypes[slot]};
  }
  [[nodiscard]] Block recv(int slot) const {
    return {offset(recvbuf, rdispls[slot]), recvcounts[slot], recvtypes[slot]};
  }
};

// --- driver ----------------------------------------------------------------

// Posts every receive, then every send; returns the number of requests.
template <class Op>
int post(const NeighborSequence& s, MPI_Comm channel, int tag, const Op& op, MPI_Request* requests) {
  int n = 0;
  for (int slot : s.recv_order) {
    const Block b = op.recv(slot);
    check_mpi(
        PMPI_Irecv(b.buffer, b.count, b.type, s.sources[static_cast<std::size_t>(slot)], tag, channel, &requests[n++]),
        "MPI_Irecv");
  }
  for (int slot : s.send_order) {
    const Block b = op.send(slot);
    check_mpi(PMPI_Isend(b.buffer, b.count, b.type, s.destinations[static_cast<std::size_t>(slot)], tag, channel,
                         &requests[n++]),
              "MPI_Isend");
  }
  return n;
}

// A rank whose arguments are bad still completes its part of the exchange:
// empty messages to every out-neighbor, and every message from an in-neighbor
// received (whatever its size) and dropped. Then it throws.
[[noreturn]] void drain_and_throw(NeighborState& state, int tag, const LocalError& error) {
  const NeighborSequence& s = state.sequence;
  MPI_Comm channel = state.channel.get();
  std::vector<MPI_Request> sends(s.send_order.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < s.send_order.size(); ++i) {
    PMPI_Isend(nullptr, 0, MPI_BYTE, s.destinations[static_cast<std::size_t>(s.send_order[i])], tag, channel,
               &sends[i]);
  }
  std::vector<char> scratch;
  for (int slot : s.recv_order) {
    MPI_Message message = MPI_MESSAGE_NULL;
    MPI_Status status;
    PMPI_Mprobe(s.sources[static_cast<std::size_t>(slot)], tag, channel, &message, &status);
    int bytes = 0;
    PMPI_Get_count(&status, MPI_BYTE, &bytes);
    scratch.resize(static_cast<std::size_t>(std::max(bytes, 0)));
    PMPI_Mrecv(scratch.data(), bytes, MPI_BYTE, &message, MPI_STATUS_IGNORE);
  }
  PMPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
  throw Error(error.error_class, error.message);
}

// --- non-blocking: a generalized request over the posted sends/receives ----

struct Pending {
  std::vector<MPI_Request> requests;
  MPI_Request request = MPI_REQUEST_NULL;  // the generalized request handed out
  bool complete = false;
};

int query_pending(void*, MPI_Status* status) {
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
int free_pending(void* state) {
  delete static_cast<Pending*>(state);
  return MPI_SUCCESS;
}
int cancel_pending(void*, int) { return MPI_SUCCESS; }  // collectives cannot be cancelled

// Called by MPICH's progress engine (MPI_Test*, MPI_Wait*, any progress).
int poll_pending(void* state, MPI_Status*) {
  auto* pending = static_cast<Pending*>(state);
  if (pending->complete) return MPI_SUCCESS;
  int done = 0;
  const int rc =
      PMPI_Testall(static_cast<int>(pending->requests.size()), pending->requests.data(), &done, MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  if (done) {
    pending->complete = true;
    return PMPI_Grequest_complete(pending->request);
  }
  return MPI_SUCCESS;
}

// Called by MPI_Wait/MPI_Waitall with the states of our requests.
int wait_pending(int count, void** states, double, MPI_Status*) {
  for (int i = 0; i < count; ++i) {
    auto* pending = static_cast<Pending*>(states[i]);
    if (pending->complete) continue;
    const int rc =
        PMPI_Waitall(static_cast<int>(pending->requests.size()), pending->requests.data(), MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    pending->complete = true;
    const int rc_complete = PMPI_Grequest_complete(pending->request);
    if (rc_complete != MPI_SUCCESS) return rc_complete;
  }
  return MPI_SUCCESS;
}

MPIX_Grequest_class pending_class() {
  static const MPIX_Grequest_class kind = [] {
    MPIX_Grequest_class k{};
    check_mpi(PMPIX_Grequest_class_create(query_pending, free_pending, cancel_pending, poll_pending, wait_pending, &k),
              "MPIX_Grequest_class_create");
    return k;
  }();
  return kind;
}

template <class Op>
void start_pending(NeighborState& state, int tag, const Op& op, MPI_Request* request) {
  auto pending = std::make_unique<Pending>();
  pending->requests.resize(state.requests.size());
  post(state.sequence, state.channel.get(), tag, op, pending->requests.data());
  Pending* raw = pending.get();
  check_mpi(PMPIX_Grequest_class_allocate(pending_class(), raw, &raw->request), "MPIX_Grequest_class_allocate");
  pending.release();  // owned by the generalized request now (free_pending)
  *request = raw->request;
  if (raw->requests.empty()) {
    raw->complete = true;
    check_mpi(PMPI_Grequest_complete(raw->request), "MPI_Grequest_complete");
  }
}

// --- persistent: prepared sends and receives ---------------------------------

template <class Op>
std::unique_ptr<detail::PersistentCollective> init_persistent(NeighborState& state, int tag, const Op& op);

// Blocks of every slot (MPI_PROC_NULL slots included) must lie inside the
// typed layer's spans.
template <class Op>
Check check_bounds(const NeighborSequence& s, const Op& op, const detail::BufferBounds& bounds, const char* caller,
                   int rank) {
  auto inside = [](const Block& b, const void* base, std::size_t bytes) {
    const MPI_Aint start = static_cast<const char*>(b.buffer) - static_cast<const char*>(base);
    const MPI_Aint end = start + static_cast<MPI_Aint>(b.count) * extent_of(b.type);
    return start >= 0 && end <= static_cast<MPI_Aint>(bytes);
  };
  for (int slot = 0; slot < s.outdegree(); ++slot) {
    if (!inside(op.send(slot), op.sendbuf, bounds.send_bytes)) {
      return rank_error(MPI_ERR_BUFFER, caller, rank,
                        "the block for out-neighbor " + std::to_string(slot) + " lies outside the send buffer of " +
                            std::to_string(bounds.send_bytes) + " bytes");
    }
  }
  for (int slot = 0; slot < s.indegree(); ++slot) {
    if (!inside(op.recv(slot), op.recvbuf, bounds.recv_bytes)) {
      return rank_error(MPI_ERR_BUFFER, caller, rank,
                        "the block for in-neighbor " + std::to_string(slot) + " lies outside the receive buffer of " +
                            std::to_string(bounds.recv_bytes) + " bytes");
    }
  }
  return std::nullopt;
}

template <class Op>
void run(MPI_Comm comm, Op op, const char* caller, const detail::CallOptions& call) {
  NeighborState& state = state_of(comm, caller);
  const bool persistent = call.mode == detail::Mode::persistent;
  const int tag = next_tag(state);
  Check error = call.error;
  if (!error && ((call.mode == detail::Mode::nonblocking && call.request == nullptr) ||
                 (persistent && call.persistent == nullptr))) {
    error = rank_error(MPI_ERR_REQUEST, caller, state.rank, "request is NULL");
  }
  if (!error) error = op.validate(state.sequence, caller, state.rank);
  if (!error) {
    op.prepare();
    if (call.bounds != nullptr) error = check_bounds(state.sequence, op, *call.bounds, caller, state.rank);
  }
  if (error) {
    // An init has not communicated yet (nor have the other ranks' inits).
    if (persistent) throw Error(error->error_class, error->message);
    drain_and_throw(state, tag, *error);
  }
  switch (call.mode) {
    case detail::Mode::blocking: {
      const int n = post(state.sequence, state.channel.get(), tag, op, state.requests.data());
      check_mpi(PMPI_Waitall(n, state.requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
      return;
    }
    case detail::Mode::nonblocking:
      start_pending(state, tag, op, call.request);
      return;
    case detail::Mode::persistent:
      *call.persistent = PersistentRequest(init_persistent(state, tag, op));
      return;
  }
}

detail::CallOptions nonblocking_call(MPI_Request* request) {
  detail::CallOptions call;
  call.mode = detail::Mode::nonblocking;
  call.request = request;
  return call;
}

detail::CallOptions persistent_call(PersistentRequest* persistent) {
  detail::CallOptions call;
  call.mode = detail::Mode::persistent;
  call.persistent = persistent;
  return call;
}

}  // namespace

namespace detail {
struct PersistentCollective {
  std::vector<MPI_Request> requests;  // persistent sends and receives, posting order
  bool active = false;

  PersistentCollective() = default;
  PersistentCollective(const PersistentCollective&) = delete;
  PersistentCollective& operator=(const PersistentCollective&) = delete;
  ~PersistentCollective() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (active) PMPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    for (MPI_Request& request : requests) {
      if (request != MPI_REQUEST_NULL) PMPI_Request_free(&request);
    }
  }
};
}  // namespace detail

namespace {
template <class Op>
std::unique_ptr<detail::PersistentCollective> init_persistent(NeighborState& state, int tag, const Op& op) {
  const NeighborSequence& s = state.sequence;
  MPI_Comm channel = state.channel.get();
  auto collective = std::make_unique<detail::PersistentCollective>();
  collective->requests.reserve(s.recv_order.size() + s.send_order.size());
  for (int slot : s.recv_order) {
    const Block b = op.recv(slot);
    MPI_Request& request = collective->requests.emplace_back(MPI_REQUEST_NULL);
    check_mpi(
        PMPI_Recv_init(b.buffer, b.count, b.type, s.sources[static_cast<std::size_t>(slot)], tag, channel, &request),
        "MPI_Recv_init");
  }
  for (int slot : s.send_order) {
    const Block b = op.send(slot);
    MPI_Request& request = collective->requests.emplace_back(MPI_REQUEST_NULL);
    check_mpi(PMPI_Send_init(b.buffer, b.count, b.type, s.destinations[static_cast<std::size_t>(slot)], tag, channel,
                             &request),
              "MPI_Send_init");
  }
  return collective;
}
}  // namespace

PersistentRequest::PersistentRequest() noexcept = default;
PersistentRequest::PersistentRequest(std::unique_ptr<detail::PersistentCollective> collective) noexcept
    : collective_(std::move(collective)) {}
PersistentRequest::PersistentRequest(PersistentRequest&&) noexcept = default;
PersistentRequest& PersistentRequest::operator=(PersistentRequest&&) noexcept = default;
PersistentRequest::~PersistentRequest() = default;

void PersistentRequest::start() {
  if (!collective_) throw Error(MPI_ERR_REQUEST, "PersistentRequest::start: empty request");
  if (collective_->active) throw Error(MPI_ERR_REQUEST, "PersistentRequest::start: request is already active");
  auto& requests = collective_->requests;
  check_mpi(PMPI_Startall(static_cast<int>(requests.size()), requests.data()), "MPI_Startall");
  collective_->active = true;
}

void PersistentRequest::wait() {
  if (!collective_ || !collective_->active) return;  // like MPI_Wait on an inactive request
  auto& requests = collective_->requests;
  check_mpi(PMPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  collective_->active = false;
}

bool PersistentRequest::test() {
  if (!collective_ || !collective_->active) return true;
  auto& requests = collective_->requests;
  int done = 0;
  check_mpi(PMPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE),
            "MPI_Testall");
  if (done) collective_->active = false;
  return done != 0;
}

bool PersistentRequest::active() const noexcept { return collective_ && collective_->active; }

NeighborDegrees neighbor_degrees(MPI_Comm comm) {
  const TopologyRecord& record = record_of(comm, "neighbor_degrees");
  void* attribute = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, state_keyval.get(), &attribute, &found), "MPI_Comm_get_attr");
  if (found && static_cast<NeighborState*>(attribute)->record == &record) {
    const NeighborSequence& cached = static_cast<NeighborState*>(attribute)->sequence;
    return {cached.indegree(), cached.outdegree()};
  }
  const NeighborSequence s = neighbor_sequence(record, comm_rank(comm));
  return {s.indegree(), s.outdegree()};
}

namespace detail {

void neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, const CallOptions& call) {
  run(comm, Allgather{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}, "neighbor_allgather", call);
}
void neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                         const CallOptions& call) {
  run(comm, Allgatherv{sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype}, "neighbor_allgatherv",
      call);
}
void neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, const CallOptions& call) {
  run(comm, Alltoall{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype}, "neighbor_alltoall", call);
}
void neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm, const CallOptions& call) {
  run(comm, Alltoallv{sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype},
      "neighbor_alltoallv", call);
}
void neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                        const MPI_Datatype recvtypes[], MPI_Comm comm, const CallOptions& call) {
  run(comm, Alltoallw{sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes},
      "neighbor_alltoallw", call);
}

}  // namespace detail

namespace raw {

void neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm) {
  detail::neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, detail::CallOptions{});
}
void neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  detail::neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                              detail::CallOptions{});
}
void neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm) {
  detail::neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, detail::CallOptions{});
}
void neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm) {
  detail::neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                             detail::CallOptions{});
}
void neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                        const MPI_Datatype recvtypes[], MPI_Comm comm) {
  detail::neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                             detail::CallOptions{});
}

void ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  detail::neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                             nonblocking_call(request));
}
void ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Request* request) {
  detail::neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                              nonblocking_call(request));
}
void ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  detail::neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                            nonblocking_call(request));
}
void ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Request* request) {
  detail::neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                             nonblocking_call(request));
}
void ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                         const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                         MPI_Request* request) {
  detail::neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                             nonblocking_call(request));
}

PersistentRequest neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info) {
  PersistentRequest persistent;
  detail::neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                             persistent_call(&persistent));
  return persistent;
}
PersistentRequest neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                           MPI_Comm comm, MPI_Info) {
  PersistentRequest persistent;
  detail::neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                              persistent_call(&persistent));
  return persistent;
}
PersistentRequest neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info) {
  PersistentRequest persistent;
  detail::neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                            persistent_call(&persistent));
  return persistent;
}
PersistentRequest neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                          MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                          const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info) {
  PersistentRequest persistent;
  detail::neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                             persistent_call(&persistent));
  return persistent;
}
PersistentRequest neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                          const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                          MPI_Info) {
  PersistentRequest persistent;
  detail::neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                             persistent_call(&persistent));
  return persistent;
}

}  // namespace raw
}  // namespace distopo
