# core/: the sparse exchange; its agreement changes radix above 16 ranks, so
# it also runs at 17 and 33.
distopo_add_mpi_test(sparse_exchange_test SOURCES sparse_exchange_test.cpp LIBS distopo_core
                     PROCS ${DISTOPO_TEST_PROCS} 17 33)
# One allocation failing on one rank, swept through a round (and through the
# reordering's rounds in reorder_out_of_memory_test).
add_library(distopo_failing_allocation STATIC failing_allocation.cpp)
target_link_libraries(distopo_failing_allocation PRIVATE distopo_warnings)
distopo_add_mpi_test(sparse_exchange_out_of_memory_test SOURCES sparse_exchange_out_of_memory_test.cpp
                     LIBS distopo_core distopo_failing_allocation PROCS ${DISTOPO_TEST_PROCS} 17)
