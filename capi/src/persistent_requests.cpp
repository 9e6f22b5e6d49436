#include "persistent_requests.hpp"

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "distopo/core/error.hpp"

namespace distopo::capi {
namespace {

std::mutex registry_mutex;
std::unordered_map<MPI_Request, PersistentRequest> registry;
std::atomic<std::size_t> registered{0};

}  // namespace

MPI_Request register_persistent(PersistentRequest collective) {
  MPI_Request handle = MPI_REQUEST_NULL;
  check_mpi(PMPI_Recv_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, &handle), "MPI_Recv_init");
  const std::lock_guard lock(registry_mutex);
  registry.emplace(handle, std::move(collective));
  registered.fetch_add(1, std::memory_order_relaxed);
  return handle;
}

PersistentRequest* find_persistent(MPI_Request handle) noexcept {
  if (registered.load(std::memory_order_relaxed) == 0 || handle == MPI_REQUEST_NULL) return nullptr;
  const std::lock_guard lock(registry_mutex);
  const auto it = registry.find(handle);
  return it == registry.end() ? nullptr : &it->second;
}

void free_persistent(MPI_Request* handle) {
  std::unique_lock lock(registry_mutex);
  auto node = registry.extract(*handle);
  registered.fetch_sub(1, std::memory_order_relaxed);
  lock.unlock();
  check_mpi(PMPI_Request_free(handle), "MPI_Request_free");
  *handle = MPI_REQUEST_NULL;
  node.mapped().wait();
}

}  // namespace distopo::capi
