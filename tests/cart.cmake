# cart/: dims_create, the node-aware mapping, constructors and queries.
distopo_add_unit_test(cart_dims_create_test SOURCES cart_dims_create_test.cpp LIBS distopo_cart)
distopo_add_unit_test(cart_node_mapping_test SOURCES cart_node_mapping_test.cpp LIBS distopo_cart)
distopo_add_mpi_test(cart_create_test SOURCES cart_create_test.cpp LIBS distopo_cart TIMEOUT 60)
# The standard's 2x3x4 example needs 24 processes.
distopo_add_mpi_test(cart_sub_example_test SOURCES cart_sub_example_test.cpp LIBS distopo_cart PROCS 24 TIMEOUT 90)
# Links no Kokkos: distopo::cart and distopo::neighbor depend on core only.
distopo_add_mpi_test(cart_without_kokkos_test SOURCES cart_without_kokkos_test.cpp
                     LIBS distopo_cart distopo_neighbor ${CMAKE_DL_LIBS})
