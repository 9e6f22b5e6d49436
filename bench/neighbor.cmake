# neighbor/: distopo's neighborhood collectives against MPICH's
# MPI_Neighbor_* (mpiexec -n P neighbor_bench, JSON lines).
distopo_add_benchmark(neighbor_bench SOURCES neighbor_bench.cpp
                      LIBS distopo_cart distopo_distgraph distopo_neighbor nlohmann_json::nlohmann_json CLI11::CLI11)

# threads_bench: an MPI_THREAD_MULTIPLE program through the C API, with
# libdistopo_mpi.so preloaded and without, beside a CPU load it starts itself
# (docs/results/threads/README.md). Linked only to MPI, like a user's program.
find_package(Threads REQUIRED)
distopo_add_benchmark(threads_bench SOURCES threads_bench.cpp
                      LIBS MPI::MPI_CXX nlohmann_json::nlohmann_json CLI11::CLI11 Threads::Threads ${CMAKE_DL_LIBS})
target_include_directories(threads_bench PRIVATE ${PROJECT_SOURCE_DIR}/tests/capi)
target_compile_definitions(threads_bench PRIVATE
  "DISTOPO_CAPI_LIBRARY=\"$<TARGET_FILE:distopo_capi>\""
  "DISTOPO_YIELD_LIBRARY=\"$<TARGET_FILE:distopo_ucx_yield>\""
  "DISTOPO_MPIEXEC=\"${MPIEXEC_EXECUTABLE}\""
  "DISTOPO_SOURCE_DIR=\"${PROJECT_SOURCE_DIR}\"")
add_dependencies(threads_bench distopo_capi distopo_ucx_yield)
