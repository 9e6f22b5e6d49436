#include "argument_checks.hpp"

#include <climits>

namespace distopo::detail {
namespace {

Check check_buffers(const void* sendbuf, const void* recvbuf, const char* caller, int rank) {
  if (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE) {
    return rank_error(MPI_ERR_BUFFER, caller, rank, "MPI_IN_PLACE is not allowed in neighborhood collectives");
  }
  return std::nullopt;
}

Check check_count(int count, const char* name, const char* caller, int rank) {
  if (count < 0)
    return rank_error(MPI_ERR_COUNT, caller, rank, std::string(name) + " = " + std::to_string(count) + " is negative");
  return std::nullopt;
}

Check check_type(MPI_Datatype type, const char* name, const char* caller, int rank) {
  if (type == MPI_DATATYPE_NULL)
    return rank_error(MPI_ERR_TYPE, caller, rank, std::string(name) + " is MPI_DATATYPE_NULL");
  return std::nullopt;
}

template <class Displacement>
Check check_arrays(const int counts[], const Displacement displs[], int degree, const char* counts_name,
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
    if (displs[i] < 0) {
      return rank_error(
          MPI_ERR_ARG, caller, rank,
          std::string(displs_name) + "[" + std::to_string(i) + "] = " + std::to_string(displs[i]) + " is negative");
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

Check validate(const AllgathervArgs& a, const NeighborSequence& s, int rank) {
  const char* caller = AllgathervArgs::kName;
  return first_error(
      [&] { return check_buffers(a.sendbuf, a.recvbuf, caller, rank); },
      [&] { return check_count(a.sendcount, "sendcount", caller, rank); },
      [&] { return check_arrays(a.recvcounts, a.displs, s.indegree(), "recvcounts", "displs", caller, rank); },
      [&] { return check_datatypes(a, rank); });
}

Check validate(const AlltoallvArgs& a, const NeighborSequence& s, int rank) {
  return first_error([&] { return check_per_neighbor_blocks(a, s, rank); }, [&] { return check_datatypes(a, rank); });
}

Check validate(const AlltoallwArgs& a, const NeighborSequence& s, int rank) {
  const char* caller = AlltoallwArgs::kName;
  return first_error([&] { return check_per_neighbor_blocks(a, s, rank); },
                     [&] { return check_types(a.sendtypes, s.outdegree(), "sendtypes", caller, rank); },
                     [&] { return check_types(a.recvtypes, s.indegree(), "recvtypes", caller, rank); });
}

Check check_request(const MPI_Request* request, const char* caller, int rank) {
  if (request == nullptr) return rank_error(MPI_ERR_REQUEST, caller, rank, "request is NULL");
  return std::nullopt;
}

Check check_block(const Block& block, const void* base, std::size_t bytes, bool sending, int slot, const char* caller,
                  int rank) {
  const MPI_Aint start = static_cast<const char*>(block.buffer) - static_cast<const char*>(base);
  const MPI_Aint end = start + static_cast<MPI_Aint>(block.count) * extent_of(block.type);
  if (start >= 0 && end <= static_cast<MPI_Aint>(bytes)) return std::nullopt;
  return rank_error(MPI_ERR_BUFFER, caller, rank,
                    std::string("the block for ") + (sending ? "out" : "in") + "-neighbor " + std::to_string(slot) +
                        " lies outside the " + (sending ? "send" : "receive") + " buffer of " + std::to_string(bytes) +
                        " bytes");
}

int element_count(std::size_t n, Check& error, const char* caller, const char* what) {
  if (n <= static_cast<std::size_t>(INT_MAX)) return static_cast<int>(n);
  if (!error) error = LocalError{MPI_ERR_COUNT, std::string(caller) + ": " + what + " has more than INT_MAX elements"};
  return 0;
}

int per_slot(std::size_t elements, int degree, Check& error, const char* caller, const char* what) {
  if (degree == 0) return 0;
  const auto d = static_cast<std::size_t>(degree);
  if (elements % d != 0 && !error) {
    error = LocalError{MPI_ERR_COUNT, std::string(caller) + ": " + what + " holds " + std::to_string(elements) +
                                          " elements, not a multiple of the degree " + std::to_string(degree)};
  }
  return element_count(elements / d, error, caller, what);
}

}  // namespace distopo::detail
