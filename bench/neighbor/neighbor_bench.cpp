// mpiexec -n P neighbor_bench: latency/bandwidth of distopo's neighborhood
// collectives, under each of its algorithms, against MPICH's own
// (PMPI_Neighbor_*) on the same communicator: 2-D and 3-D periodic stencils
// (Cartesian), a 26-neighbor 3-D stencil and a random sparse graph
// (distributed graphs), 8 B .. 1 MiB per block, and dense neighborhoods
// (thousands of multi-edges per pair of ranks: `multigraph` and `star`).
// Machine nodes are emulated with --ranks-per-node (distopo_ranks_per_node on
// each algorithm's copy of the communicator). The implementations are timed
// in turn, --rounds times over, so ratios come from one run. One JSON line
// per (impl, algorithm, ranks per node, form, op, topology, degree, bytes):
// the median over rounds of the median over repetitions of the
// max-over-ranks time per call.
// Run: mpiexec -n P neighbor_bench [--topology stencil3d,random_sparse] [--degree 3] [--max-bytes N] [--reps 11]
//      mpiexec -n P neighbor_bench --algorithm direct,aggregated --ranks-per-node 2,4 --form blocking,persistent
//      mpiexec -n P neighbor_bench --topology multigraph,star --dense-degree 100,20000 --bytes 8,4096
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <cstdio>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "distopo/cart.hpp"
#include "distopo/distgraph.hpp"
#include "distopo/neighbor.hpp"
#include "distopo/neighbor/algorithm.hpp"

namespace {

double median_max_time(MPI_Comm comm, int reps, int inner, const std::function<void()>& call) {
  std::vector<double> times;
  call();  // warm-up (also creates distopo's private channel)
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(comm);
    const double start = MPI_Wtime();
    for (int i = 0; i < inner; ++i) call();
    double t = (MPI_Wtime() - start) / inner;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
    times.push_back(t);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

distopo::Comm adjacent(const std::vector<int>& sources, const std::vector<int>& destinations) {
  distopo::DistGraphOptions options;
  options.weighted = false;
  return distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, sources, {}, destinations, {}, options);
}

distopo::Comm random_graph(int p, unsigned seed, int degree) {
  std::mt19937 rng(seed);
  std::vector<std::vector<int>> out(static_cast<std::size_t>(p)), in(static_cast<std::size_t>(p));
  for (int a = 0; a < p; ++a) {
    for (int k = 0; k < degree; ++k) {
      const int b = std::uniform_int_distribution<int>(0, p - 1)(rng);
      auto& list = out[static_cast<std::size_t>(a)];
      if (b == a || std::find(list.begin(), list.end(), b) != list.end()) continue;
      list.push_back(b);
      in[static_cast<std::size_t>(b)].push_back(a);
    }
  }
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  return adjacent(in[static_cast<std::size_t>(me)], out[static_cast<std::size_t>(me)]);
}

// The 26 neighbors of a periodic 3-D grid (dims_create(P, 3)), as a
// distributed graph: a 27-point stencil's halo exchange. Repeated neighbors
// (dimensions of size 1 or 2) stay repeated.
distopo::Comm stencil27(int p, int me) {
  const std::vector<int> dims = distopo::dims_create(p, 3);
  const int x = me / (dims[1] * dims[2]), y = (me / dims[2]) % dims[1], z = me % dims[2];
  std::vector<int> peers;
  for (int dx = -1; dx <= 1; ++dx) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dz = -1; dz <= 1; ++dz) {
        if (dx == 0 && dy == 0 && dz == 0) continue;
        const int nx = (x + dx + dims[0]) % dims[0], ny = (y + dy + dims[1]) % dims[1],
                  nz = (z + dz + dims[2]) % dims[2];
        peers.push_back((nx * dims[1] + ny) * dims[2] + nz);
      }
    }
  }
  // In-edges come from the opposite offsets, listed in the same order.
  std::vector<int> sources(peers.rbegin(), peers.rend());
  return adjacent(sources, peers);
}

// Every rank has `degree` out-edges and `degree` in-edges, the k-th to rank
// me+1+(k mod (P-1)) and from me-1-(k mod (P-1)): round-robin over the other
// ranks, so each pair of ranks shares about degree/(P-1) multi-edges, listed
// interleaved with the other peers' (P >= 2).
distopo::Comm multigraph(int p, int me, int degree) {
  std::vector<int> sources, destinations;
  for (int k = 0; k < degree; ++k) {
    const int step = 1 + k % (p - 1);
    destinations.push_back((me + step) % p);
    sources.push_back((me - step + p) % p);
  }
  return adjacent(sources, destinations);
}

// Rank 0 is the hub: `degree` edges to and `degree` edges from the others,
// round-robin (the k-th with rank 1 + k mod (P-1)); each leaf has its share of
// them, both ways (P >= 2).
distopo::Comm star(int p, int me, int degree) {
  std::vector<int> peers;
  for (int k = 0; k < degree; ++k) {
    const int leaf = 1 + k % (p - 1);
    if (me == 0)
      peers.push_back(leaf);
    else if (me == leaf)
      peers.push_back(0);
  }
  return adjacent(peers, peers);
}

// The buffers, counts, displacements and types of one block size on one
// communicator, shared by distopo's and MPICH's calls. Displacements are
// ints (the standard's), so degree x bytes must stay below 2^31.
struct Buffers {
  std::size_t bytes;
  std::vector<char> send, recv;
  std::vector<int> scounts, sdispls, rcounts, rdispls;
  std::vector<MPI_Aint> sdispls_bytes, rdispls_bytes;
  std::vector<MPI_Datatype> stypes, rtypes;

  Buffers(std::size_t block, distopo::NeighborDegrees degrees)
      : bytes(block),
        send(block * static_cast<std::size_t>(std::max(degrees.outdegree, 1)), 1),
        recv(block * static_cast<std::size_t>(std::max(degrees.indegree, 1)), 0),
        scounts(static_cast<std::size_t>(degrees.outdegree), static_cast<int>(block)),
        sdispls(scounts.size()),
        rcounts(static_cast<std::size_t>(degrees.indegree), static_cast<int>(block)),
        rdispls(rcounts.size()),
        sdispls_bytes(scounts.size()),
        rdispls_bytes(rcounts.size()),
        stypes(scounts.size(), MPI_BYTE),
        rtypes(rcounts.size(), MPI_BYTE) {
    for (std::size_t i = 0; i < sdispls.size(); ++i) sdispls_bytes[i] = sdispls[i] = static_cast<int>(i * block);
    for (std::size_t i = 0; i < rdispls.size(); ++i) rdispls_bytes[i] = rdispls[i] = static_cast<int>(i * block);
  }
  [[nodiscard]] std::span<const char> s() const { return {send.data(), scounts.size() * bytes}; }
  [[nodiscard]] std::span<char> r() { return {recv.data(), rcounts.size() * bytes}; }
};

void wait_for(MPI_Request request) { PMPI_Wait(&request, MPI_STATUS_IGNORE); }

// A persistent request started and waited for by each call.
template <class Request>
std::function<void()> persistent_call(std::shared_ptr<Request> request) {
  return [request] {
    request->start();
    request->wait();
  };
}

// distopo's call of `op` in `form`: a non-blocking one is started, then
// waited for; a persistent one initialized here, started and waited for by
// each call.
std::function<void()> distopo_call(const std::string& op, const std::string& form, MPI_Comm comm, Buffers& b) {
  using std::span;
  const bool nonblocking = form == "nonblocking";
  const bool persistent = form == "persistent";
  const auto keep = [](distopo::PersistentRequest r) {
    return persistent_call(std::make_shared<distopo::PersistentRequest>(std::move(r)));
  };
  const span<const char> one(b.send.data(), b.bytes);
  if (op == "allgather") {
    if (persistent) return keep(distopo::neighbor_allgather_init(comm, one, b.r()));
    if (nonblocking) return [=, &b] { wait_for(distopo::ineighbor_allgather(comm, one, b.r())); };
    return [=, &b] { distopo::neighbor_allgather(comm, one, b.r()); };
  }
  if (op == "allgatherv") {
    const span<const int> counts(b.rcounts), displs(b.rdispls);
    if (persistent) return keep(distopo::neighbor_allgatherv_init(comm, one, b.r(), counts, displs));
    if (nonblocking) return [=, &b] { wait_for(distopo::ineighbor_allgatherv(comm, one, b.r(), counts, displs)); };
    return [=, &b] { distopo::neighbor_allgatherv(comm, one, b.r(), counts, displs); };
  }
  if (op == "alltoall") {
    if (persistent) return keep(distopo::neighbor_alltoall_init(comm, b.s(), b.r()));
    if (nonblocking) return [=, &b] { wait_for(distopo::ineighbor_alltoall(comm, b.s(), b.r())); };
    return [=, &b] { distopo::neighbor_alltoall(comm, b.s(), b.r()); };
  }
  if (op == "alltoallv") {
    const span<const int> sc(b.scounts), sd(b.sdispls), rc(b.rcounts), rd(b.rdispls);
    if (persistent) return keep(distopo::neighbor_alltoallv_init(comm, b.s(), sc, sd, b.r(), rc, rd));
    if (nonblocking) return [=, &b] { wait_for(distopo::ineighbor_alltoallv(comm, b.s(), sc, sd, b.r(), rc, rd)); };
    return [=, &b] { distopo::neighbor_alltoallv(comm, b.s(), sc, sd, b.r(), rc, rd); };
  }
  const span<const int> sc(b.scounts), rc(b.rcounts);
  const span<const MPI_Aint> sd(b.sdispls_bytes), rd(b.rdispls_bytes);
  const span<const MPI_Datatype> st(b.stypes), rt(b.rtypes);
  if (persistent) return keep(distopo::neighbor_alltoallw_init(comm, b.s(), sc, sd, st, b.r(), rc, rd, rt));
  if (nonblocking) {
    return [=, &b] { wait_for(distopo::ineighbor_alltoallw(comm, b.s(), sc, sd, st, b.r(), rc, rd, rt)); };
  }
  return [=, &b] { distopo::neighbor_alltoallw(comm, b.s(), sc, sd, st, b.r(), rc, rd, rt); };
}

// An MPI persistent request behind a start-and-wait call, freed with it.
struct MpichPersistent {
  MPI_Request request = MPI_REQUEST_NULL;
  void start() { PMPI_Start(&request); }
  void wait() { PMPI_Wait(&request, MPI_STATUS_IGNORE); }
  ~MpichPersistent() {
    if (request != MPI_REQUEST_NULL) PMPI_Request_free(&request);
  }
};

// MPICH's own call of `op`, the same way.
std::function<void()> mpich_call(const std::string& op, const std::string& form, MPI_Comm comm, Buffers& b) {
  const int n = static_cast<int>(b.bytes);
  char* s = b.send.data();
  char* r = b.recv.data();
  if (form == "persistent") {
    auto q = std::make_shared<MpichPersistent>();
    if (op == "allgather")
      PMPI_Neighbor_allgather_init(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, MPI_INFO_NULL, &q->request);
    if (op == "allgatherv") {
      PMPI_Neighbor_allgatherv_init(s, n, MPI_BYTE, r, b.rcounts.data(), b.rdispls.data(), MPI_BYTE, comm,
                                    MPI_INFO_NULL, &q->request);
    }
    if (op == "alltoall") PMPI_Neighbor_alltoall_init(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, MPI_INFO_NULL, &q->request);
    if (op == "alltoallv") {
      PMPI_Neighbor_alltoallv_init(s, b.scounts.data(), b.sdispls.data(), MPI_BYTE, r, b.rcounts.data(),
                                   b.rdispls.data(), MPI_BYTE, comm, MPI_INFO_NULL, &q->request);
    }
    if (op == "alltoallw") {
      PMPI_Neighbor_alltoallw_init(s, b.scounts.data(), b.sdispls_bytes.data(), b.stypes.data(), r, b.rcounts.data(),
                                   b.rdispls_bytes.data(), b.rtypes.data(), comm, MPI_INFO_NULL, &q->request);
    }
    return persistent_call(q);
  }
  const bool nonblocking = form == "nonblocking";
  if (op == "allgather") {
    if (nonblocking) {
      return [=] {
        MPI_Request q;
        PMPI_Ineighbor_allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, &q);
        wait_for(q);
      };
    }
    return [=] { PMPI_Neighbor_allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, comm); };
  }
  if (op == "allgatherv") {
    if (nonblocking) {
      return [=, &b] {
        MPI_Request q;
        PMPI_Ineighbor_allgatherv(s, n, MPI_BYTE, r, b.rcounts.data(), b.rdispls.data(), MPI_BYTE, comm, &q);
        wait_for(q);
      };
    }
    return [=, &b] { PMPI_Neighbor_allgatherv(s, n, MPI_BYTE, r, b.rcounts.data(), b.rdispls.data(), MPI_BYTE, comm); };
  }
  if (op == "alltoall") {
    if (nonblocking) {
      return [=] {
        MPI_Request q;
        PMPI_Ineighbor_alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, &q);
        wait_for(q);
      };
    }
    return [=] { PMPI_Neighbor_alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, comm); };
  }
  if (op == "alltoallv") {
    if (nonblocking) {
      return [=, &b] {
        MPI_Request q;
        PMPI_Ineighbor_alltoallv(s, b.scounts.data(), b.sdispls.data(), MPI_BYTE, r, b.rcounts.data(), b.rdispls.data(),
                                 MPI_BYTE, comm, &q);
        wait_for(q);
      };
    }
    return [=, &b] {
      PMPI_Neighbor_alltoallv(s, b.scounts.data(), b.sdispls.data(), MPI_BYTE, r, b.rcounts.data(), b.rdispls.data(),
                              MPI_BYTE, comm);
    };
  }
  if (nonblocking) {
    return [=, &b] {
      MPI_Request q;
      PMPI_Ineighbor_alltoallw(s, b.scounts.data(), b.sdispls_bytes.data(), b.stypes.data(), r, b.rcounts.data(),
                               b.rdispls_bytes.data(), b.rtypes.data(), comm, &q);
      wait_for(q);
    };
  }
  return [=, &b] {
    PMPI_Neighbor_alltoallw(s, b.scounts.data(), b.sdispls_bytes.data(), b.stypes.data(), r, b.rcounts.data(),
                            b.rdispls_bytes.data(), b.rtypes.data(), comm);
  };
}

// Calls per timed repetition: 50 for small blocks as before, fewer as a call
// moves more data or more messages (at most ~16 MiB and ~2000 blocks per
// repetition through the busiest rank, at least one call).
int calls_per_repetition(std::size_t bytes, int busiest_degree) {
  const std::size_t by_size = bytes <= 4096 ? 50 : (bytes <= 65536 ? 10 : 2);
  const auto degree = static_cast<std::size_t>(std::max(busiest_degree, 1));
  const std::size_t by_volume = (std::size_t{16} << 20) / (bytes * degree);
  const std::size_t by_blocks = 2000 / degree;
  return static_cast<int>(std::clamp<std::size_t>(std::min(by_volume, by_blocks), 1, by_size));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  CLI::App app{"distopo vs MPICH neighborhood collectives"};
  std::size_t max_bytes = 1 << 20;
  std::vector<std::size_t> block_sizes;
  int reps = 11;
  const std::vector<std::string> op_names = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};
  std::vector<std::string> ops = {"alltoall", "alltoallv", "allgather"};
  const std::vector<std::string> form_names = {"blocking", "nonblocking", "persistent"};
  std::vector<std::string> forms = {"blocking"};
  const std::vector<std::string> topology_names = {"stencil2d",     "stencil3d",  "stencil27",
                                                   "random_sparse", "multigraph", "star"};
  const std::vector<std::string> algorithm_names = {"direct", "aggregated", "auto", "mpich"};
  std::vector<std::string> algorithms = {"auto", "mpich"};
  std::vector<int> ranks_per_node = {0};
  int rounds = 1;
  std::vector<std::string> selected = {"stencil2d", "stencil3d", "random_sparse"};
  // Out-edges each rank draws for random_sparse (self-loops and repeats dropped).
  int degree = 3;
  std::vector<int> dense_degrees = {100, 1000, 10000, 20000};
  app.add_option("--max-bytes", max_bytes, "largest block size in bytes (from 8, times 8, then this size)");
  app.add_option("--bytes", block_sizes, "block sizes in bytes (instead of the --max-bytes range)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--reps", reps, "repetitions (median taken)")->check(CLI::PositiveNumber);
  app.add_option("--op", ops, "operations (default: alltoall,alltoallv,allgather)")
      ->delimiter(',')
      ->check(CLI::IsMember(op_names));
  app.add_option("--algorithm", algorithms,
                 "distopo's algorithms (direct, aggregated, auto) and/or mpich (default: auto,mpich)")
      ->delimiter(',')
      ->check(CLI::IsMember(algorithm_names));
  app.add_option("--ranks-per-node", ranks_per_node, "emulated machine nodes of k ranks (0: MPI's nodes)")
      ->delimiter(',')
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--rounds", rounds, "times every implementation is timed in turn (median taken)")
      ->check(CLI::PositiveNumber);
  app.add_option("--form", forms, "blocking, nonblocking (started, then waited for), persistent (started, waited)")
      ->delimiter(',')
      ->check(CLI::IsMember(form_names));
  app.add_option("--topology", selected, "topologies (default: stencil2d,stencil3d,random_sparse)")
      ->delimiter(',')
      ->check(CLI::IsMember(topology_names));
  app.add_option("--degree", degree, "out-edges drawn per rank for random_sparse")->check(CLI::Range(0, 1 << 20));
  app.add_option("--dense-degree", dense_degrees, "edges of a multigraph rank or of the star's hub")
      ->delimiter(',')
      ->check(CLI::Range(1, 1 << 24));
  int p = 0;
  int me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help or the error once, from rank 0; every rank exits alike.
    const int rc = me == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 1);
    MPI_Finalize();
    return rc;
  }
  if (block_sizes.empty()) {
    // 8 B, x8 steps, and max_bytes itself (1 MiB by default).
    for (std::size_t bytes = 8; bytes <= max_bytes;
         bytes = bytes < max_bytes ? std::min(bytes * 8, max_bytes) : bytes + 1) {
      block_sizes.push_back(bytes);
    }
  }
  auto wanted = [&](const std::string& name) {
    return std::find(selected.begin(), selected.end(), name) != selected.end();
  };

  struct Topology {
    std::string name;
    int degree;  // -1: not a parameter of the topology
    distopo::Comm comm;
  };
  std::vector<Topology> topologies;
  if (wanted("stencil2d")) {
    topologies.push_back(
        {"stencil2d", -1,
         distopo::cart_create(MPI_COMM_WORLD, distopo::dims_create(p, 2), {distopo::periodic, distopo::periodic})});
  }
  if (wanted("stencil3d")) {
    topologies.push_back({"stencil3d", -1,
                          distopo::cart_create(MPI_COMM_WORLD, distopo::dims_create(p, 3),
                                               {distopo::periodic, distopo::periodic, distopo::periodic})});
  }
  if (wanted("stencil27")) topologies.push_back({"stencil27", -1, stencil27(p, me)});
  if (wanted("random_sparse")) topologies.push_back({"random_sparse", degree, random_graph(p, 1234, degree)});
  for (const char* dense : {"multigraph", "star"}) {
    if (!wanted(dense) || p < 2) continue;
    for (int d : dense_degrees) {
      const bool is_star = std::string(dense) == "star";
      topologies.push_back({dense, d, is_star ? star(p, me, d) : multigraph(p, me, d)});
    }
  }

  for (auto& topology : topologies) {
    for (int k : ranks_per_node) {
      // Each algorithm on its own copy of the communicator, with its settings.
      struct Impl {
        std::string impl, algorithm;
        distopo::Comm comm;
      };
      std::vector<Impl> impls;
      for (const auto& algorithm : algorithms) {
        MPI_Comm copy = MPI_COMM_NULL;
        MPI_Comm_dup(topology.comm, &copy);
        if (algorithm != "mpich") {
          MPI_Info info;
          MPI_Info_create(&info);
          MPI_Info_set(info, "distopo_neighbor_algorithm", algorithm.c_str());
          if (k > 0) MPI_Info_set(info, "distopo_ranks_per_node", std::to_string(k).c_str());
          distopo::set_neighbor_info(copy, info);
          MPI_Info_free(&info);
        }
        impls.push_back({algorithm == "mpich" ? "mpich" : "distopo", algorithm, distopo::Comm::adopt(copy)});
      }
      MPI_Comm comm = topology.comm;
      const distopo::NeighborDegrees degrees = distopo::neighbor_degrees(comm);
      // Every rank times the same number of calls.
      int busiest = std::max(degrees.indegree, degrees.outdegree);
      MPI_Allreduce(MPI_IN_PLACE, &busiest, 1, MPI_INT, MPI_MAX, comm);
      for (std::size_t bytes : block_sizes) {
        if (bytes * static_cast<std::size_t>(busiest) > static_cast<std::size_t>(INT_MAX)) {
          if (me == 0)
            std::fprintf(stderr, "skipped %s, %zu bytes: int displacements overflow\n", topology.name.c_str(), bytes);
          continue;
        }
        Buffers buffers(bytes, degrees);
        const int inner = calls_per_repetition(bytes, busiest);
        for (const auto& form : forms) {
          for (const auto& op : ops) {
            std::vector<std::function<void()>> calls;
            for (auto& impl : impls) {
              calls.push_back(impl.impl == "mpich" ? mpich_call(op, form, impl.comm, buffers)
                                                   : distopo_call(op, form, impl.comm, buffers));
            }
            std::vector<std::vector<double>> times(impls.size());
            for (int round = 0; round < rounds; ++round) {
              for (std::size_t i = 0; i < impls.size(); ++i) {
                times[i].push_back(median_max_time(impls[i].comm, reps, inner, calls[i]));
              }
            }
            for (std::size_t i = 0; i < impls.size() && me == 0; ++i) {
              std::sort(times[i].begin(), times[i].end());
              nlohmann::json line = {{"impl", impls[i].impl},
                                     {"op", op},
                                     {"topology", topology.name},
                                     {"P", p},
                                     {"bytes", bytes},
                                     {"median_time_s", times[i][times[i].size() / 2]}};
              if (impls[i].impl == "distopo") {
                const distopo::NeighborAlgorithmChoice choice = distopo::neighbor_algorithm(impls[i].comm);
                line["algorithm"] = impls[i].algorithm;
                line["chosen"] = distopo::to_string(choice.algorithm);
              }
              if (k > 0) line["ranks_per_node"] = k;
              if (form != "blocking") line["form"] = form;
              if (topology.degree >= 0) line["degree"] = topology.degree;
              if (rounds > 1) line["rounds"] = rounds;
              std::printf("%s\n", line.dump().c_str());
              std::fflush(stdout);
            }
          }
        }
      }
    }
  }
  MPI_Finalize();
  return 0;
}
