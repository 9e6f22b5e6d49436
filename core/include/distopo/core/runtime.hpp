#pragma once
// Library lifetime. The first distopo call starts the runtime; at MPI_Finalize
// (an attribute on MPI_COMM_SELF, deleted first by MPI_Finalize) the library
// releases exactly what it started: the keyvals of its communicator caches and
// whatever was registered with at_finalize.
#include <mpi.h>

#include <atomic>
#include <functional>

namespace distopo {

// Idempotent; call at the top of every public entry point that needs the
// runtime. Requires MPI to be initialized.
void ensure_runtime();

// Runs `release` inside MPI_Finalize (the last registered first), for what
// the library keeps for the whole run, e.g. committed datatypes or Kokkos.
void at_finalize(std::function<void()> release);

// An attribute keyval owned by the runtime: created the first time it is asked
// for, freed at MPI_Finalize. Every cache the library keeps on communicators
// (topology records, private channels, neighborhood collective state) has one,
// defined next to its callbacks as a static object.
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
