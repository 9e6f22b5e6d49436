// MPI_Start*, MPI_Wait*, MPI_Test*, MPI_Request_get_status, MPI_Request_free
// and MPI_Cancel over arrays that may hold neighborhood collectives' requests
// (collective_requests.hpp): those are completed by distopo, the others by
// MPICH, which sees MPI_REQUEST_NULL (an inactive request to it) in their
// place. Requests that are not ours go straight to MPICH; while no collective
// request is outstanding the cost is two relaxed atomic loads per call.
//
// A collective's failure is raised on its communicator: by itself in the
// single-completion calls (MPI_Wait, MPI_Test, MPI_Waitany, MPI_Testany,
// MPI_Request_get_status), as MPI_ERR_IN_STATUS with its code in its status in
// the others. A completed collective's status is empty, as MPI defines for
// collectives.
#include <vector>

#include "collective_requests.hpp"
#include "error_reporting.hpp"
#include "persistent_requests.hpp"

namespace {

using distopo::capi::caught;
using distopo::capi::CollectiveRequest;
using distopo::capi::guarded;
using distopo::capi::raise_code;

void set_empty(MPI_Status* status, int error = MPI_SUCCESS) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = error;
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
}

MPI_Status* status_at(MPI_Status statuses[], int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

// An array of requests split between distopo (ours, by index) and MPICH
// (theirs: the array with ours replaced by MPI_REQUEST_NULL).
struct Split {
  struct Ours {
    int index;
    CollectiveRequest request;
  };
  std::vector<Ours> ours;
  std::vector<MPI_Request> theirs;

  Split(int count, const MPI_Request requests[]) : theirs(requests, requests + count) {
    for (int i = 0; i < count; ++i) {
      if (auto request = CollectiveRequest::find(requests[i])) {
        ours.push_back({i, *request});
        theirs[static_cast<std::size_t>(i)] = MPI_REQUEST_NULL;
      }
    }
  }
  // MPICH's updates (freed or inactivated handles) copied back, ours kept.
  void copy_back(MPI_Request requests[]) const {
    std::size_t next = 0;
    for (std::size_t i = 0; i < theirs.size(); ++i) {
      if (next < ours.size() && static_cast<std::size_t>(ours[next].index) == i) {
        ++next;
      } else {
        requests[i] = theirs[i];
      }
    }
  }
};

// Completes one of ours in a call on many: its code (not raised), its status
// set. `failed_comm` keeps the communicator of the first failure.
int complete_one(Split::Ours& ours, MPI_Request requests[], MPI_Status* status, const char* function,
                 MPI_Comm& failed_comm) {
  const MPI_Comm comm = ours.request.comm();
  const int code = caught(function, [&] { ours.request.complete(&requests[ours.index]); });
  set_empty(status, code);
  if (code != MPI_SUCCESS && failed_comm == MPI_COMM_NULL) failed_comm = comm;
  return code;
}

// After MPI_Waitall or MPI_Testall in which one of ours failed (on
// `failed_comm`) and MPICH's requests did not: their statuses get MPI_SUCCESS
// in their error fields, and MPI_ERR_IN_STATUS is raised.
int raise_in_status(const Split& split, MPI_Status statuses[], MPI_Comm failed_comm, const char* function) {
  if (statuses != MPI_STATUSES_IGNORE) {
    std::size_t next = 0;
    for (std::size_t i = 0; i < split.theirs.size(); ++i) {
      if (next < split.ours.size() && static_cast<std::size_t>(split.ours[next].index) == i) {
        ++next;
      } else {
        statuses[i].MPI_ERROR = MPI_SUCCESS;
      }
    }
  }
  return distopo::capi::raise(failed_comm, MPI_ERR_IN_STATUS, function,
                              "a neighborhood collective failed: its status holds its error");
}

}  // namespace

DISTOPO_CAPI int MPI_Start(MPI_Request* request) {
  distopo::PersistentRequest* ours = request == nullptr ? nullptr : distopo::capi::find_persistent(*request);
  if (ours == nullptr) return PMPI_Start(request);
  return guarded(ours->comm(), "MPI_Start", [&] { ours->start(); });
}

DISTOPO_CAPI int MPI_Startall(int count, MPI_Request requests[]) {
  if (count <= 0 || requests == nullptr || !CollectiveRequest::any(count, requests)) {
    return PMPI_Startall(count, requests);
  }
  for (int i = 0; i < count; ++i) {
    if (const int rc = MPI_Start(&requests[i]); rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

DISTOPO_CAPI int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  auto ours = request == nullptr ? std::nullopt : CollectiveRequest::find(*request);
  if (!ours) return PMPI_Wait(request, status);
  const MPI_Comm comm = ours->comm();
  const int code = caught("MPI_Wait", [&] { ours->complete(request); });
  set_empty(status, code);
  return raise_code(comm, code);
}

DISTOPO_CAPI int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  auto ours = request == nullptr || flag == nullptr ? std::nullopt : CollectiveRequest::find(*request);
  if (!ours) return PMPI_Test(request, flag, status);
  *flag = ours->done() ? 1 : 0;
  if (!*flag) return MPI_SUCCESS;
  return MPI_Wait(request, status);
}

DISTOPO_CAPI int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  auto ours = flag == nullptr ? std::nullopt : CollectiveRequest::find(request);
  if (!ours) return PMPI_Request_get_status(request, flag, status);
  bool done = false;
  const int code = caught("MPI_Request_get_status", [&] { done = ours->get_status(); });
  done = done || code != MPI_SUCCESS;  // it fails only once complete
  *flag = done ? 1 : 0;
  if (done) set_empty(status, code);
  return raise_code(ours->comm(), code);
}

DISTOPO_CAPI int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (count <= 0 || requests == nullptr || !CollectiveRequest::any(count, requests)) {
    return PMPI_Waitall(count, requests, statuses);
  }
  Split split(count, requests);
  const int their_rc = PMPI_Waitall(count, split.theirs.data(), statuses);
  split.copy_back(requests);
  MPI_Comm failed_comm = MPI_COMM_NULL;
  for (Split::Ours& ours : split.ours) {
    complete_one(ours, requests, status_at(statuses, ours.index), "MPI_Waitall", failed_comm);
  }
  if (failed_comm == MPI_COMM_NULL || their_rc != MPI_SUCCESS) return their_rc;
  return raise_in_status(split, statuses, failed_comm, "MPI_Waitall");
}

DISTOPO_CAPI int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  if (count <= 0 || requests == nullptr || flag == nullptr || !CollectiveRequest::any(count, requests)) {
    return PMPI_Testall(count, requests, flag, statuses);
  }
  Split split(count, requests);
  bool ours_done = true;
  for (Split::Ours& ours : split.ours) ours_done = ours.request.done() && ours_done;
  // MPI: unless all are complete, no request is touched; ours that are
  // complete stay so until the next call.
  *flag = 0;
  if (!ours_done) return MPI_SUCCESS;
  const int their_rc = PMPI_Testall(count, split.theirs.data(), flag, statuses);
  if (!*flag) return their_rc;
  split.copy_back(requests);
  MPI_Comm failed_comm = MPI_COMM_NULL;
  for (Split::Ours& ours : split.ours) {
    complete_one(ours, requests, status_at(statuses, ours.index), "MPI_Testall", failed_comm);
  }
  if (failed_comm == MPI_COMM_NULL || their_rc != MPI_SUCCESS) return their_rc;
  return raise_in_status(split, statuses, failed_comm, "MPI_Testall");
}

namespace {

// One pass of MPI_Testany over an array holding some of ours: ours first,
// then MPICH's. *flag is set when one completed (*index) or none is active
// (*index = MPI_UNDEFINED).
int testany_pass(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  Split split(count, requests);
  bool ours_active = false;
  for (Split::Ours& ours : split.ours) {
    if (!ours.request.active()) continue;
    ours_active = true;
    if (!ours.request.done()) continue;
    *index = ours.index;
    *flag = 1;
    MPI_Comm failed_comm = MPI_COMM_NULL;
    const int code = complete_one(ours, requests, status, "MPI_Testany", failed_comm);
    return raise_code(failed_comm, code);
  }
  int which = MPI_UNDEFINED;
  const int rc = PMPI_Testany(count, split.theirs.data(), &which, flag, status);
  split.copy_back(requests);
  if (*flag && which == MPI_UNDEFINED && ours_active) *flag = 0;  // ours still run
  *index = which;
  return rc;
}

// One pass of MPI_Testsome likewise: MPICH's completions first in indices and
// statuses, then ours.
int testsome_pass(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  Split split(incount, requests);
  int their_count = 0;
  const int their_rc = PMPI_Testsome(incount, split.theirs.data(), &their_count, indices, statuses);
  split.copy_back(requests);
  if (their_rc != MPI_SUCCESS && their_rc != MPI_ERR_IN_STATUS) return their_rc;
  bool ours_active = false;
  int count = their_count == MPI_UNDEFINED ? 0 : their_count;
  MPI_Comm failed_comm = MPI_COMM_NULL;
  for (Split::Ours& ours : split.ours) {
    if (!ours.request.active()) continue;
    ours_active = true;
    if (!ours.request.done()) continue;
    indices[count] = ours.index;
    complete_one(ours, requests, status_at(statuses, count), "MPI_Testsome", failed_comm);
    ++count;
  }
  *outcount = their_count == MPI_UNDEFINED && !ours_active ? MPI_UNDEFINED : count;
  if (failed_comm == MPI_COMM_NULL || their_rc != MPI_SUCCESS) return their_rc;
  for (int k = 0; k < their_count; ++k) status_at(statuses, k)->MPI_ERROR = MPI_SUCCESS;
  return distopo::capi::raise(failed_comm, MPI_ERR_IN_STATUS, "MPI_Testsome",
                              "a neighborhood collective failed: its status holds its error");
}

}  // namespace

DISTOPO_CAPI int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  if (count <= 0 || requests == nullptr || index == nullptr || flag == nullptr ||
      !CollectiveRequest::any(count, requests)) {
    return PMPI_Testany(count, requests, index, flag, status);
  }
  return testany_pass(count, requests, index, flag, status);
}

DISTOPO_CAPI int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  if (count <= 0 || requests == nullptr || index == nullptr || !CollectiveRequest::any(count, requests)) {
    return PMPI_Waitany(count, requests, index, status);
  }
  for (;;) {
    int flag = 0;
    if (const int rc = MPI_Testany(count, requests, index, &flag, status); rc != MPI_SUCCESS || flag) return rc;
  }
}

DISTOPO_CAPI int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                              MPI_Status statuses[]) {
  if (incount <= 0 || requests == nullptr || outcount == nullptr || indices == nullptr ||
      !CollectiveRequest::any(incount, requests)) {
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  }
  return testsome_pass(incount, requests, outcount, indices, statuses);
}

DISTOPO_CAPI int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                              MPI_Status statuses[]) {
  if (incount <= 0 || requests == nullptr || outcount == nullptr || indices == nullptr ||
      !CollectiveRequest::any(incount, requests)) {
    return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  }
  for (;;) {
    const int rc = MPI_Testsome(incount, requests, outcount, indices, statuses);
    if (rc != MPI_SUCCESS || *outcount != 0) return rc;
  }
}

// A non-blocking collective's request goes to MPICH: freeing one before it
// completes is erroneous, and cancelling one has no effect (its generalized
// request's callbacks).
DISTOPO_CAPI int MPI_Request_free(MPI_Request* request) {
  distopo::PersistentRequest* ours = request == nullptr ? nullptr : distopo::capi::find_persistent(*request);
  if (ours == nullptr) return PMPI_Request_free(request);
  return guarded(ours->comm(), "MPI_Request_free", [&] { distopo::capi::free_persistent(request); });
}

DISTOPO_CAPI int MPI_Cancel(MPI_Request* request) {
  distopo::PersistentRequest* ours = request == nullptr ? nullptr : distopo::capi::find_persistent(*request);
  if (ours == nullptr) return PMPI_Cancel(request);
  return distopo::capi::raise(ours->comm(), MPI_ERR_REQUEST, "MPI_Cancel",
                              "a persistent neighborhood collective cannot be cancelled");
}
