#pragma once
// Every argument check of the neighborhood collectives, local and before
// anything is sent: the standard's arguments (validate), every block's address
// and size and a typed caller's buffer sizes (check_blocks), and the typed
// front's translation of ranges into counts (element_count, per_slot,
// per_neighbor). A failed check becomes one LocalError that the engine reports
// on the no-hang path.
#include <mpi.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "arguments.hpp"
#include "distopo/core/error.hpp"
#include "plan.hpp"

namespace distopo::detail {

using Check = std::optional<LocalError>;

// The standard's arguments against this rank's sequence; the message names
// the operation and `rank`.
Check validate(const AllgatherArgs& a, const NeighborSequence& s, int rank);
Check validate(const AlltoallArgs& a, const NeighborSequence& s, int rank);
// (instantiated for the standard and the large-count argument types)
template <class C, class D>
Check validate(const BasicAllgathervArgs<C, D>& a, const NeighborSequence& s, int rank);
template <class C, class D>
Check validate(const BasicAlltoallvArgs<C, D>& a, const NeighborSequence& s, int rank);
template <class C>
Check validate(const BasicAlltoallwArgs<C>& a, const NeighborSequence& s, int rank);

// A non-blocking call needs somewhere to put its request.
Check check_request(const MPI_Request* request, const char* caller, int rank);

// Every slot's block (MPI_PROC_NULL slots included) must have an address an
// MPI_Aint holds (MPI_ERR_ARG, or MPI_ERR_COUNT when counts push it there) and
// no more bytes than an MPI_Aint counts (MPI_ERR_COUNT): that is what
// MPI_Isend_c and friends can be given. With `bounds` (a typed caller), it
// must also lie inside the caller's buffer (MPI_ERR_BUFFER). `failure` is the
// block's address arithmetic's (Addresses::take_failure).
// The extent and size of the last datatype a call's check met.
struct TypeSizes {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Aint extent = 0;
  MPI_Count size = 0;
};
Check check_block(const Block& block, int failure, const void* base, const std::size_t* bytes, bool sending, int slot,
                  const char* caller, int rank, TypeSizes& sizes);
template <class Blocks>
Check check_blocks(const NeighborSequence& s, const Blocks& blocks, const TypedBounds* bounds, const char* caller,
                   int rank) {
  TypeSizes sizes;
  for (int slot = 0; slot < s.outdegree(); ++slot) {
    const Block b = blocks.send(slot);
    if (Check c = check_block(b, blocks.addresses.take_failure(), blocks.args.sendbuf,
                              bounds ? &bounds->send_bytes : nullptr, true, slot, caller, rank, sizes)) {
      return c;
    }
  }
  for (int slot = 0; slot < s.indegree(); ++slot) {
    const Block b = blocks.recv(slot);
    if (Check c = check_block(b, blocks.addresses.take_failure(), blocks.args.recvbuf,
                              bounds ? &bounds->recv_bytes : nullptr, false, slot, caller, rank, sizes)) {
      return c;
    }
  }
  return std::nullopt;
}

// --- the typed front's translation: each notes the first error in `error`
// ("<caller>: <what>...") and returns a harmless value in its place.

// `n` elements as an MPI count.
MPI_Count element_count(std::size_t n, Check& error, const char* caller, const char* what);
// Elements per neighbor when `elements` are split evenly over `degree` slots.
MPI_Count per_slot(std::size_t elements, int degree, Check& error, const char* caller, const char* what);
// An array of one entry per neighbor: shorter than the degree is an error
// (and is then not read: nullptr).
template <class A>
const A* per_neighbor(std::span<const A> values, int degree, Check& error, const char* caller, const char* what) {
  if (values.size() >= static_cast<std::size_t>(degree)) return values.data();
  if (!error) {
    error = LocalError{MPI_ERR_ARG, std::string(caller) + ": " + what + " has " + std::to_string(values.size()) +
                                        " entries for " + std::to_string(degree) + " neighbors"};
  }
  return nullptr;
}

}  // namespace distopo::detail
