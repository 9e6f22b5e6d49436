# distgraph/: the scaling study of dist_graph_create against MPICH's
# (mpiexec -n P distgraph_scaling, JSON lines; scaling_report prints the
# table), and the local key sort against std::sort (Google Benchmark).

# The graph families of the scaling study, shared by its drivers.
add_library(distopo_graph_families STATIC graph_families.cpp)
target_link_libraries(distopo_graph_families PUBLIC distopo_cart PRIVATE distopo_warnings)

distopo_add_benchmark(distgraph_scaling SOURCES distgraph_scaling.cpp
                      LIBS distopo_distgraph distopo_graph_families CLI11::CLI11 nlohmann_json::nlohmann_json)
if(DISTOPO_SANITIZE)
  # The sanitizer owns malloc; the heap meter cannot replace it there.
  target_compile_definitions(distgraph_scaling PRIVATE DISTOPO_NO_HEAP_METER)
else()
  target_sources(distgraph_scaling PRIVATE heap_meter.cpp)
endif()
distopo_add_benchmark(scaling_report SOURCES scaling_report.cpp LIBS nlohmann_json::nlohmann_json)
distopo_add_benchmark(key_sort_bench SOURCES key_sort_bench.cpp
                      LIBS distopo_distgraph Kokkos::kokkos benchmark::benchmark)
target_include_directories(key_sort_bench PRIVATE ${PROJECT_SOURCE_DIR}/distgraph/src)
# The sending side's bucketing of edge ends by owner (dist_graph_create).
distopo_add_benchmark(edge_bucket_bench SOURCES edge_bucket_bench.cpp LIBS distopo_distgraph benchmark::benchmark)
target_include_directories(edge_bucket_bench PRIVATE ${PROJECT_SOURCE_DIR}/distgraph/src)
# What one MPI_Iprobe / MPI_Test costs: the calibration of the SMPI study's
# polling charge (docs/scaling/README.md).
distopo_add_benchmark(poll_cost SOURCES poll_cost.cpp LIBS MPI::MPI_CXX CLI11::CLI11 nlohmann_json::nlohmann_json)
# The dist-graph reordering: crossing weight of identity, distopo, whole-graph
# METIS and the best block mapping, and the mapping's cost (real runs on
# emulated nodes, or the mapping alone with --mapping-only).
distopo_add_benchmark(distgraph_reorder SOURCES distgraph_reorder.cpp reorder_graphs.cpp
                      LIBS distopo_distgraph distopo_cart distopo_metis CLI11::CLI11 nlohmann_json::nlohmann_json)
target_include_directories(distgraph_reorder PRIVATE ${PROJECT_SOURCE_DIR}/distgraph/src)
