#pragma once
// Kokkos is distgraph's alone (the key sort): the distributed-graph
// constructors start it when the application has not, and the library
// finalizes what it started inside MPI_Finalize. Programs that never build a
// distributed graph never start Kokkos.
namespace distopo::detail {

// Idempotent. Requires MPI to be initialized.
void ensure_kokkos();

}  // namespace distopo::detail
