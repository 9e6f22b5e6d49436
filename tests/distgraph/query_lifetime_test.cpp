// The queries that return a reference into a communicator's topology refuse
// a temporary Comm: dist_graph_neighbors(dist_graph_create(...)) would read
// lists freed with the Comm at the end of the statement. Checked at compile
// time (the test does not build if such a call compiles), with the same calls
// on lvalues and plain MPI_Comm as controls that must compile.
#include <gtest/gtest.h>
#include <mpi.h>

#include <utility>

#include "distopo/cart.hpp"
#include "distopo/distgraph.hpp"
#include "distopo/graph.hpp"

namespace {

template <class C>
concept DistGraphNeighborsQuery = requires(C&& comm) {
  distopo::dist_graph_neighbors(std::forward<C>(comm));
};
template <class C>
concept CartGetQuery = requires(C&& comm) {
  distopo::cart_get(std::forward<C>(comm));
};
template <class C>
concept GraphGetQuery = requires(C&& comm) {
  distopo::graph_get(std::forward<C>(comm));
};
template <class C>
concept GraphNeighborsQuery = requires(C&& comm) {
  distopo::graph_neighbors(std::forward<C>(comm), 0);
};

// A temporary (prvalue or xvalue) Comm is refused...
static_assert(!DistGraphNeighborsQuery<distopo::Comm>);
static_assert(!CartGetQuery<distopo::Comm>);
static_assert(!GraphGetQuery<distopo::Comm>);
static_assert(!GraphNeighborsQuery<distopo::Comm>);

// ...a Comm that outlives the call, or a plain MPI_Comm, is not.
static_assert(DistGraphNeighborsQuery<distopo::Comm&> && DistGraphNeighborsQuery<const distopo::Comm&>);
static_assert(DistGraphNeighborsQuery<MPI_Comm>);
static_assert(CartGetQuery<distopo::Comm&> && CartGetQuery<MPI_Comm>);
static_assert(GraphGetQuery<distopo::Comm&> && GraphGetQuery<MPI_Comm>);
static_assert(GraphNeighborsQuery<distopo::Comm&> && GraphNeighborsQuery<MPI_Comm>);

// The value-returning queries stay usable on temporaries.
static_assert(requires { distopo::dist_graph_neighbors_count(distopo::Comm{}); });
static_assert(requires { distopo::cartdim_get(distopo::Comm{}); });

TEST(QueryLifetime, CheckedAtCompileTime) { SUCCEED(); }

}  // namespace
