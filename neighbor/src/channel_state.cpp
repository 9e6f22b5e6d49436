#include "channel_state.hpp"

#include <memory>
#include <string>

#include "distopo/core/comm.hpp"
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
    owned->channel = lease_channel(comm, caller);
    owned->rank = comm_rank(comm);
    check_mpi(MPI_Comm_set_attr(comm, state_keyval.get(), owned.get()), "MPI_Comm_set_attr");
    state = owned.release();
  }
  if (state->record != &record) {
    state->sequence = neighbor_sequence(record, state->rank);
    state->record = &record;
  }
  return *state;
}

int next_tag(NeighborState& state) {
  const auto range = static_cast<unsigned long long>(state.channel.tag_count());
  return state.channel.first_tag() + static_cast<int>(state.next_collective++ % range);
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
