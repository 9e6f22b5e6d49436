// Reads the JSON lines of distgraph_scaling runs (stdin) and prints, per
// graph family, process count and size (edges per rank), distopo against
// MPICH: time ratio and the extra heap per rank, then how that memory grows
// from the smallest to the largest P at each size. Ratios are taken within
// one run, never across machines.
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

namespace {

struct Row {
  nlohmann::json distopo;
  nlohmann::json mpich;
};

std::string bytes(const nlohmann::json& value) {
  if (!value.is_number()) return "n/a";
  const double b = value.get<double>();
  char text[32];
  if (b >= 1 << 20)
    std::snprintf(text, sizeof text, "%.1f MiB", b / (1 << 20));
  else if (b >= 1 << 10)
    std::snprintf(text, sizeof text, "%.1f KiB", b / (1 << 10));
  else
    std::snprintf(text, sizeof text, "%.0f B", b);
  return text;
}

}  // namespace

int main() {
  // (family, edges per rank, P): sizes of one family together, by P.
  std::map<std::tuple<std::string, int, int>, Row> rows;
  bool any_distinct = false;
  bool any_unweighted = false;
  std::string line;
  while (std::getline(std::cin, line)) {
    const auto record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!record.is_object() || !record.contains("impl") || !record.contains("family")) continue;
    // Graphs whose ranks give edges of different weights (--weights distinct) are marked "*".
    const bool distinct = record.value("weights", std::string("repeated")) == "distinct";
    any_distinct = any_distinct || distinct;
    // Unweighted graphs (--unweighted) are marked "-": their ends repeat
    // unless the family's (source, destination) pairs do not (unique_pairs).
    const bool unweighted = !record.value("weighted", true);
    any_unweighted = any_unweighted || unweighted;
    const std::string family = record["family"].get<std::string>() + (distinct ? "*" : "") + (unweighted ? "-" : "");
    Row& row = rows[{family, record.value("edges_per_rank", 0), record["P"].get<int>()}];
    (record["impl"] == "distopo" ? row.distopo : row.mpich) = record;
  }
  if (rows.empty()) {
    std::cerr << "scaling_report: no distgraph_scaling records on stdin\n";
    return 1;
  }
  std::printf("%-14s %4s %9s %13s %13s %12s %12s %12s\n", "family", "P", "edges/rk", "distopo [ms]", "mpich [ms]",
              "mpich/dist", "distopo heap", "mpich heap");
  // (family, edges per rank) -> (smallest P, largest P)
  std::map<std::pair<std::string, int>, std::pair<Row, Row>> extremes;
  for (const auto& [key, row] : rows) {
    const auto& [family, edges, p] = key;
    const double ours = row.distopo.value("max_time_s", 0.0);
    const double theirs = row.mpich.value("max_time_s", 0.0);
    std::printf("%-14s %4d %9d %13.3f %13.3f %12s %12s %12s\n", family.c_str(), p, edges, ours * 1e3, theirs * 1e3,
                ours > 0 && theirs > 0 ? (std::to_string(theirs / ours).substr(0, 5) + "x").c_str() : "n/a",
                bytes(row.distopo.value("peak_bytes_per_rank", nlohmann::json())).c_str(),
                bytes(row.mpich.value("peak_bytes_per_rank", nlohmann::json())).c_str());
    auto [it, inserted] = extremes.try_emplace({family, edges}, row, row);
    if (!inserted) it->second.second = row;
  }
  if (any_distinct) {
    std::printf(
        "*: each rank's edges weigh differently (--weights distinct): no edge end repeats but where ranks give "
        "edges between the same two ranks (powerlaw)\n");
  }
  if (any_unweighted) std::printf("-: unweighted (MPI_UNWEIGHTED)\n");
  std::printf("\nextra heap per rank, smallest P -> largest P (fixed edges per rank):\n");
  for (const auto& [key, pair] : extremes) {
    const auto& [low, high] = pair;
    if (low.distopo == high.distopo && low.mpich == high.mpich) continue;  // one P only
    std::printf("  %-14s %9d distopo %s -> %s   mpich %s -> %s\n", key.first.c_str(), key.second,
                bytes(low.distopo.value("peak_bytes_per_rank", nlohmann::json())).c_str(),
                bytes(high.distopo.value("peak_bytes_per_rank", nlohmann::json())).c_str(),
                bytes(low.mpich.value("peak_bytes_per_rank", nlohmann::json())).c_str(),
                bytes(high.mpich.value("peak_bytes_per_rank", nlohmann::json())).c_str());
  }
  return 0;
}
