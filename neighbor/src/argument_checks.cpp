#include "argument_checks.hpp"

#include <cstdint>
#include <limits>

#include "mpi_calls.hpp"

namespace distopo::detail {
namespace {

Check check_buffers(const void* sendbuf, const void* recvbuf, const char* caller, int rank) {
  if (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE) {
    return rank_error(MPI_ERR_BUFFER, caller, rank, "MPI_IN_PLACE is not allowed in neighborhood collectives");
  }
  return std::nullopt;
}

Check check_count(MPI_Count count, const char* name, const char* caller, int rank) {
  if (count < 0)
    return rank_error(MPI_ERR_COUNT, caller, rank, std::string(name) + " = " + std::to_string(count) + " is negative");
  return std::nullopt;
}

Check check_type(MPI_Datatype type, const char* name, const char* caller, int rank) {
  if (type == MPI_DATATYPE_NULL)
    return rank_error(MPI_ERR_TYPE, caller, rank, std::string(name) + " is MPI_DATATYPE_NULL");
  return std::nullopt;
}

// Counts must not be negative; displacements may be anything (a negative one
// reaches before the buffer argument, which the standard allows: only the
// block's address must be representable, which check_blocks verifies).
template <class Count, class Displacement>
Check check_arrays(const Count counts[], const Displacement displs[], int degree, const char* counts_name,
                   const char* displs_name, const char* caller, int rank) {
  if (degree == 0) return std::nullopt;
  if (counts == nullptr) return rank_error(MPI_ERR_ARG, caller, rank, std::string(counts_name) + " is NULL");
  if (displs == nullptr) return rank_error(MPI_ERR_ARG, caller, rank, std::string(displs_name) + " is NULL");
  for (int i = 0; i < degree; ++i) {
    if (counts[i] < 0) {
      return rank_error(
          MPI_ERR_COUNT, caller, rank,
          std::string(counts_name) + "[" + std::to_string(i) + "] = " + std::to_string(counts[i]) + " is negative");
    }
  }
  return std::nullopt;
}

Check check_types(const MPI_Datatype types[], int degree, const char* name, const char* caller, int rank) {
  if (degree == 0) return std::nullopt;
  if (types == nullptr) return rank_error(MPI_ERR_ARG, caller, rank, std::string(name) + " is NULL");
  for (int i = 0; i < degree; ++i) {
    if (types[i] == MPI_DATATYPE_NULL) {
      return rank_error(MPI_ERR_TYPE, caller, rank,
                        std::string(name) + "[" + std::to_string(i) + "] is MPI_DATATYPE_NULL");
    }
  }
  return std::nullopt;
}

// The first failing check, in order; later ones are not evaluated.
template <class... Checks>
Check first_error(Checks&&... checks) {
  Check result;
  ((result = result ? result : checks()), ...);
  return result;
}

// The operations with one send and one receive datatype check both last.
template <class Args>
Check check_datatypes(const Args& a, int rank) {
  return first_error([&] { return check_type(a.sendtype, "sendtype", Args::kName, rank); },
                     [&] { return check_type(a.recvtype, "recvtype", Args::kName, rank); });
}

// allgather and alltoall: one count and one datatype per side.
template <class Args>
Check validate_uniform(const Args& a, int rank) {
  const char* caller = Args::kName;
  return first_error([&] { return check_buffers(a.sendbuf, a.recvbuf, caller, rank); },
                     [&] { return check_count(a.sendcount, "sendcount", caller, rank); },
                     [&] { return check_count(a.recvcount, "recvcount", caller, rank); },
                     [&] { return check_datatypes(a, rank); });
}

// alltoallv and alltoallw: the buffers, then a count and a displacement per
// neighbor on each side.
template <class Args>
Check check_per_neighbor_blocks(const Args& a, const NeighborSequence& s, int rank) {
  const char* caller = Args::kName;
  return first_error(
      [&] { return check_buffers(a.sendbuf, a.recvbuf, caller, rank); },
      [&] { return check_arrays(a.sendcounts, a.sdispls, s.outdegree(), "sendcounts", "sdispls", caller, rank); },
      [&] { return check_arrays(a.recvcounts, a.rdispls, s.indegree(), "recvcounts", "rdispls", caller, rank); });
}

}  // namespace

Check validate(const AllgatherArgs& a, const NeighborSequence&, int rank) { return validate_uniform(a, rank); }

Check validate(const AlltoallArgs& a, const NeighborSequence&, int rank) { return validate_uniform(a, rank); }

template <class C, class D>
Check validate(const BasicAllgathervArgs<C, D>& a, const NeighborSequence& s, int rank) {
  const char* caller = BasicAllgathervArgs<C, D>::kName;
  return first_error(
      [&] { return check_buffers(a.sendbuf, a.recvbuf, caller, rank); },
      [&] { return check_count(a.sendcount, "sendcount", caller, rank); },
      [&] { return check_arrays(a.recvcounts, a.displs, s.indegree(), "recvcounts", "displs", caller, rank); },
      [&] { return check_datatypes(a, rank); });
}
template Check validate(const AllgathervArgs&, const NeighborSequence&, int);
template Check validate(const LargeAllgathervArgs&, const NeighborSequence&, int);

template <class C, class D>
Check validate(const BasicAlltoallvArgs<C, D>& a, const NeighborSequence& s, int rank) {
  return first_error([&] { return check_per_neighbor_blocks(a, s, rank); }, [&] { return check_datatypes(a, rank); });
}
template Check validate(const AlltoallvArgs&, const NeighborSequence&, int);
template Check validate(const LargeAlltoallvArgs&, const NeighborSequence&, int);

template <class C>
Check validate(const BasicAlltoallwArgs<C>& a, const NeighborSequence& s, int rank) {
  const char* caller = BasicAlltoallwArgs<C>::kName;
  return first_error([&] { return check_per_neighbor_blocks(a, s, rank); },
                     [&] { return check_types(a.sendtypes, s.outdegree(), "sendtypes", caller, rank); },
                     [&] { return check_types(a.recvtypes, s.indegree(), "recvtypes", caller, rank); });
}
template Check validate(const AlltoallwArgs&, const NeighborSequence&, int);
template Check validate(const LargeAlltoallwArgs&, const NeighborSequence&, int);

Check check_request(const MPI_Request* request, const char* caller, int rank) {
  if (request == nullptr) return rank_error(MPI_ERR_REQUEST, caller, rank, "request is NULL");
  return std::nullopt;
}

Check check_block(const Block& block, int failure, const void* base, const std::size_t* bytes, bool sending, int slot,
                  const char* caller, int rank, TypeSizes& sizes) {
  // Named only on failure: this runs for every slot of every call.
  const auto what = [&] {
    return std::string("the block for ") + (sending ? "out" : "in") + "-neighbor " + std::to_string(slot);
  };
  if (failure != MPI_SUCCESS) {
    return rank_error(failure, caller, rank, what() + " lies at an address an MPI_Aint cannot hold");
  }
  // A call's blocks mostly share one datatype: its extent and size are asked
  // once per call (not across calls: a freed handle may come back as another
  // type).
  if (block.type != sizes.type) {
    MPI_Aint lower = 0;
    check_mpi(PMPI_Type_get_extent(block.type, &lower, &sizes.extent), "MPI_Type_get_extent");
    check_mpi(mpi::type_size(block.type, &sizes.size), "MPI_Type_size");
    sizes.type = block.type;
  }
  const MPI_Aint extent = sizes.extent;
  const MPI_Count size = sizes.size;
  MPI_Aint span = 0;
  MPI_Aint data = 0;
  if (__builtin_mul_overflow(block.count, extent < 0 ? -extent : extent, &span) ||
      __builtin_mul_overflow(block.count, size, &data)) {
    return rank_error(
        MPI_ERR_COUNT, caller, rank,
        what() + " (" + std::to_string(block.count) + " elements) spans more bytes than an MPI_Aint holds");
  }
  if (bytes == nullptr) return std::nullopt;
  const MPI_Aint start =
      static_cast<MPI_Aint>(reinterpret_cast<std::intptr_t>(block.buffer) - reinterpret_cast<std::intptr_t>(base));
  if (start >= 0 && start <= static_cast<MPI_Aint>(*bytes) && span <= static_cast<MPI_Aint>(*bytes) - start) {
    return std::nullopt;
  }
  return rank_error(MPI_ERR_BUFFER, caller, rank,
                    what() + " lies outside the " + (sending ? "send" : "receive") + " buffer of " +
                        std::to_string(*bytes) + " bytes");
}

MPI_Count element_count(std::size_t n, Check& error, const char* caller, const char* what) {
  if (n <= static_cast<std::size_t>(std::numeric_limits<MPI_Count>::max())) return static_cast<MPI_Count>(n);
  if (!error)
    error = LocalError{MPI_ERR_COUNT, std::string(caller) + ": " + what + " has more elements than an MPI_Count holds"};
  return 0;
}

MPI_Count per_slot(std::size_t elements, int degree, Check& error, const char* caller, const char* what) {
  if (degree == 0) return 0;
  const auto d = static_cast<std::size_t>(degree);
  if (elements % d != 0 && !error) {
    error = LocalError{MPI_ERR_COUNT, std::string(caller) + ": " + what + " holds " + std::to_string(elements) +
                                          " elements, not a multiple of the degree " + std::to_string(degree)};
  }
  return element_count(elements / d, error, caller, what);
}

}  // namespace distopo::detail
