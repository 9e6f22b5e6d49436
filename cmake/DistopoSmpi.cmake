# The SimGrid SMPI build (DISTOPO_SMPI=ON): the compilers must be SMPI's
# wrappers, which make every program a shared object that smpirun loads and
# runs as thousands of simulated ranks in one process.
if(NOT CMAKE_CXX_COMPILER MATCHES "smpicxx$" OR NOT CMAKE_C_COMPILER MATCHES "smpicc$")
  message(FATAL_ERROR "DISTOPO_SMPI needs SMPI's compilers: configure with CC=smpicc CXX=smpicxx "
                      "(or -DCMAKE_C_COMPILER=smpicc -DCMAKE_CXX_COMPILER=smpicxx)")
endif()
# SMPI has none of MPICH's topology functions to mirror the record into.
set(DISTOPO_NATIVE_TOPOLOGY OFF CACHE BOOL "" FORCE)
set(DISTOPO_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(DISTOPO_BUILD_BENCHMARKS OFF CACHE BOOL "" FORCE)
# smpi_helpers.h (included into every file by the wrappers) replaces malloc
# with SMPI's shared-malloc interceptor by macro, which breaks Kokkos' and the
# standard library's allocation calls; plain malloc is what is measured anyway.
add_compile_definitions(SMPI_NO_OVERRIDE_MALLOC)
