#pragma once
// One call's arguments as the standard gives them, and where each slot's
// block lives. send(j) is the block for the j-th out-neighbor, recv(i) the
// place for the i-th in-neighbor's. Built from validated arguments only
// (extents of valid datatypes).
//
// Counts are MPI_Count inside (every block is posted with a large-count call
// where the MPI library has them); the arrays keep the caller's types: int
// counts and displacements in the standard forms, MPI_Count counts and
// MPI_Aint displacements in the large-count ones (MPI_Neighbor_*_c).
//
// Addresses are the standard's: buffer + displacement (x extent), where a
// displacement may be negative and the buffer MPI_BOTTOM, so they are computed
// as integers, and checked: a product or sum that MPI_Aint cannot hold is
// noted in `addresses` with the class it is reported as (MPI_ERR_COUNT when
// counts make it, MPI_ERR_ARG when displacements do). check_blocks
// (argument_checks.hpp) computes every block once before anything is posted;
// posting computes them again with the same arithmetic, which then cannot
// fail.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <variant>

#include "distopo/core/error.hpp"

namespace distopo::detail {

// The standard's argument lists, one per operation; kName names the
// operation in error messages.

// allgather and alltoall take the same arguments: one count and one datatype
// per side.
struct UniformArgs {
  const void* sendbuf;
  MPI_Count sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  MPI_Count recvcount;
  MPI_Datatype recvtype;
};
struct AllgatherArgs : UniformArgs {
  static constexpr const char* kName = "neighbor_allgather";
};
struct AlltoallArgs : UniformArgs {
  static constexpr const char* kName = "neighbor_alltoall";
};
template <class Count, class Displacement>
struct BasicAllgathervArgs {
  static constexpr const char* kName = "neighbor_allgatherv";
  const void* sendbuf;
  MPI_Count sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  const Count* recvcounts;
  const Displacement* displs;
  MPI_Datatype recvtype;
};
template <class Count, class Displacement>
struct BasicAlltoallvArgs {
  static constexpr const char* kName = "neighbor_alltoallv";
  const void* sendbuf;
  const Count* sendcounts;
  const Displacement* sdispls;
  MPI_Datatype sendtype;
  void* recvbuf;
  const Count* recvcounts;
  const Displacement* rdispls;
  MPI_Datatype recvtype;
};
template <class Count>
struct BasicAlltoallwArgs {
  static constexpr const char* kName = "neighbor_alltoallw";
  const void* sendbuf;
  const Count* sendcounts;
  const MPI_Aint* sdispls;
  const MPI_Datatype* sendtypes;
  void* recvbuf;
  const Count* recvcounts;
  const MPI_Aint* rdispls;
  const MPI_Datatype* recvtypes;
};
using AllgathervArgs = BasicAllgathervArgs<int, int>;
using AlltoallvArgs = BasicAlltoallvArgs<int, int>;
using AlltoallwArgs = BasicAlltoallwArgs<int>;
using LargeAllgathervArgs = BasicAllgathervArgs<MPI_Count, MPI_Aint>;
using LargeAlltoallvArgs = BasicAlltoallvArgs<MPI_Count, MPI_Aint>;
using LargeAlltoallwArgs = BasicAlltoallwArgs<MPI_Count>;
using NeighborArgs = std::variant<AllgatherArgs, AllgathervArgs, LargeAllgathervArgs, AlltoallArgs, AlltoallvArgs,
                                  LargeAlltoallvArgs, AlltoallwArgs, LargeAlltoallwArgs>;

// What a typed caller adds to the standard's arguments: the sizes of its
// buffers (every slot's block must lie inside them), and an error it found
// while translating ranges into counts, which takes the same no-hang path as
// the engine's own checks.
struct TypedBounds {
  std::size_t send_bytes = 0;
  std::size_t recv_bytes = 0;
  std::optional<LocalError> error;
};

struct Block {
  void* buffer;
  MPI_Count count;
  MPI_Datatype type;
};

inline MPI_Aint extent_of(MPI_Datatype type) {
  MPI_Aint lower = 0;
  MPI_Aint extent = 0;
  check_mpi(PMPI_Type_get_extent(type, &lower, &extent), "MPI_Type_get_extent");
  return extent;
}

class Addresses {
 public:
  [[nodiscard]] MPI_Aint product(MPI_Aint a, MPI_Aint b, int error_class) const noexcept {
    MPI_Aint result = 0;
    if (__builtin_mul_overflow(a, b, &result)) note(error_class);
    return result;
  }
  // `base` + `bytes`, both as MPI_Aint (as MPI_Get_address gives addresses).
  [[nodiscard]] void* displaced(const void* base, MPI_Aint bytes, int error_class) const noexcept {
    MPI_Aint address = 0;
    if (__builtin_add_overflow(static_cast<MPI_Aint>(reinterpret_cast<std::intptr_t>(base)), bytes, &address)) {
      note(error_class);
    }
    return reinterpret_cast<void*>(static_cast<std::intptr_t>(address));
  }
  // The class of the first overflow since the last call, or MPI_SUCCESS.
  [[nodiscard]] int take_failure() const noexcept {
    const int failure = failure_;
    failure_ = MPI_SUCCESS;
    return failure;
  }

 private:
  void note(int error_class) const noexcept {
    if (failure_ == MPI_SUCCESS) failure_ = error_class;
  }
  mutable int failure_ = MPI_SUCCESS;
};

// Each holds its arguments (`args`; check_blocks reads the buffers there) and
// what the slots' addresses need.

// The same block to every out-neighbor; in-slots are consecutive blocks.
struct AllgatherBlocks {
  AllgatherArgs args;
  MPI_Aint recv_extent;
  Addresses addresses;
  [[nodiscard]] Block send(int) const { return {const_cast<void*>(args.sendbuf), args.sendcount, args.sendtype}; }
  [[nodiscard]] Block recv(int slot) const {
    const MPI_Aint stride = addresses.product(args.recvcount, recv_extent, MPI_ERR_COUNT);
    return {addresses.displaced(args.recvbuf, addresses.product(slot, stride, MPI_ERR_COUNT), MPI_ERR_COUNT),
            args.recvcount, args.recvtype};
  }
};

// The same block to every out-neighbor; in-slot i at displs[i] elements.
template <class Count, class Displacement>
struct AllgathervBlocks {
  BasicAllgathervArgs<Count, Displacement> args;
  MPI_Aint recv_extent;
  Addresses addresses;
  [[nodiscard]] Block send(int) const { return {const_cast<void*>(args.sendbuf), args.sendcount, args.sendtype}; }
  [[nodiscard]] Block recv(int slot) const {
    const MPI_Aint bytes = addresses.product(args.displs[slot], recv_extent, MPI_ERR_ARG);
    return {addresses.displaced(args.recvbuf, bytes, MPI_ERR_ARG), args.recvcounts[slot], args.recvtype};
  }
};

// Consecutive equal blocks on both sides.
struct AlltoallBlocks {
  AlltoallArgs args;
  MPI_Aint send_extent;
  MPI_Aint recv_extent;
  Addresses addresses;
  [[nodiscard]] Block send(int slot) const {
    const MPI_Aint stride = addresses.product(args.sendcount, send_extent, MPI_ERR_COUNT);
    return {addresses.displaced(args.sendbuf, addresses.product(slot, stride, MPI_ERR_COUNT), MPI_ERR_COUNT),
            args.sendcount, args.sendtype};
  }
  [[nodiscard]] Block recv(int slot) const {
    const MPI_Aint stride = addresses.product(args.recvcount, recv_extent, MPI_ERR_COUNT);
    return {addresses.displaced(args.recvbuf, addresses.product(slot, stride, MPI_ERR_COUNT), MPI_ERR_COUNT),
            args.recvcount, args.recvtype};
  }
};

// Counts and displacements (in elements of one datatype) per slot.
template <class Count, class Displacement>
struct AlltoallvBlocks {
  BasicAlltoallvArgs<Count, Displacement> args;
  MPI_Aint send_extent;
  MPI_Aint recv_extent;
  Addresses addresses;
  [[nodiscard]] Block send(int slot) const {
    const MPI_Aint bytes = addresses.product(args.sdispls[slot], send_extent, MPI_ERR_ARG);
    return {addresses.displaced(args.sendbuf, bytes, MPI_ERR_ARG), args.sendcounts[slot], args.sendtype};
  }
  [[nodiscard]] Block recv(int slot) const {
    const MPI_Aint bytes = addresses.product(args.rdispls[slot], recv_extent, MPI_ERR_ARG);
    return {addresses.displaced(args.recvbuf, bytes, MPI_ERR_ARG), args.recvcounts[slot], args.recvtype};
  }
};

// Counts, byte displacements and a datatype per slot.
template <class Count>
struct AlltoallwBlocks {
  BasicAlltoallwArgs<Count> args;
  Addresses addresses;
  [[nodiscard]] Block send(int slot) const {
    return {addresses.displaced(args.sendbuf, args.sdispls[slot], MPI_ERR_ARG), args.sendcounts[slot],
            args.sendtypes[slot]};
  }
  [[nodiscard]] Block recv(int slot) const {
    return {addresses.displaced(args.recvbuf, args.rdispls[slot], MPI_ERR_ARG), args.recvcounts[slot],
            args.recvtypes[slot]};
  }
};

inline AllgatherBlocks blocks_of(const AllgatherArgs& a) { return {a, extent_of(a.recvtype), {}}; }
template <class C, class D>
AllgathervBlocks<C, D> blocks_of(const BasicAllgathervArgs<C, D>& a) {
  return {a, extent_of(a.recvtype), {}};
}
inline AlltoallBlocks blocks_of(const AlltoallArgs& a) { return {a, extent_of(a.sendtype), extent_of(a.recvtype), {}}; }
template <class C, class D>
AlltoallvBlocks<C, D> blocks_of(const BasicAlltoallvArgs<C, D>& a) {
  return {a, extent_of(a.sendtype), extent_of(a.recvtype), {}};
}
template <class C>
AlltoallwBlocks<C> blocks_of(const BasicAlltoallwArgs<C>& a) {
  return {a, {}};
}

}  // namespace distopo::detail
