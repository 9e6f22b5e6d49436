// The node-aware mapping of MPI_Graph_create / MPI_Graph_map (reorder =
// true): edges cut by machine nodes for the identity and for the library's
// graph_node_blocks(), on the reordering benchmark's families. Local: the
// whole graph is an argument of the call, so every rank computes the same
// mapping and no MPI run is needed. One JSON line per (family, P, ranks per
// node).
//   graph_map_quality --size 16,64 --ranks-per-node 4,8 [--commit HASH]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "graph_blocks.hpp"
#include "reorder_graphs.hpp"

namespace {

// The graph of MPI_Graph_create: index (running out-degree) and edges.
struct IndexEdges {
  std::vector<int> index;
  std::vector<int> edges;
};

IndexEdges as_index_edges(const bench::Adjacency& adjacency) {
  IndexEdges graph;
  for (const auto& out : adjacency) {
    for (const auto& [neighbor, weight] : out) {
      // A weight w becomes w parallel edges: MPI_Graph_create has no weights,
      // and repeated edges are how a user says "more traffic".
      for (int copy = 0; copy < weight; ++copy) graph.edges.push_back(neighbor);
    }
    graph.index.push_back(static_cast<int>(graph.edges.size()));
  }
  return graph;
}

std::vector<std::vector<int>> consecutive(int nnodes, int k) {
  std::vector<std::vector<int>> blocks;
  for (int first = 0; first < nnodes; first += k) {
    blocks.emplace_back();
    for (int g = first; g < nnodes && g < first + k; ++g) blocks.back().push_back(g);
  }
  return blocks;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Edges cut by machine nodes under MPI_Graph_create's node-aware mapping"};
  std::vector<int> sizes{16, 64};
  std::vector<int> ranks_per_node{4, 8};
  std::string commit = "unknown";
  app.add_option("--size", sizes, "graph nodes (= processes)")->delimiter(',');
  app.add_option("--ranks-per-node", ranks_per_node, "processes per machine node")->delimiter(',');
  app.add_option("--commit", commit, "commit stamped on every row");
  CLI11_PARSE(app, argc, argv);

  for (const std::string& family : bench::reorder_family_names()) {
    for (const int size : sizes) {
      const IndexEdges graph = as_index_edges(bench::make_reorder_graph(family, size));
      for (const int k : ranks_per_node) {
        if (size % k != 0) continue;
        const auto mapped = distopo::detail::graph_node_blocks(size, graph.index, graph.edges, k);
        const nlohmann::json row = {
            {"study", "graph_map"},
            {"family", family},
            {"P", size},
            {"ranks_per_node", k},
            {"edges", graph.edges.size()},
            {"cut_identity", distopo::detail::blocks_cut(size, graph.index, graph.edges, consecutive(size, k))},
            {"cut_mapped", distopo::detail::blocks_cut(size, graph.index, graph.edges, mapped)},
            {"commit", commit}};
        std::printf("%s\n", row.dump().c_str());
      }
    }
  }
  return 0;
}
