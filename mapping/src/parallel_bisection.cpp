#include "parallel_bisection.hpp"

#include <algorithm>
#include <array>
#include <new>
#include <numeric>
#include <optional>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"

namespace distopo::detail {
namespace {

constexpr int kRoot = 0;
enum Tag { kTask = 1, kResult = 2 };
// METIS' imbalance over the whole recursion (tenths of a percent), shared
// among the bisection levels as METIS shares it in its own recursion.
constexpr int kUfactor = 30;

// A subgraph and the parts it is to be split into, or the news that a rank
// above ran out of memory.
struct Task {
  std::vector<int> vertices;  // ids in the whole graph
  UndirectedGraph graph;      // induced, vertex i is vertices[i]
  int first_part = 0;
  std::vector<int> capacities;
  bool failed = false;
};

// What a failed task or result is sent as: a packed task has at least five
// words, a result an even number.
const std::vector<int> kFailedWords{-1};
bool failed_words(const std::vector<int>& words) { return words == kFailedWords; }

// Runs `step`, which allocates; false if it ran out of memory.
template <class Step>
bool fits_in_memory(Step&& step) {
  try {
    step();
    return true;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

int levels(std::size_t parts) {
  int l = 0;
  while ((std::size_t{1} << l) < parts) ++l;
  return l;
}

// The two halves of `task`: METIS bisection with the capacities' sums as
// targets, then the subgraph induced by each side.
std::pair<Task, Task> split(const Task& task, int cuts) {
  const std::size_t k = task.capacities.size();
  const std::size_t half = k / 2;
  const auto sum = [&](std::size_t from, std::size_t to) {
    return std::accumulate(task.capacities.begin() + static_cast<std::ptrdiff_t>(from),
                           task.capacities.begin() + static_cast<std::ptrdiff_t>(to), 0);
  };
  const std::array<int, 2> targets{sum(0, half), sum(half, k)};
  const int n = task.graph.vertex_count();
  std::vector<int> side = bisection_proposal(task.graph, targets, cuts, std::max(1, kUfactor / std::max(1, levels(k))));
  if (side.empty()) side = blocks_in_order(targets, static_cast<std::size_t>(n));  // METIS failed
  std::array<Task, 2> halves;
  halves[0].first_part = task.first_part;
  halves[0].capacities.assign(task.capacities.begin(), task.capacities.begin() + static_cast<std::ptrdiff_t>(half));
  halves[1].first_part = task.first_part + static_cast<int>(half);
  halves[1].capacities.assign(task.capacities.begin() + static_cast<std::ptrdiff_t>(half), task.capacities.end());
  std::vector<int> index(static_cast<std::size_t>(n));
  for (int v = 0; v < n; ++v) {
    Task& t = halves[static_cast<std::size_t>(side[static_cast<std::size_t>(v)])];
    index[static_cast<std::size_t>(v)] = static_cast<int>(t.vertices.size());
    t.vertices.push_back(task.vertices[static_cast<std::size_t>(v)]);
  }
  for (Task& t : halves) t.graph.offsets.assign(1, 0);
  for (int v = 0; v < n; ++v) {
    Task& t = halves[static_cast<std::size_t>(side[static_cast<std::size_t>(v)])];
    for (int e = task.graph.offsets[static_cast<std::size_t>(v)];
         e < task.graph.offsets[static_cast<std::size_t>(v) + 1]; ++e) {
      const auto u = static_cast<std::size_t>(task.graph.targets[static_cast<std::size_t>(e)]);
      if (side[u] != side[static_cast<std::size_t>(v)]) continue;
      t.graph.targets.push_back(index[u]);
      t.graph.weights.push_back(task.graph.weights[static_cast<std::size_t>(e)]);
    }
    t.graph.offsets.push_back(static_cast<int>(t.graph.targets.size()));
  }
  return {std::move(halves[0]), std::move(halves[1])};
}

// The parts of a task no helper will split further, by METIS alone.
std::vector<int> finish(const Task& task, int cuts) {
  const auto n = static_cast<std::size_t>(task.graph.vertex_count());
  if (task.capacities.size() <= 1) return std::vector<int>(n, task.first_part);
  std::vector<int> part = bisection_proposal(task.graph, task.capacities, cuts, kUfactor);
  if (part.empty()) part = blocks_in_order(task.capacities, n);  // METIS failed
  for (int& p : part) p += task.first_part;
  return part;
}

// {n, m, first part, k, vertices, offsets, targets, weights, capacities}
std::vector<int> pack(const Task& task) {
  std::vector<int> words{static_cast<int>(task.vertices.size()), static_cast<int>(task.graph.targets.size()),
                         task.first_part, static_cast<int>(task.capacities.size())};
  for (const auto* array :
       {&task.vertices, &task.graph.offsets, &task.graph.targets, &task.graph.weights, &task.capacities}) {
    words.insert(words.end(), array->begin(), array->end());
  }
  return words;
}

Task unpack(const std::vector<int>& words) {
  Task task;
  if (failed_words(words)) {
    task.failed = true;
    return task;
  }
  const auto n = static_cast<std::ptrdiff_t>(words[0]);
  const auto m = static_cast<std::ptrdiff_t>(words[1]);
  task.first_part = words[2];
  const auto k = static_cast<std::ptrdiff_t>(words[3]);
  auto at = words.begin() + 4;
  const auto take = [&](std::vector<int>& into, std::ptrdiff_t count) {
    into.assign(at, at + count);
    at += count;
  };
  take(task.vertices, n);
  take(task.graph.offsets, n + 1);
  take(task.graph.targets, m);
  take(task.graph.weights, m);
  take(task.capacities, k);
  return task;
}

void send(MPI_Comm channel, const std::vector<int>& words, int to, Tag tag) {
  check_mpi(MPI_Send(words.data(), static_cast<int>(words.size()), MPI_INT, to, tag, channel), "MPI_Send");
}

std::vector<int> receive(MPI_Comm channel, int from, Tag tag) {
  MPI_Status status;
  check_mpi(MPI_Probe(from, tag, channel, &status), "MPI_Probe");
  int count = 0;
  check_mpi(MPI_Get_count(&status, MPI_INT, &count), "MPI_Get_count");
  std::vector<int> words(static_cast<std::size_t>(count));
  check_mpi(MPI_Recv(words.data(), count, MPI_INT, status.MPI_SOURCE, tag, channel, MPI_STATUS_IGNORE), "MPI_Recv");
  return words;
}

}  // namespace

int bisection_helpers(int size) {
  int helpers = 1;
  while (2 * helpers <= std::min(size, kMaxBisectionHelpers)) helpers *= 2;
  return helpers;
}

int cuts_per_bisection(PartitionEffort effort) {
  switch (effort) {
    case PartitionEffort::fast:
      return 1;
    case PartitionEffort::balanced:
      return 4;
    case PartitionEffort::thorough:
      break;
  }
  return 8;
}

std::optional<std::vector<int>> bisect_in_parallel(MPI_Comm channel, const std::optional<UndirectedGraph>& graph,
                                                   std::span<const int> capacities, int cuts) {
  const int rank = comm_rank(channel);
  const int helpers = bisection_helpers(comm_size(channel));
  if (rank >= helpers) return std::nullopt;

  // Rank r > 0 gets its task from r - lowbit(r) and may hand halves on to
  // the lowbit(r) - 1 ranks after it (a binomial tree).
  Task task;
  int span = helpers;
  if (rank == kRoot) {
    task.failed = !graph || !fits_in_memory([&] {
      task.vertices.resize(static_cast<std::size_t>(graph->vertex_count()));
      std::iota(task.vertices.begin(), task.vertices.end(), 0);
      task.graph = *graph;
      task.capacities.assign(capacities.begin(), capacities.end());
    });
  } else {
    span = rank & -rank;
    const std::vector<int> words = receive(channel, rank - span, kTask);
    if (!fits_in_memory([&] { task = unpack(words); })) task.failed = true;
  }
  for (; span > 1; span /= 2) {
    const int helper = rank + span / 2;
    if (task.failed) {
      send(channel, kFailedWords, helper, kTask);
      continue;
    }
    if (task.capacities.size() <= 1) {  // nothing left to split: the helper gets an empty task
      send(channel, pack(Task{{}, UndirectedGraph{{0}, {}, {}}, task.first_part, {}}), helper, kTask);
      continue;
    }
    if (!fits_in_memory([&] {
          auto [left, right] = split(task, cuts);
          send(channel, pack(right), helper, kTask);
          task = std::move(left);
        })) {
      task.failed = true;  // the helper has received nothing yet
      send(channel, kFailedWords, helper, kTask);
    }
  }
  std::vector<int> part;
  if (!task.failed && !fits_in_memory([&] { part = finish(task, cuts); })) task.failed = true;

  if (rank != kRoot) {
    std::vector<int> words;
    if (task.failed || !fits_in_memory([&] {
          words = task.vertices;
          words.insert(words.end(), part.begin(), part.end());
        })) {
      words = kFailedWords;
    }
    send(channel, words, kRoot, kResult);
    return std::nullopt;
  }
  bool failed = task.failed;
  std::vector<int> whole;
  if (!failed && !fits_in_memory([&] {
        whole.assign(static_cast<std::size_t>(graph->vertex_count()), 0);
        for (std::size_t i = 0; i < task.vertices.size(); ++i) {
          whole[static_cast<std::size_t>(task.vertices[i])] = part[i];
        }
      })) {
    failed = true;
  }
  for (int r = 1; r < helpers; ++r) {  // every helper's result is received, failed or not
    const std::vector<int> words = receive(channel, MPI_ANY_SOURCE, kResult);
    if (failed_words(words)) failed = true;
    if (failed) continue;
    const std::size_t n = words.size() / 2;
    for (std::size_t i = 0; i < n; ++i) whole[static_cast<std::size_t>(words[i])] = words[n + i];
  }
  if (failed) return std::nullopt;
  return whole;
}

}  // namespace distopo::detail
