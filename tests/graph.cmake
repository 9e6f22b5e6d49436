# graph/: constructors, mapping and queries.
distopo_add_mpi_test(graph_create_test SOURCES graph_create_test.cpp LIBS distopo_graph TIMEOUT 60)
