#pragma once
// Library lifetime. The first distopo call starts the runtime; it stops when
// MPI goes down and releases exactly what it started: the keyvals of its
// communicator caches and whatever was registered with at_finalize.
//
// - World model (MPI_Init): an attribute on MPI_COMM_SELF, whose delete
//   callback MPI runs first thing when it finalizes (MPI_Finalize, or in
//   MPICH the last MPI_Session_finalize while sessions outlive the world).
// - Sessions only (MPI-4, no MPI_Init): MPI_COMM_SELF is not there to carry
//   the attribute. The C API reports MPI_Session_init and
//   MPI_Session_finalize (session_initialized, session_finalizing), and the
//   runtime stops just before the last session is finalized. What is still
//   started at exit (a program that never finalized its sessions, or a C++
//   program without the C API) is released at exit as far as that needs no
//   MPI.
// A stopped runtime starts again at the next call (new keyvals).
#include <mpi.h>

#include <atomic>
#include <functional>

namespace distopo {

// Idempotent; call at the top of every public entry point that needs the
// runtime. Requires MPI to be initialized (MPI_Init or an MPI session).
void ensure_runtime();

// What a release needs when it runs.
enum class ReleaseNeeds { mpi, nothing };

// Runs `release` when the runtime stops (the last registered first), for what
// the library keeps for the whole run, e.g. committed datatypes (needs MPI)
// or Kokkos (needs nothing: also run at exit if MPI may be gone by then).
void at_finalize(std::function<void()> release, ReleaseNeeds needs = ReleaseNeeds::mpi);

// Sessions, as the C API sees them: after a successful MPI_Session_init, and
// before MPI_Session_finalize (the runtime stops there if it is the last
// session and the runtime does not hang on MPI_COMM_SELF).
void session_initialized();
void session_finalizing();

// The thread level MPI_Init gave, or -1 before MPI_Init (the sessions model,
// where there is no MPI_COMM_WORLD). Asked until MPI_Init has run, then kept:
// neither changes afterwards. One atomic load: every call into MPICH under
// MPI_THREAD_MULTIPLE takes its global lock, and the neighborhood
// collectives ask on every completion.
int world_thread_level() noexcept;

// The thread level of the calling program: the world's, or under sessions
// what MPI_Query_thread says (asked each time).
int mpi_thread_level() noexcept;

// An attribute keyval owned by the runtime: created the first time it is asked
// for, freed when the runtime stops. Every cache the library keeps on
// communicators (topology records, private channels, neighborhood collective
// state) has one, defined next to its callbacks as a static object.
class RuntimeKeyval {
 public:
  constexpr RuntimeKeyval(MPI_Comm_copy_attr_function* copy, MPI_Comm_delete_attr_function* erase) noexcept
      : copy_(copy), erase_(erase) {}
  RuntimeKeyval(const RuntimeKeyval&) = delete;
  RuntimeKeyval& operator=(const RuntimeKeyval&) = delete;

  // Starts the runtime if needed. Thread-safe; one atomic load once created.
  [[nodiscard]] int get() const;

 private:
  MPI_Comm_copy_attr_function* copy_;
  MPI_Comm_delete_attr_function* erase_;
  mutable std::atomic<int> keyval_{MPI_KEYVAL_INVALID};
};

}  // namespace distopo
