# cart/: dims_create against MPICH's MPI_Dims_create (Google Benchmark), and
# off-node stencil pairs with and without reorder (mpiexec -n P cart_offnode).
distopo_add_benchmark(dims_create_bench SOURCES dims_create_bench.cpp LIBS distopo_cart benchmark::benchmark)
distopo_add_benchmark(cart_offnode SOURCES cart_offnode.cpp
                      LIBS distopo_cart nlohmann_json::nlohmann_json CLI11::CLI11)
