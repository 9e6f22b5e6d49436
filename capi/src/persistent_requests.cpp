#include "persistent_requests.hpp"

#include <atomic>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "error_reporting.hpp"

namespace distopo::capi {
namespace {

std::mutex registry_mutex;
std::unordered_map<MPI_Request, PersistentRequest> registry;
std::atomic<std::size_t> registered{0};

// The collective behind `request`, or nullptr for anybody else's request.
// Entries are only removed by MPI_Request_free on the same handle, which the
// standard forbids concurrently with other use of it, so the pointer stays
// valid after the lock is released.
PersistentRequest* find(MPI_Request request) {
  if (registered.load(std::memory_order_relaxed) == 0 || request == MPI_REQUEST_NULL) return nullptr;
  const std::lock_guard lock(registry_mutex);
  const auto it = registry.find(request);
  return it == registry.end() ? nullptr : &it->second;
}

bool any_ours(int count, const MPI_Request requests[]) {
  if (registered.load(std::memory_order_relaxed) == 0) return false;
  for (int i = 0; i < count; ++i) {
    if (find(requests[i]) != nullptr) return true;
  }
  return false;
}

// A completed collective reports an empty status, as MPI defines for
// collectives.
void set_empty(MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
}

MPI_Status* status_at(MPI_Status statuses[], int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

// The array MPICH sees: our handles replaced by MPI_REQUEST_NULL (which MPICH
// treats as inactive), so it neither waits for nor frees them.
std::vector<MPI_Request> without_ours(int count, const MPI_Request requests[]) {
  std::vector<MPI_Request> theirs(requests, requests + count);
  for (MPI_Request& request : theirs) {
    if (find(request) != nullptr) request = MPI_REQUEST_NULL;
  }
  return theirs;
}

// Copies MPICH's updates (freed or inactivated handles) back, skipping ours.
void copy_back(int count, const std::vector<MPI_Request>& theirs, MPI_Request requests[]) {
  for (int i = 0; i < count; ++i) {
    if (find(requests[i]) == nullptr) requests[i] = theirs[static_cast<std::size_t>(i)];
  }
}

}  // namespace

MPI_Request register_persistent(PersistentRequest collective) {
  MPI_Request handle = MPI_REQUEST_NULL;
  check_mpi(PMPI_Recv_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, &handle), "MPI_Recv_init");
  const std::lock_guard lock(registry_mutex);
  registry.emplace(handle, std::move(collective));
  registered.fetch_add(1, std::memory_order_relaxed);
  return handle;
}

}  // namespace distopo::capi

using distopo::capi::guarded;
using namespace distopo::capi;  // NOLINT: the helpers above

DISTOPO_CAPI int MPI_Start(MPI_Request* request) {
  if (request == nullptr) return PMPI_Start(request);
  distopo::PersistentRequest* ours = find(*request);
  if (ours == nullptr) return PMPI_Start(request);
  return guarded(MPI_COMM_NULL, "MPI_Start", [&] { ours->start(); });
}

DISTOPO_CAPI int MPI_Startall(int count, MPI_Request requests[]) {
  if (count <= 0 || requests == nullptr || !any_ours(count, requests)) return PMPI_Startall(count, requests);
  for (int i = 0; i < count; ++i) {
    if (const int rc = MPI_Start(&requests[i]); rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

DISTOPO_CAPI int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  if (request == nullptr) return PMPI_Wait(request, status);
  distopo::PersistentRequest* ours = find(*request);
  if (ours == nullptr) return PMPI_Wait(request, status);
  return guarded(MPI_COMM_NULL, "MPI_Wait", [&] {
    ours->wait();
    set_empty(status);
  });
}

DISTOPO_CAPI int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  if (request == nullptr || flag == nullptr) return PMPI_Test(request, flag, status);
  distopo::PersistentRequest* ours = find(*request);
  if (ours == nullptr) return PMPI_Test(request, flag, status);
  return guarded(MPI_COMM_NULL, "MPI_Test", [&] {
    *flag = ours->test() ? 1 : 0;
    if (*flag) set_empty(status);
  });
}

DISTOPO_CAPI int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  distopo::PersistentRequest* ours = find(request);
  if (ours == nullptr || flag == nullptr) return PMPI_Request_get_status(request, flag, status);
  return guarded(MPI_COMM_NULL, "MPI_Request_get_status", [&] {
    *flag = ours->test() ? 1 : 0;
    if (*flag) set_empty(status);
  });
}

DISTOPO_CAPI int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (count <= 0 || requests == nullptr || !any_ours(count, requests)) {
    return PMPI_Waitall(count, requests, statuses);
  }
  int rc = guarded(MPI_COMM_NULL, "MPI_Waitall", [&] {
    for (int i = 0; i < count; ++i) {
      if (distopo::PersistentRequest* ours = find(requests[i])) ours->wait();
    }
  });
  if (rc != MPI_SUCCESS) return rc;
  std::vector<MPI_Request> theirs = without_ours(count, requests);
  rc = PMPI_Waitall(count, theirs.data(), statuses);
  copy_back(count, theirs, requests);
  for (int i = 0; i < count; ++i) {
    if (find(requests[i]) != nullptr) set_empty(status_at(statuses, i));
  }
  return rc;
}

DISTOPO_CAPI int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  if (count <= 0 || requests == nullptr || flag == nullptr || !any_ours(count, requests)) {
    return PMPI_Testall(count, requests, flag, statuses);
  }
  bool ours_done = true;
  const int rc = guarded(MPI_COMM_NULL, "MPI_Testall", [&] {
    for (int i = 0; i < count; ++i) {
      if (distopo::PersistentRequest* ours = find(requests[i])) ours_done = ours->test() && ours_done;
    }
  });
  if (rc != MPI_SUCCESS) return rc;
  if (!ours_done) {
    // MPI: unless all are complete, no request is touched. Ours that did
    // complete are inactive now and count as complete next time.
    *flag = 0;
    return MPI_SUCCESS;
  }
  std::vector<MPI_Request> theirs = without_ours(count, requests);
  const int their_rc = PMPI_Testall(count, theirs.data(), flag, statuses);
  if (*flag) {
    copy_back(count, theirs, requests);
    for (int i = 0; i < count; ++i) {
      if (find(requests[i]) != nullptr) set_empty(status_at(statuses, i));
    }
  }
  return their_rc;
}

namespace {

// One pass of Testany over a mixed array: ours first, then MPICH's.
// Returns true with *index set when one completed or none is active
// (*index = MPI_UNDEFINED then).
int testany_pass(int count, MPI_Request requests[], int* index, bool* done, MPI_Status* status) {
  bool ours_active = false;
  for (int i = 0; i < count; ++i) {
    distopo::PersistentRequest* ours = find(requests[i]);
    if (ours == nullptr || !ours->active()) continue;
    ours_active = true;
    if (ours->test()) {
      *index = i;
      *done = true;
      set_empty(status);
      return MPI_SUCCESS;
    }
  }
  std::vector<MPI_Request> theirs = without_ours(count, requests);
  int flag = 0;
  int which = MPI_UNDEFINED;
  const int rc = PMPI_Testany(count, theirs.data(), &which, &flag, status);
  if (rc != MPI_SUCCESS) return rc;
  copy_back(count, theirs, requests);
  if (flag && which != MPI_UNDEFINED) {
    *index = which;
    *done = true;
  } else if (flag && !ours_active) {
    *index = MPI_UNDEFINED;  // nothing active anywhere
    *done = true;
  }
  return MPI_SUCCESS;
}

}  // namespace

DISTOPO_CAPI int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  if (count <= 0 || requests == nullptr || index == nullptr || flag == nullptr || !any_ours(count, requests)) {
    return PMPI_Testany(count, requests, index, flag, status);
  }
  bool done = false;
  int rc = MPI_SUCCESS;
  const int guard =
      guarded(MPI_COMM_NULL, "MPI_Testany", [&] { rc = testany_pass(count, requests, index, &done, status); });
  if (guard != MPI_SUCCESS) return guard;
  *flag = done ? 1 : 0;
  if (!done) *index = MPI_UNDEFINED;
  return rc;
}

DISTOPO_CAPI int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  if (count <= 0 || requests == nullptr || index == nullptr || !any_ours(count, requests)) {
    return PMPI_Waitany(count, requests, index, status);
  }
  for (;;) {
    int flag = 0;
    if (const int rc = MPI_Testany(count, requests, index, &flag, status); rc != MPI_SUCCESS || flag) return rc;
  }
}

DISTOPO_CAPI int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                              MPI_Status statuses[]) {
  if (incount <= 0 || requests == nullptr || outcount == nullptr || !any_ours(incount, requests)) {
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  }
  bool ours_active = false;
  std::vector<int> ours_done;
  const int guard = guarded(MPI_COMM_NULL, "MPI_Testsome", [&] {
    for (int i = 0; i < incount; ++i) {
      distopo::PersistentRequest* ours = find(requests[i]);
      if (ours == nullptr || !ours->active()) continue;
      ours_active = true;
      if (ours->test()) ours_done.push_back(i);
    }
  });
  if (guard != MPI_SUCCESS) return guard;
  std::vector<MPI_Request> theirs = without_ours(incount, requests);
  int their_count = 0;
  const int rc = PMPI_Testsome(incount, theirs.data(), &their_count, indices, statuses);
  if (rc != MPI_SUCCESS) return rc;
  copy_back(incount, theirs, requests);
  if (their_count == MPI_UNDEFINED) {
    if (!ours_active) {
      *outcount = MPI_UNDEFINED;
      return MPI_SUCCESS;
    }
    their_count = 0;
  }
  for (const int i : ours_done) {
    indices[their_count] = i;
    set_empty(status_at(statuses, their_count));
    ++their_count;
  }
  *outcount = their_count;
  return MPI_SUCCESS;
}

DISTOPO_CAPI int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                              MPI_Status statuses[]) {
  if (incount <= 0 || requests == nullptr || outcount == nullptr || !any_ours(incount, requests)) {
    return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  }
  for (;;) {
    const int rc = MPI_Testsome(incount, requests, outcount, indices, statuses);
    if (rc != MPI_SUCCESS || *outcount != 0) return rc;
  }
}

DISTOPO_CAPI int MPI_Request_free(MPI_Request* request) {
  if (request == nullptr || find(*request) == nullptr) return PMPI_Request_free(request);
  return guarded(MPI_COMM_NULL, "MPI_Request_free", [&] {
    // MPI lets an active persistent request be freed; it completes first.
    std::unique_lock lock(registry_mutex);
    auto node = registry.extract(*request);
    registered.fetch_sub(1, std::memory_order_relaxed);
    lock.unlock();
    node.mapped().wait();
    distopo::check_mpi(PMPI_Request_free(request), "MPI_Request_free");
    *request = MPI_REQUEST_NULL;
  });
}

DISTOPO_CAPI int MPI_Cancel(MPI_Request* request) {
  if (request == nullptr || find(*request) == nullptr) return PMPI_Cancel(request);
  return raise(MPI_COMM_NULL, MPI_ERR_REQUEST, "MPI_Cancel",
               "a persistent neighborhood collective cannot be cancelled");
}
