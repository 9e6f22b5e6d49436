#pragma once
// The non-blocking form's request: an MPICH generalized request
// (MPIX_Grequest_class) whose poll function tests the posted requests and
// whose wait function waits for them, so MPI_Wait/Test/Waitall/Testall/
// Waitany/... complete and progress it like any other request. Behind it is a
// distopo::NonblockingRequest (<distopo/neighbor/nonblocking_request.hpp>),
// through which a caller may complete it instead.
#include <mpi.h>

#include <memory>

#include "completion.hpp"

namespace distopo::detail {

// Takes ownership of immediate requests just posted; the generalized request
// frees them when it is freed.
MPI_Request generalized_request(std::unique_ptr<PostedRequests> posted);

}  // namespace distopo::detail
