#include "distopo/core/runtime.hpp"

#include <mpi.h>

#include <functional>
#include <mutex>
#include <vector>

#include "distopo/core/error.hpp"
#include "distopo/core/topology.hpp"

namespace distopo {
namespace {

struct RuntimeState {
  std::mutex mutex;
  bool started = false;
  int topology_keyval = MPI_KEYVAL_INVALID;
  int channel_keyval = MPI_KEYVAL_INVALID;
  int finalize_keyval = MPI_KEYVAL_INVALID;
  std::vector<std::function<void()>> releases;  // run at MPI_Finalize, last first
};

RuntimeState& state() {
  static RuntimeState instance;
  return instance;
}

using SharedRecord = std::shared_ptr<const TopologyRecord>;

int copy_record(MPI_Comm, int, void*, void* attribute_in, void* attribute_out, int* flag) {
  // Records are immutable: the copy shares them.
  auto* copy = new (std::nothrow) SharedRecord(*static_cast<SharedRecord*>(attribute_in));
  if (copy == nullptr) return MPI_ERR_NO_MEM;
  *static_cast<void**>(attribute_out) = copy;
  *flag = 1;
  return MPI_SUCCESS;
}

int delete_record(MPI_Comm, int, void* attribute, void*) {
  delete static_cast<SharedRecord*>(attribute);
  return MPI_SUCCESS;
}

int delete_channel(MPI_Comm, int, void* attribute, void*) {
  delete_channel_cache(attribute);
  return MPI_SUCCESS;
}

// Runs inside MPI_Finalize, when MPI_COMM_SELF's attributes are deleted.
int finalize_runtime(MPI_Comm, int, void*, void*) {
  RuntimeState& s = state();
  std::vector<std::function<void()>> releases;
  {
    std::lock_guard lock(s.mutex);
    releases.swap(s.releases);
  }
  // Outside the lock: a release may take locks of its own.
  for (auto release = releases.rbegin(); release != releases.rend(); ++release) (*release)();
  std::lock_guard lock(s.mutex);
  MPI_Comm_free_keyval(&s.topology_keyval);
  MPI_Comm_free_keyval(&s.channel_keyval);
  MPI_Comm_free_keyval(&s.finalize_keyval);
  s.started = false;
  return MPI_SUCCESS;
}

}  // namespace

void ensure_runtime() {
  RuntimeState& s = state();
  std::lock_guard lock(s.mutex);
  if (s.started) return;
  check_mpi(MPI_Comm_create_keyval(copy_record, delete_record, &s.topology_keyval, nullptr),
            "MPI_Comm_create_keyval");
  check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_channel, &s.channel_keyval, nullptr),
            "MPI_Comm_create_keyval");
  check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_runtime, &s.finalize_keyval, nullptr),
            "MPI_Comm_create_keyval");
  check_mpi(MPI_Comm_set_attr(MPI_COMM_SELF, s.finalize_keyval, nullptr), "MPI_Comm_set_attr");
  s.started = true;
}

void at_finalize(std::function<void()> release) {
  ensure_runtime();
  RuntimeState& s = state();
  std::lock_guard lock(s.mutex);
  s.releases.push_back(std::move(release));
}

int topology_keyval() {
  ensure_runtime();
  return state().topology_keyval;
}

int channel_keyval() {
  ensure_runtime();
  return state().channel_keyval;
}

}  // namespace distopo
