# Neighborhood collective benchmark (included from bench/CMakeLists.txt).
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)
# mpiexec -n P neighbor_bench: distopo vs MPICH's MPI_Neighbor_*, JSON lines.
add_executable(neighbor_bench ${CMAKE_CURRENT_LIST_DIR}/neighbor_bench.cpp)
target_link_libraries(neighbor_bench PRIVATE distopo_cart distopo_distgraph distopo_neighbor nlohmann_json::nlohmann_json CLI11::CLI11
                                             distopo_warnings)
