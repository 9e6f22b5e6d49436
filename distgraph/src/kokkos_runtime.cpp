#include "kokkos_runtime.hpp"

#include <Kokkos_Core.hpp>
#include <mutex>

#include "distopo/core/runtime.hpp"

namespace distopo::detail {

namespace {
std::mutex kokkos_mutex;
bool seen = false;  // Kokkos was found initialized by someone else, or started by us
bool ours = false;  // started by us and not yet finalized by our release
}  // namespace

void ensure_kokkos() {
  const std::lock_guard lock(kokkos_mutex);
  if (ours) return;
  if (Kokkos::is_initialized()) {
    seen = true;  // the application's: it finalizes it, maybe while we still run
    return;
  }
  // Never start what somebody else finalized (the sort falls back without
  // Kokkos); only a Kokkos nobody has started yet, or the one we started and
  // finalized ourselves when the runtime stopped.
  if (seen) return;
#if KOKKOS_VERSION >= 40000
  if (Kokkos::is_finalized()) return;  // Kokkos 4 cannot start again
#endif
  Kokkos::initialize();
  seen = true;
  ours = true;
  at_finalize(
      [] {
        const std::lock_guard release_lock(kokkos_mutex);
        if (Kokkos::is_initialized()) Kokkos::finalize();
        ours = false;
        seen = false;
      },
      ReleaseNeeds::nothing);
}

}  // namespace distopo::detail
