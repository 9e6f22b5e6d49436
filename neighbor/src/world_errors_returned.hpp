#pragma once
// MPICH 4.0.2 raises the failure of a request completed by MPI_Test or
// MPI_Wait (a truncated receive, for instance) on MPI_COMM_WORLD's error
// handler, not on the handler of the request's communicator: with the
// default handler the job aborts before the code comes back. While one of
// these guards lives, MPI_COMM_WORLD returns errors, so that a collective can
// report its failure on the user's communicator; the handler the program set
// is restored when the guard ends. Without MPI_Init (the sessions model)
// there is no MPI_COMM_WORLD to ask, and nothing is changed.
//
// Threads. Below MPI_THREAD_MULTIPLE, one thread at a time is in MPI, so a
// plain count suffices (a guard costs the four handler calls, no lock). With
// MPI_THREAD_MULTIPLE: the handler is one per process, so the guards of all threads
// share one count: the first guard sets MPI_ERRORS_RETURN, the last one
// restores the program's handler (each guard saving and restoring on its own
// left MPI_ERRORS_RETURN behind when two overlapped). The thread that changes
// the handler does so without holding the count's lock, and nobody waits for
// it: a guard may be made inside an MPICH callback, with MPICH's lock held,
// which the changing thread needs. A guard made while the handler is being
// changed goes on at once (for that moment a failure may still reach the
// program's handler), and the changing thread settles the handler to what
// the count says before it leaves.
#include <mpi.h>

#include <mutex>

#include "distopo/core/runtime.hpp"

namespace distopo::detail {

class WorldErrorsReturned {
 public:
  WorldErrorsReturned() noexcept {
    const int level = world_thread_level();
    if (level < 0) return;
    counted_ = true;
    serial_ = level != MPI_THREAD_MULTIPLE;
    if (serial_) {
      Shared& s = shared();
      if (s.guards++ == 0) s.saved = world_returning();
      return;
    }
    {
      const std::lock_guard lock(shared().mutex);
      ++shared().guards;
      if (shared().changing) return;
      shared().changing = true;
    }
    settle();
  }
  ~WorldErrorsReturned() {
    if (!counted_) return;
    if (serial_) {
      Shared& s = shared();
      if (--s.guards == 0 && s.saved != MPI_ERRHANDLER_NULL) world_back_to(s.saved);
      return;
    }
    {
      const std::lock_guard lock(shared().mutex);
      --shared().guards;
      if (shared().changing) return;
      shared().changing = true;
    }
    settle();
  }
  WorldErrorsReturned(const WorldErrorsReturned&) = delete;
  WorldErrorsReturned& operator=(const WorldErrorsReturned&) = delete;

 private:
  struct Shared {
    std::mutex mutex;
    int guards = 0;                              // guards alive in the process
    bool changing = false;                       // a thread is in settle()
    MPI_Errhandler saved = MPI_ERRHANDLER_NULL;  // the program's, while MPI_ERRORS_RETURN is set
  };
  static Shared& shared() {
    static Shared instance;
    return instance;
  }

  // Called with `changing` taken: sets or restores the handler until it
  // matches the count (guards may come and go meanwhile), then lets go.
  static void settle() noexcept {
    Shared& s = shared();
    for (;;) {
      bool set_returning = false;
      MPI_Errhandler restore = MPI_ERRHANDLER_NULL;
      {
        const std::lock_guard lock(s.mutex);
        const bool returning = s.saved != MPI_ERRHANDLER_NULL;
        if ((s.guards > 0) == returning) {
          s.changing = false;
          return;
        }
        set_returning = s.guards > 0;
        if (!set_returning) {
          restore = s.saved;
          s.saved = MPI_ERRHANDLER_NULL;
        }
      }
      if (set_returning) {
        const MPI_Errhandler program = world_returning();
        const std::lock_guard lock(s.mutex);
        if (program == MPI_ERRHANDLER_NULL) {
          s.changing = false;
          return;
        }
        s.saved = program;
      } else {
        world_back_to(restore);
      }
    }
  }

  // The two switches of the handler. Without MPI_THREAD_MULTIPLE no two
  // threads are in MPI (nor in these guards, which live inside MPI calls and
  // MPICH's callbacks) at once: the first guard and the last one call them
  // directly, without the lock and settle().
  //
  // Sets MPI_ERRORS_RETURN; returns the program's handler, or
  // MPI_ERRHANDLER_NULL (and changes nothing) if it cannot be read.
  static MPI_Errhandler world_returning() noexcept {
    MPI_Errhandler program = MPI_ERRHANDLER_NULL;
    if (PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &program) != MPI_SUCCESS) return MPI_ERRHANDLER_NULL;
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    return program;
  }
  // Sets `program` back and frees the reference to it (null afterwards).
  static void world_back_to(MPI_Errhandler& program) noexcept {
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, program);
    PMPI_Errhandler_free(&program);
    program = MPI_ERRHANDLER_NULL;
  }

  bool counted_ = false;
  bool serial_ = false;  // the thread level is below MPI_THREAD_MULTIPLE
};

}  // namespace distopo::detail
