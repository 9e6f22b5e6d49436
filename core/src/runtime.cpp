#include "distopo/core/runtime.hpp"

#include <mutex>
#include <vector>

#include "distopo/core/error.hpp"

namespace distopo {

namespace {

struct RuntimeState {
  std::mutex mutex;
  bool started = false;
  int finalize_keyval = MPI_KEYVAL_INVALID;
  std::vector<std::atomic<int>*> keyvals;        // of the RuntimeKeyvals created so far
  std::vector<std::function<void()>> releases;  // run at MPI_Finalize, last first
};

RuntimeState& state() {
  static RuntimeState instance;
  return instance;
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
  for (std::atomic<int>* slot : s.keyvals) {
    int keyval = slot->exchange(MPI_KEYVAL_INVALID);
    MPI_Comm_free_keyval(&keyval);
  }
  s.keyvals.clear();
  MPI_Comm_free_keyval(&s.finalize_keyval);
  s.started = false;
  return MPI_SUCCESS;
}

void start_locked(RuntimeState& s) {
  if (s.started) return;
  check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_runtime, &s.finalize_keyval, nullptr),
            "MPI_Comm_create_keyval");
  check_mpi(MPI_Comm_set_attr(MPI_COMM_SELF, s.finalize_keyval, nullptr), "MPI_Comm_set_attr");
  s.started = true;
}

}  // namespace

void ensure_runtime() {
  RuntimeState& s = state();
  std::lock_guard lock(s.mutex);
  start_locked(s);
}

void at_finalize(std::function<void()> release) {
  RuntimeState& s = state();
  std::lock_guard lock(s.mutex);
  start_locked(s);
  s.releases.push_back(std::move(release));
}

int RuntimeKeyval::get() const {
  // Valid only while the runtime runs: finalize_runtime resets it.
  if (const int keyval = keyval_.load(std::memory_order_acquire); keyval != MPI_KEYVAL_INVALID) return keyval;
  RuntimeState& s = state();
  std::lock_guard lock(s.mutex);
  start_locked(s);
  int keyval = keyval_.load(std::memory_order_relaxed);
  if (keyval == MPI_KEYVAL_INVALID) {
    check_mpi(MPI_Comm_create_keyval(copy_, erase_, &keyval, nullptr), "MPI_Comm_create_keyval");
    s.keyvals.push_back(&keyval_);
    keyval_.store(keyval, std::memory_order_release);
  }
  return keyval;
}

}  // namespace distopo
