# Cartesian benchmarks (included from bench/CMakeLists.txt).

# distopo::dims_create vs MPICH's MPI_Dims_create (Google Benchmark, own main).
add_executable(dims_create_bench ${CMAKE_CURRENT_LIST_DIR}/dims_create_bench.cpp)
target_link_libraries(dims_create_bench PRIVATE distopo_cart benchmark::benchmark distopo_warnings)

# mpiexec -n P cart_offnode: off-node stencil pairs, identity vs reorder vs MPICH.
add_executable(cart_offnode ${CMAKE_CURRENT_LIST_DIR}/cart_offnode.cpp)
target_link_libraries(cart_offnode PRIVATE distopo_cart nlohmann_json::nlohmann_json CLI11::CLI11
                                           distopo_warnings)
