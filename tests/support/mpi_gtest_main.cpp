// GoogleTest main for MPI tests. Every rank runs every test; rank 0 alone
// prints. After each test the ranks agree on its outcome: a failure on any rank
// fails the test on all of them, and rank 0 prints each failing rank's
// messages in rank order, so output is never interleaved.
#include <gtest/gtest.h>
#include <mpi.h>

#include <sstream>
#include <string>
#include <vector>

namespace {

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// Collects this rank's failure messages of the current test.
class FailureCollector : public testing::EmptyTestEventListener {
 public:
  void OnTestStart(const testing::TestInfo&) override { messages_.clear(); }
  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::ostringstream text;
    text << (result.file_name() ? result.file_name() : "?") << ":" << result.line_number() << ": " << result.summary()
         << "\n";
    messages_ += text.str();
  }
  // Collective: every rank learns whether any rank failed; rank 0 gets the texts.
  void OnTestEnd(const testing::TestInfo& info) override {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int rank = world_rank();
    int length = static_cast<int>(messages_.size());
    std::vector<int> lengths(rank == 0 ? size : 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> displacements(lengths.size(), 0);
    int total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      displacements[r] = total;
      total += lengths[r];
    }
    std::vector<char> texts(static_cast<std::size_t>(total));
    MPI_Gatherv(messages_.data(), length, MPI_CHAR, texts.data(), lengths.data(), displacements.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    if (rank != 0) return;
    for (int r = 1; r < size; ++r) {
      if (lengths[static_cast<std::size_t>(r)] == 0) continue;
      std::string text(texts.data() + displacements[static_cast<std::size_t>(r)],
                       static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)]));
      std::printf("[  rank %d ] %s.%s failed on rank %d:\n%s", r, info.test_suite_name(), info.name(), r, text.c_str());
      failed_elsewhere_ = true;
    }
    std::fflush(stdout);
  }
  [[nodiscard]] bool failed_elsewhere() const { return failed_elsewhere_; }

 private:
  std::string messages_;
  bool failed_elsewhere_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  const int rank = world_rank();
  testing::TestEventListeners& listeners = testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) delete listeners.Release(listeners.default_result_printer());
  auto* collector = new FailureCollector;
  listeners.Append(collector);

  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  if (rank == 0 && collector->failed_elsewhere()) failed = 1;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && failed) std::printf("FAILED on at least one rank\n");
  MPI_Finalize();
  return failed;
}
