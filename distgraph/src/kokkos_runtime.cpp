#include "kokkos_runtime.hpp"

#include <Kokkos_Core.hpp>
#include <mutex>

#include "distopo/core/runtime.hpp"

namespace distopo::detail {

void ensure_kokkos() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (Kokkos::is_initialized()) return;  // the application's: it finalizes it
    Kokkos::initialize();
    at_finalize([] {
      if (Kokkos::is_initialized()) Kokkos::finalize();
    });
  });
}

}  // namespace distopo::detail
