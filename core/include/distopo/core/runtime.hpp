#pragma once
// Library lifetime. The first distopo call initializes what the library needs
// (the attribute keyvals). At MPI_Finalize (an attribute on MPI_COMM_SELF,
// deleted first by MPI_Finalize) the library releases exactly what it started.
#include <functional>

namespace distopo {

// Idempotent; call at the top of every public entry point that needs the
// runtime. Requires MPI to be initialized.
void ensure_runtime();

// Runs `release` inside MPI_Finalize (the last registered first), for what
// the library keeps for the whole run, e.g. committed datatypes or Kokkos.
void at_finalize(std::function<void()> release);

// The keyval under which topology records are cached on communicators.
int topology_keyval();

// The keyval under which private channels are cached (not copied by dup).
int channel_keyval();

// Frees a cached private channel (the delete callback of channel_keyval()).
void delete_channel_cache(void* attribute) noexcept;

}  // namespace distopo
