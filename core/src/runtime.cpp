#include "distopo/core/runtime.hpp"

#include <cstdlib>
#include <mutex>
#include <vector>

#include "distopo/core/error.hpp"

namespace distopo {

namespace {

struct Release {
  std::function<void()> run;
  ReleaseNeeds needs;
};

struct RuntimeState {
  std::mutex mutex;
  bool started = false;
  bool on_self = false;    // stopped by the delete callback of an attribute on MPI_COMM_SELF
  bool exit_hook = false;  // stop_at_exit is registered
  int sessions = 0;        // open MPI sessions, as the C API reported them
  int finalize_keyval = MPI_KEYVAL_INVALID;
  std::vector<std::atomic<int>*> keyvals;  // of the RuntimeKeyvals created so far
  std::vector<Release> releases;           // run when the runtime stops, last first
};

RuntimeState& state() {
  static RuntimeState instance;
  return instance;
}

// Is the world model up (MPI_Init called, MPI_Finalize not yet)? Only then
// does MPI_COMM_SELF exist.
bool world_active() {
  int initialized = 0;
  int finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}

// Runs the releases (with `mpi` false, only those that need no MPI) and, with
// MPI, frees the keyvals. Called with the lock held; releases run outside it,
// since a release may take locks of its own.
void stop(std::unique_lock<std::mutex>& lock, bool mpi) {
  RuntimeState& s = state();
  std::vector<Release> releases;
  releases.swap(s.releases);
  lock.unlock();
  for (auto release = releases.rbegin(); release != releases.rend(); ++release) {
    if (mpi || release->needs == ReleaseNeeds::nothing) release->run();
  }
  lock.lock();
  for (std::atomic<int>* slot : s.keyvals) {
    int keyval = slot->exchange(MPI_KEYVAL_INVALID);
    if (mpi) PMPI_Comm_free_keyval(&keyval);
  }
  s.keyvals.clear();
  if (s.on_self && mpi) PMPI_Comm_free_keyval(&s.finalize_keyval);
  s.finalize_keyval = MPI_KEYVAL_INVALID;
  s.on_self = false;
  s.started = false;
}

// Runs inside MPI's finalization, when MPI_COMM_SELF's attributes are deleted.
int stop_with_self(MPI_Comm, int, void*, void*) {
  std::unique_lock lock(state().mutex);
  if (state().started) stop(lock, true);
  return MPI_SUCCESS;
}

// Sessions only: whatever is still started when the process exits. MPI may be
// gone by then, so only releases that need no MPI run.
void stop_at_exit() {
  std::unique_lock lock(state().mutex);
  if (state().started) stop(lock, false);
}

void start_locked(RuntimeState& s) {
  s.started = true;
  if (s.on_self) return;
  if (world_active()) {
    check_mpi(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, stop_with_self, &s.finalize_keyval, nullptr),
              "MPI_Comm_create_keyval");
    check_mpi(PMPI_Comm_set_attr(MPI_COMM_SELF, s.finalize_keyval, nullptr), "MPI_Comm_set_attr");
    s.on_self = true;
  } else if (!s.exit_hook) {
    std::atexit(stop_at_exit);
    s.exit_hook = true;
  }
}

}  // namespace

void ensure_runtime() {
  RuntimeState& s = state();
  std::lock_guard lock(s.mutex);
  // Also when started: a runtime started by a session moves onto
  // MPI_COMM_SELF once the world model is up.
  start_locked(s);
}

void at_finalize(std::function<void()> release, ReleaseNeeds needs) {
  RuntimeState& s = state();
  std::lock_guard lock(s.mutex);
  start_locked(s);
  s.releases.push_back({std::move(release), needs});
}

void session_initialized() {
  RuntimeState& s = state();
  std::lock_guard lock(s.mutex);
  ++s.sessions;
}

void session_finalizing() {
  RuntimeState& s = state();
  std::unique_lock lock(s.mutex);
  if (s.sessions > 0) --s.sessions;
  // With the attribute on MPI_COMM_SELF, MPI stops the runtime itself when it
  // really goes down (the world model may outlive this session).
  if (s.sessions == 0 && s.started && !s.on_self) stop(lock, true);
}

int world_thread_level() noexcept {
  static std::atomic<int> known{-1};
  int level = known.load(std::memory_order_relaxed);
  if (level >= 0) return level;
  int initialized = 0;
  PMPI_Initialized(&initialized);
  if (!initialized) return -1;
  level = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&level);
  known.store(level, std::memory_order_relaxed);
  return level;
}

int mpi_thread_level() noexcept {
  const int world = world_thread_level();
  if (world >= 0) return world;
  int level = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&level);
  return level;
}

int RuntimeKeyval::get() const {
  // Valid only while the runtime runs: stop() resets it.
  if (const int keyval = keyval_.load(std::memory_order_acquire); keyval != MPI_KEYVAL_INVALID) return keyval;
  RuntimeState& s = state();
  std::lock_guard lock(s.mutex);
  start_locked(s);
  int keyval = keyval_.load(std::memory_order_relaxed);
  if (keyval == MPI_KEYVAL_INVALID) {
    check_mpi(PMPI_Comm_create_keyval(copy_, erase_, &keyval, nullptr), "MPI_Comm_create_keyval");
    s.keyvals.push_back(&keyval_);
    keyval_.store(keyval, std::memory_order_release);
  }
  return keyval;
}

}  // namespace distopo
