#pragma once
// Where the time of one dist_graph_create goes, by stage: built only with
// -DDISTOPO_PHASE_PROFILE (docs/design/distgraph-create.md gives the
// command); otherwise every call compiles to nothing. Each rank prints one
// line to stderr per create: the milliseconds since the previous mark, per
// stage, wall and CPU time of the calling thread, and its page faults.
#ifdef DISTOPO_PHASE_PROFILE
#include <mpi.h>
#include <sys/resource.h>

#include <cstdio>
#include <ctime>
#include <string>
#endif

namespace distopo::detail {

class PhaseClock {
 public:
#ifdef DISTOPO_PHASE_PROFILE
  PhaseClock() : last_(MPI_Wtime()), last_cpu_(cpu_seconds()), last_faults_(page_faults()) {}
  void mark(const char* stage) {
    const double now = MPI_Wtime();
    const double cpu = cpu_seconds();
    const long faults = page_faults();
    line_ += std::string(" ") + stage + "=" + std::to_string((now - last_) * 1e3) + "ms(cpu " +
             std::to_string((cpu - last_cpu_) * 1e3) + " faults " + std::to_string(faults - last_faults_) + ")";
    last_ = now;
    last_cpu_ = cpu;
    last_faults_ = faults;
  }
  void print(int rank) const { std::fprintf(stderr, "phases rank %d:%s\n", rank, line_.c_str()); }

 private:
  // The calling thread's CPU time: a stage's wall time on an oversubscribed
  // core includes the time other processes ran.
  static double cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
  }
  // Fresh pages: where a virtual machine makes each fault cost microseconds,
  // they can be most of a stage.
  static long page_faults() {
    rusage usage{};
    getrusage(RUSAGE_THREAD, &usage);
    return usage.ru_minflt + usage.ru_majflt;
  }
  double last_;
  double last_cpu_;
  long last_faults_;
  std::string line_;
#else
  void mark(const char*) {}
  void print(int) const {}
#endif
};

}  // namespace distopo::detail
