# distgraph/: the key sort, both constructors, the record, errors, Kokkos'
# lifetime, and queries that must not compile on a temporary Comm.
distopo_add_unit_test(key_sort_test SOURCES key_sort_test.cpp LIBS distopo_distgraph Kokkos::kokkos)
distopo_add_mpi_test(topology_record_test SOURCES topology_record_test.cpp LIBS distopo_distgraph)
distopo_add_mpi_test(dist_graph_create_test SOURCES dist_graph_create_test.cpp LIBS distopo_distgraph
                     PROCS ${DISTOPO_TEST_PROCS} 20)
distopo_add_mpi_test(dist_graph_adjacent_test SOURCES dist_graph_adjacent_test.cpp LIBS distopo_distgraph)
distopo_add_mpi_test(dist_graph_errors_test SOURCES dist_graph_errors_test.cpp LIBS distopo_distgraph
                     PROCS ${DISTOPO_TEST_PROCS} 20)
distopo_add_mpi_test(kokkos_lifecycle_test SOURCES kokkos_lifecycle_test.cpp
                     LIBS distopo_cart distopo_neighbor distopo_distgraph Kokkos::kokkos)
distopo_add_unit_test(query_lifetime_test SOURCES query_lifetime_test.cpp
                      LIBS distopo_cart distopo_graph distopo_distgraph)
distopo_add_compile_fail_test(temporary_query_does_not_compile SOURCE compile_fail/temporary_query.cpp
                              LIBS distopo_distgraph ERROR "use of deleted function[^\n]*dist_graph_neighbors\\(Comm&&\\)")
# Reordering: the serial partitioner, then the whole path on emulated nodes
# (16 ranks: 4 and 8 nodes of 4 and 2).
distopo_add_unit_test(reorder_partition_test SOURCES reorder_partition_test.cpp LIBS distopo_distgraph)
target_include_directories(reorder_partition_test PRIVATE ${PROJECT_SOURCE_DIR}/distgraph/src)
distopo_add_unit_test(nested_splits_test SOURCES nested_splits_test.cpp LIBS distopo_distgraph)
target_include_directories(nested_splits_test PRIVATE ${PROJECT_SOURCE_DIR}/distgraph/src)
distopo_add_mpi_test(multilevel_partition_test SOURCES multilevel_partition_test.cpp LIBS distopo_distgraph)
target_include_directories(multilevel_partition_test PRIVATE ${PROJECT_SOURCE_DIR}/distgraph/src)
distopo_add_mpi_test(parallel_bisection_test SOURCES parallel_bisection_test.cpp LIBS distopo_distgraph)
target_include_directories(parallel_bisection_test PRIVATE ${PROJECT_SOURCE_DIR}/distgraph/src)
# One allocation failing on one rank, swept through the distributed reordering
# (about 70 whole mappings: 50-130 s at 8 ranks on 2 busy cores).
distopo_add_mpi_test(reorder_out_of_memory_test SOURCES reorder_out_of_memory_test.cpp
                     LIBS distopo_distgraph distopo_failing_allocation
                     PROCS 4 6 8 TIMEOUT 300)
target_include_directories(reorder_out_of_memory_test PRIVATE ${PROJECT_SOURCE_DIR}/distgraph/src)
distopo_add_mpi_test(dist_graph_reorder_test SOURCES dist_graph_reorder_test.cpp
                     LIBS distopo_distgraph distopo_cart distopo_neighbor PROCS ${DISTOPO_TEST_PROCS} 16)
distopo_add_unit_test(peer_buckets_test SOURCES peer_buckets_test.cpp LIBS distopo_distgraph)
target_include_directories(peer_buckets_test PRIVATE ${PROJECT_SOURCE_DIR}/distgraph/src)
distopo_add_unit_test(edge_lists_test SOURCES edge_lists_test.cpp LIBS distopo_distgraph Kokkos::kokkos)
target_include_directories(edge_lists_test PRIVATE ${PROJECT_SOURCE_DIR}/distgraph/src)
# An application that starts Kokkos with its own thread count before MPI and
# finalizes it after: distopo uses it as it is.
distopo_add_mpi_test(kokkos_application_test SOURCES kokkos_application_test.cpp
                     LIBS distopo_distgraph Kokkos::kokkos PROCS 1 2 3 4 TIMEOUT 60)
