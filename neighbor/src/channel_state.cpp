#include "channel_state.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "distopo/core/error.hpp"
#include "distopo/core/runtime.hpp"
#include "distopo/neighbor/collective.hpp"

namespace distopo {
namespace detail {
namespace {

int delete_state(MPI_Comm, int, void* attribute, void*) {
  delete static_cast<NeighborState*>(attribute);
  return MPI_SUCCESS;
}

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

NeighborState* cached_state(MPI_Comm comm) {
  void* attribute = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, state_keyval.get(), &attribute, &found), "MPI_Comm_get_attr");
  return found ? static_cast<NeighborState*>(attribute) : nullptr;
}

}  // namespace

NeighborState& state_of(MPI_Comm comm, const char* caller) {
  const TopologyRecord& record = record_of(comm, caller);
  NeighborState* state = cached_state(comm);
  if (state == nullptr) {
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
    // Failures on the channel come back as codes, reported on `comm` (the
    // duplicate copied `comm`'s handler, fatal by default).
    check_mpi(PMPI_Comm_set_errhandler(state->channel.get(), MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  }
  if (state->record != &record) {
    state->sequence = neighbor_sequence(record, state->rank);
    state->record = &record;
  }
  return *state;
}

int next_tag(NeighborState& state) {
  return 1 + static_cast<int>(state.next_collective++ % static_cast<unsigned long long>(state.tag_count));
}

}  // namespace detail

NeighborDegrees neighbor_degrees(MPI_Comm comm) {
  const TopologyRecord& record = detail::record_of(comm, "neighbor_degrees");
  if (const detail::NeighborState* state = detail::cached_state(comm); state != nullptr && state->record == &record) {
    return {state->sequence.indegree(), state->sequence.outdegree()};
  }
  const detail::NeighborSequence s = detail::neighbor_sequence(record, comm_rank(comm));
  return {s.indegree(), s.outdegree()};
}

}  // namespace distopo
