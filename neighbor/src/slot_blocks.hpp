#pragma once
// Where each slot's block lives, per operation: send(j) is the block for the
// j-th out-neighbor, recv(i) the place for the i-th in-neighbor's. Built from
// validated arguments only (extents of valid datatypes).
#include <mpi.h>

#include "distopo/core/error.hpp"
#include "distopo/neighbor/collective.hpp"

namespace distopo::detail {

struct Block {
  void* buffer;
  int count;
  MPI_Datatype type;
};

inline void* offset(const void* base, MPI_Aint bytes) {
  return static_cast<char*>(const_cast<void*>(base)) + bytes;  // MPI takes send buffers as const void*
}

inline MPI_Aint extent_of(MPI_Datatype type) {
  MPI_Aint lower = 0;
  MPI_Aint extent = 0;
  check_mpi(PMPI_Type_get_extent(type, &lower, &extent), "MPI_Type_get_extent");
  return extent;
}

// Each holds its arguments (`args`; check_bounds reads the buffers there)
// and what the slots' addresses need.

// The same block to every out-neighbor; in-slots are consecutive blocks.
struct AllgatherBlocks {
  AllgatherArgs args;
  MPI_Aint recv_stride;
  [[nodiscard]] Block send(int) const { return {offset(args.sendbuf, 0), args.sendcount, args.sendtype}; }
  [[nodiscard]] Block recv(int slot) const {
    return {offset(args.recvbuf, slot * recv_stride), args.recvcount, args.recvtype};
  }
};

// The same block to every out-neighbor; in-slot i at displs[i] elements.
struct AllgathervBlocks {
  AllgathervArgs args;
  MPI_Aint recv_extent;
  [[nodiscard]] Block send(int) const { return {offset(args.sendbuf, 0), args.sendcount, args.sendtype}; }
  [[nodiscard]] Block recv(int slot) const {
    return {offset(args.recvbuf, args.displs[slot] * recv_extent), args.recvcounts[slot], args.recvtype};
  }
};

// Consecutive equal blocks on both sides.
struct AlltoallBlocks {
  AlltoallArgs args;
  MPI_Aint send_stride;
  MPI_Aint recv_stride;
  [[nodiscard]] Block send(int slot) const {
    return {offset(args.sendbuf, slot * send_stride), args.sendcount, args.sendtype};
  }
  [[nodiscard]] Block recv(int slot) const {
    return {offset(args.recvbuf, slot * recv_stride), args.recvcount, args.recvtype};
  }
};

// Counts and displacements (in elements of one datatype) per slot.
struct AlltoallvBlocks {
  AlltoallvArgs args;
  MPI_Aint send_extent;
  MPI_Aint recv_extent;
  [[nodiscard]] Block send(int slot) const {
    return {offset(args.sendbuf, args.sdispls[slot] * send_extent), args.sendcounts[slot], args.sendtype};
  }
  [[nodiscard]] Block recv(int slot) const {
    return {offset(args.recvbuf, args.rdispls[slot] * recv_extent), args.recvcounts[slot], args.recvtype};
  }
};

// Counts, byte displacements and a datatype per slot.
struct AlltoallwBlocks {
  AlltoallwArgs args;
  [[nodiscard]] Block send(int slot) const {
    return {offset(args.sendbuf, args.sdispls[slot]), args.sendcounts[slot], args.sendtypes[slot]};
  }
  [[nodiscard]] Block recv(int slot) const {
    return {offset(args.recvbuf, args.rdispls[slot]), args.recvcounts[slot], args.recvtypes[slot]};
  }
};

inline AllgatherBlocks blocks_of(const AllgatherArgs& a) { return {a, a.recvcount * extent_of(a.recvtype)}; }
inline AllgathervBlocks blocks_of(const AllgathervArgs& a) { return {a, extent_of(a.recvtype)}; }
inline AlltoallBlocks blocks_of(const AlltoallArgs& a) {
  return {a, a.sendcount * extent_of(a.sendtype), a.recvcount * extent_of(a.recvtype)};
}
inline AlltoallvBlocks blocks_of(const AlltoallvArgs& a) { return {a, extent_of(a.sendtype), extent_of(a.recvtype)}; }
inline AlltoallwBlocks blocks_of(const AlltoallwArgs& a) { return {a}; }

}  // namespace distopo::detail
