// mpiexec -n P neighbor_bench: latency/bandwidth of distopo's neighborhood
// collectives against MPICH's own (PMPI_Neighbor_*) on the same communicator:
// 2-D and 3-D periodic stencils and a random sparse graph, 8 B .. 1 MiB per
// block. One JSON line per (impl, op, topology, bytes): the median over
// repetitions of the max-over-ranks time per call.
// Run: mpiexec -n P neighbor_bench [--topology stencil3d,random_sparse] [--degree 3] [--max-bytes N] [--reps 11]
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "distopo/cart.hpp"
#include "distopo/distgraph.hpp"
#include "distopo/neighbor.hpp"

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
  distopo::DistGraphOptions options;
  options.weighted = false;
  return distopo::dist_graph_create_adjacent(MPI_COMM_WORLD, in[static_cast<std::size_t>(me)], {},
                                             out[static_cast<std::size_t>(me)], {}, options);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  CLI::App app{"distopo vs MPICH neighborhood collectives"};
  std::size_t max_bytes = 1 << 20;
  int reps = 11;
  std::string only_op;
  const std::vector<std::string> topology_names = {"stencil2d", "stencil3d", "random_sparse"};
  std::vector<std::string> selected = topology_names;
  // Out-edges each rank draws for random_sparse (self-loops and repeats dropped).
  int degree = 3;
  app.add_option("--max-bytes", max_bytes, "largest block size in bytes (from 8, times 8, then this size)");
  app.add_option("--reps", reps, "repetitions (median taken)")->check(CLI::PositiveNumber);
  app.add_option("--op", only_op, "alltoall, alltoallv or allgather (default: all)")
      ->check(CLI::IsMember({"alltoall", "alltoallv", "allgather"}));
  app.add_option("--topology", selected, "topologies (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(topology_names));
  app.add_option("--degree", degree, "out-edges drawn per rank for random_sparse")->check(CLI::Range(0, 1 << 20));
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
  auto wanted = [&](const std::string& name) {
    return std::find(selected.begin(), selected.end(), name) != selected.end();
  };

  struct Topology {
    std::string name;
    distopo::Comm comm;
  };
  std::vector<Topology> topologies;
  if (wanted("stencil2d")) {
    topologies.push_back({"stencil2d", distopo::cart_create(MPI_COMM_WORLD, distopo::dims_create(p, 2),
                                                            {distopo::periodic, distopo::periodic})});
  }
  if (wanted("stencil3d")) {
    topologies.push_back(
        {"stencil3d", distopo::cart_create(MPI_COMM_WORLD, distopo::dims_create(p, 3),
                                           {distopo::periodic, distopo::periodic, distopo::periodic})});
  }
  if (wanted("random_sparse")) topologies.push_back({"random_sparse", random_graph(p, 1234, degree)});

  for (auto& topology : topologies) {
    MPI_Comm comm = topology.comm;
    const distopo::NeighborDegrees degrees = distopo::neighbor_degrees(comm);
    // 8 B, x8 steps, and max_bytes itself (1 MiB by default).
    for (std::size_t bytes = 8; bytes <= max_bytes;
         bytes = bytes < max_bytes ? std::min(bytes * 8, max_bytes) : bytes + 1) {
      const int count = static_cast<int>(bytes);
      std::vector<char> send(bytes * static_cast<std::size_t>(std::max(degrees.outdegree, 1)), 1);
      std::vector<char> recv(bytes * static_cast<std::size_t>(std::max(degrees.indegree, 1)), 0);
      std::vector<int> scounts(static_cast<std::size_t>(degrees.outdegree), count), sdispls(scounts.size());
      std::vector<int> rcounts(static_cast<std::size_t>(degrees.indegree), count), rdispls(rcounts.size());
      for (std::size_t i = 0; i < sdispls.size(); ++i) sdispls[i] = static_cast<int>(i * bytes);
      for (std::size_t i = 0; i < rdispls.size(); ++i) rdispls[i] = static_cast<int>(i * bytes);
      std::span<const char> s(send.data(), bytes * static_cast<std::size_t>(degrees.outdegree));
      std::span<char> r(recv.data(), bytes * static_cast<std::size_t>(degrees.indegree));
      const int inner = bytes <= 4096 ? 50 : (bytes <= 65536 ? 10 : 2);
      struct Case {
        std::string impl, op;
        std::function<void()> call;
      };
      std::vector<Case> cases = {
          {"distopo", "alltoall", [&] { distopo::neighbor_alltoall(comm, s, r); }},
          {"mpich", "alltoall",
           [&] { PMPI_Neighbor_alltoall(send.data(), count, MPI_BYTE, recv.data(), count, MPI_BYTE, comm); }},
          {"distopo", "alltoallv",
           [&] {
             distopo::neighbor_alltoallv(comm, s, std::span<const int>(scounts), std::span<const int>(sdispls), r,
                                         std::span<const int>(rcounts), std::span<const int>(rdispls));
           }},
          {"mpich", "alltoallv",
           [&] {
             PMPI_Neighbor_alltoallv(send.data(), scounts.data(), sdispls.data(), MPI_BYTE, recv.data(), rcounts.data(),
                                     rdispls.data(), MPI_BYTE, comm);
           }},
          {"distopo", "allgather",
           [&] { distopo::neighbor_allgather(comm, std::span<const char>(send.data(), bytes), r); }},
          {"mpich", "allgather",
           [&] { PMPI_Neighbor_allgather(send.data(), count, MPI_BYTE, recv.data(), count, MPI_BYTE, comm); }},
      };
      for (const auto& c : cases) {
        if (!only_op.empty() && c.op != only_op) continue;
        const double t = median_max_time(comm, reps, inner, c.call);
        if (me == 0) {
          nlohmann::json line = {{"impl", c.impl}, {"op", c.op},     {"topology", topology.name},
                                 {"P", p},         {"bytes", bytes}, {"median_time_s", t}};
          if (topology.name == "random_sparse") line["degree"] = degree;
          std::printf("%s\n", line.dump().c_str());
          std::fflush(stdout);
        }
      }
    }
  }
  MPI_Finalize();
  return 0;
}
