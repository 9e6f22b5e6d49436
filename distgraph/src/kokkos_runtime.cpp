#include "kokkos_runtime.hpp"

#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdlib>
#include <mutex>

#include "distopo/core/runtime.hpp"

namespace distopo::detail {

namespace {
std::mutex kokkos_mutex;
bool seen = false;  // Kokkos was found initialized by someone else, or started by us
bool ours = false;  // started by us and not yet finalized by our release

bool env_set(const char* name) { return std::getenv(name) != nullptr; }

#if defined(KOKKOS_ENABLE_OPENMP) || defined(KOKKOS_ENABLE_THREADS)
// Positive integer in environment variable `name`, or 0.
int env_count(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr) return 0;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return end != text && value > 0 && value < (1L << 20) ? static_cast<int>(value) : 0;
}

// Ranks of this job on this machine, as the launcher tells each process
// (MPICH's Hydra, Open MPI, MVAPICH); a world of one rank is alone; 0 if
// unknown. Read from the environment: asking MPI would be a collective
// call, and ensure_kokkos runs in whichever rank first builds a graph.
int ranks_on_this_node() {
  for (const char* name : {"MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE", "MV2_COMM_WORLD_LOCAL_SIZE"}) {
    if (const int count = env_count(name)) return count;
  }
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size == 1) return 1;
  }
  return 0;
}
#endif

// Threads for a Kokkos that distopo starts, or -1 for Kokkos' own choice.
// The user's setting wins (KOKKOS_NUM_THREADS, OMP_NUM_THREADS). Otherwise
// the ranks on a machine share its cores instead of each taking all of them:
// a rank the launcher bound to some cores uses those, an unbound one its
// share of the machine, or 1 thread when the launcher does not say how
// many ranks share it.
int default_thread_count() {
#if defined(KOKKOS_ENABLE_OPENMP) || defined(KOKKOS_ENABLE_THREADS)
  if (env_set("KOKKOS_NUM_THREADS") || env_set("OMP_NUM_THREADS")) return -1;
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t mask;
  CPU_ZERO(&mask);
  const int allowed = sched_getaffinity(0, sizeof mask, &mask) == 0 ? CPU_COUNT(&mask) : static_cast<int>(online);
  if (online > 0 && allowed < online) return std::max(allowed, 1);
  const int ranks = ranks_on_this_node();
  return ranks > 0 ? std::max(allowed / ranks, 1) : 1;
#else
  return -1;  // a Serial-only Kokkos has no threads to choose
#endif
}

void start_kokkos() {
  const int threads = default_thread_count();
  // Kokkos' start-up advice (OMP_PROC_BIND=spread) is for one process per
  // machine: with several unbound ranks it would pin them all to the same
  // cores. Kept when the user asks for Kokkos' warnings either way.
  const bool quiet = !env_set("KOKKOS_DISABLE_WARNINGS");
#if KOKKOS_VERSION >= 40000
  Kokkos::InitializationSettings settings;
  if (threads > 0) settings.set_num_threads(threads);
  if (quiet) settings.set_disable_warnings(true);
  Kokkos::initialize(settings);
#else
  Kokkos::InitArguments arguments;
  arguments.num_threads = threads;
  arguments.disable_warnings = quiet;
  Kokkos::initialize(arguments);
#endif
}
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
  start_kokkos();
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

namespace {
std::mutex& kokkos_turn() {
  static std::mutex turn;
  return turn;
}
}  // namespace

KokkosTurn::KokkosTurn() : held_(kokkos_turn().try_lock()) {}

KokkosTurn::~KokkosTurn() {
  if (held_) kokkos_turn().unlock();
}

}  // namespace distopo::detail
