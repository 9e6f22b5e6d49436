# neighbor/: every collective in every form on every topology, request and
# error semantics, and the ranges the typed API takes.
distopo_add_mpi_test(neighbor_collective_test SOURCES neighbor_collective_test.cpp
                     LIBS distopo_cart distopo_graph distopo_distgraph distopo_neighbor TIMEOUT 180)
distopo_add_mpi_test(neighbor_semantics_test SOURCES neighbor_semantics_test.cpp
                     LIBS distopo_cart distopo_graph distopo_distgraph distopo_neighbor)
distopo_add_mpi_test(neighbor_ranges_test SOURCES neighbor_ranges_test.cpp LIBS distopo_cart distopo_neighbor)
