#include "mpich_dist_graph.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace smpi_bench {
namespace {

// MPIR_TOPO_A_TAG / MPIR_TOPO_B_TAG: in-edges and out-edges.
constexpr int kInTag = 27;
constexpr int kOutTag = 28;

template <class T>
T* allocate(std::size_t count) {
  void* memory = std::malloc(count * sizeof(T));
  if (memory == nullptr && count != 0) throw std::bad_alloc();
  return static_cast<T*>(memory);
}

void check(int code, const char* call) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("mpich_dist_graph_exchange: ") + call + " failed");
}

// MPICH's receive loop for one kind: `peers` messages, each appended to
// `ranks` (and `weighted` alongside), capacity doubling from 10.
void receive_lists(MPI_Comm comm, int tag, int peers, bool weighted, int& degree, int*& ranks, int*& weights_out) {
  int capacity = 10;
  ranks = allocate<int>(static_cast<std::size_t>(capacity));
  if (weighted) weights_out = allocate<int>(static_cast<std::size_t>(capacity));
  for (int i = 0; i < peers; ++i) {
    MPI_Status status;
    check(MPI_Probe(MPI_ANY_SOURCE, tag, comm, &status), "MPI_Probe");
    int count = 0;
    check(MPI_Get_count(&status, MPI_INT, &count), "MPI_Get_count");
    int* buffer = allocate<int>(static_cast<std::size_t>(count));
    check(MPI_Recv(buffer, count, MPI_INT, MPI_ANY_SOURCE, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    for (int j = 0; j < count / 2; ++j) {
      const int slot = degree++;
      if (slot >= capacity) {
        capacity *= 2;
        ranks = static_cast<int*>(std::realloc(ranks, static_cast<std::size_t>(capacity) * sizeof(int)));
        if (weighted) {
          weights_out = static_cast<int*>(std::realloc(weights_out, static_cast<std::size_t>(capacity) * sizeof(int)));
        }
      }
      ranks[slot] = buffer[2 * j];
      if (weighted) weights_out[slot] = buffer[2 * j + 1];
    }
    std::free(buffer);
  }
  // "remove any excess memory allocation"
  ranks = static_cast<int*>(std::realloc(ranks, static_cast<std::size_t>(degree) * sizeof(int)));
  if (weighted)
    weights_out = static_cast<int*>(std::realloc(weights_out, static_cast<std::size_t>(degree) * sizeof(int)));
}

}  // namespace

MpichLists::~MpichLists() {
  std::free(in);
  std::free(in_weights);
  std::free(out);
  std::free(out_weights);
}

void mpich_dist_graph_exchange(MPI_Comm comm, int n, const int sources[], const int degrees[], const int destinations[],
                               const int weights[], MpichLists& lists) {
  int comm_size = 0;
  check(MPI_Comm_size(comm, &comm_size), "MPI_Comm_size");
  const auto size = static_cast<std::size_t>(comm_size);

  // rin[x]: edges into rank x known here; rout[x]: edges out of rank x.
  int** rout = allocate<int*>(size);
  int** rin = allocate<int*>(size);
  int* rin_sizes = allocate<int>(size);
  int* rout_sizes = allocate<int>(size);
  int* rin_idx = allocate<int>(size);
  int* rout_idx = allocate<int>(size);
  std::memset(rout, 0, size * sizeof(int*));
  std::memset(rin, 0, size * sizeof(int*));
  std::memset(rin_sizes, 0, size * sizeof(int));
  std::memset(rout_sizes, 0, size * sizeof(int));
  std::memset(rin_idx, 0, size * sizeof(int));
  std::memset(rout_idx, 0, size * sizeof(int));

  int idx = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < degrees[i]; ++j) {
      rout_sizes[sources[i]] += 2;
      rin_sizes[destinations[idx]] += 2;
      ++idx;
    }
  }
  for (std::size_t i = 0; i < size; ++i) {
    if (rin_sizes[i]) rin[i] = allocate<int>(static_cast<std::size_t>(rin_sizes[i]));
    if (rout_sizes[i]) rout[i] = allocate<int>(static_cast<std::size_t>(rout_sizes[i]));
  }
  idx = 0;
  for (int i = 0; i < n; ++i) {
    const int s_rank = sources[i];
    for (int j = 0; j < degrees[i]; ++j) {
      const int d_rank = destinations[idx];
      const int weight = weights == MPI_UNWEIGHTED ? 0 : weights[idx];
      rout[s_rank][rout_idx[s_rank]++] = d_rank;
      rout[s_rank][rout_idx[s_rank]++] = weight;
      rin[d_rank][rin_idx[d_rank]++] = s_rank;
      rin[d_rank][rin_idx[d_rank]++] = weight;
      ++idx;
    }
  }

  int* rs = allocate<int>(2 * size);
  for (std::size_t i = 0; i < size; ++i) {
    rs[2 * i] = rin_sizes[i] ? 1 : 0;
    rs[2 * i + 1] = rout_sizes[i] ? 1 : 0;
  }
  int in_out_peers[2] = {-1, 1};
  check(MPI_Reduce_scatter_block(rs, in_out_peers, 2, MPI_INT, MPI_SUM, comm), "MPI_Reduce_scatter_block");

  auto* reqs = allocate<MPI_Request>(2 * size);
  idx = 0;
  for (int i = 0; i < comm_size; ++i) {
    if (rin_sizes[i]) check(MPI_Isend(rin[i], rin_sizes[i], MPI_INT, i, kInTag, comm, &reqs[idx++]), "MPI_Isend");
    if (rout_sizes[i]) check(MPI_Isend(rout[i], rout_sizes[i], MPI_INT, i, kOutTag, comm, &reqs[idx++]), "MPI_Isend");
  }

  const bool weighted = weights != MPI_UNWEIGHTED;
  receive_lists(comm, kInTag, in_out_peers[0], weighted, lists.indegree, lists.in, lists.in_weights);
  receive_lists(comm, kOutTag, in_out_peers[1], weighted, lists.outdegree, lists.out, lists.out_weights);
  check(MPI_Waitall(idx, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");

  // MPICH's fn_exit: free the per-peer arrays and the local scratch.
  for (std::size_t i = 0; i < size; ++i) {
    std::free(rin[i]);
    std::free(rout[i]);
  }
  std::free(reqs);
  std::free(rs);
  std::free(rout_idx);
  std::free(rin_idx);
  std::free(rout_sizes);
  std::free(rin_sizes);
  std::free(rin);
  std::free(rout);
}

}  // namespace smpi_bench
