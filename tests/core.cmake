# core/: the sparse exchange; its agreement changes radix above 16 ranks, so
# it also runs at 17 and 33.
distopo_add_mpi_test(sparse_exchange_test SOURCES sparse_exchange_test.cpp LIBS distopo_core
                     PROCS ${DISTOPO_TEST_PROCS} 17 33)
