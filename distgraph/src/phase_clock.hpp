#pragma once
// Where the time of one dist_graph_create goes, by stage: built only with
// -DDISTOPO_PHASE_PROFILE (docs/design/distgraph-create.md gives the
// command); otherwise every call compiles to nothing. Each rank prints one
// line to stderr per create: the seconds since the previous mark, per stage.
#ifdef DISTOPO_PHASE_PROFILE
#include <mpi.h>

#include <cstdio>
#include <string>
#endif

namespace distopo::detail {

class PhaseClock {
 public:
#ifdef DISTOPO_PHASE_PROFILE
  PhaseClock() : last_(MPI_Wtime()) {}
  void mark(const char* stage) {
    const double now = MPI_Wtime();
    line_ += std::string(" ") + stage + "=" + std::to_string((now - last_) * 1e3) + "ms";
    last_ = now;
  }
  void print(int rank) const { std::fprintf(stderr, "phases rank %d:%s\n", rank, line_.c_str()); }

 private:
  double last_;
  std::string line_;
#else
  void mark(const char*) {}
  void print(int) const {}
#endif
};

}  // namespace distopo::detail
