# core/: the sparse exchange.
distopo_add_mpi_test(sparse_exchange_test SOURCES sparse_exchange_test.cpp LIBS distopo_core)
