# Neighborhood collective tests (included from tests/CMakeLists.txt).
distopo_add_mpi_test(neighbor_collective_test SOURCES neighbor_collective_test.cpp
                     LIBS distopo_cart distopo_graph distopo_distgraph distopo_neighbor TIMEOUT 180)
distopo_add_mpi_test(neighbor_semantics_test SOURCES neighbor_semantics_test.cpp
                     LIBS distopo_cart distopo_graph distopo_distgraph distopo_neighbor TIMEOUT 120)
distopo_add_mpi_test(neighbor_ranges_test SOURCES neighbor_ranges_test.cpp LIBS distopo_cart distopo_neighbor)
