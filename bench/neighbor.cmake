# neighbor/: distopo's neighborhood collectives against MPICH's
# MPI_Neighbor_* (mpiexec -n P neighbor_bench, JSON lines).
distopo_add_benchmark(neighbor_bench SOURCES neighbor_bench.cpp
                      LIBS distopo_cart distopo_distgraph distopo_neighbor nlohmann_json::nlohmann_json CLI11::CLI11)
