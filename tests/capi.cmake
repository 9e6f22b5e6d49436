# capi/: C programs against libdistopo_mpi.so (MPICH's own suite runs from
# scripts/mpich_test_suite.sh).
distopo_add_capi_test(capi_reaches_distopo SOURCES capi/reaches_distopo.c)
distopo_add_capi_test(capi_errors SOURCES capi/errors.c)
distopo_add_capi_test(capi_native_mirror SOURCES capi/native_mirror.c)
distopo_add_capi_test(capi_standard_examples SOURCES capi/standard_examples.c)
# Issue 13 (cases 1, 5, 6, 9): neighborhood collectives' requests, errors and arguments.
distopo_add_capi_test(capi_requests SOURCES capi/requests.c)
distopo_add_capi_test(capi_request_status SOURCES capi/request_status.c)
distopo_add_capi_test(capi_collective_errors SOURCES capi/collective_errors.c)
distopo_add_capi_test(capi_negative_displacements SOURCES capi/negative_displacements.c)
distopo_add_capi_test(capi_large_count SOURCES capi/large_count.c)

# Issue 13 (cases 2, 3, 4, 7, 8, 10, 11): legal programs that used to hang,
# abort or fail through the C API.
set(DISTOPO_CAPI_RELIABILITY_PROCS 1 2 3 4)
distopo_add_capi_test(capi_attributes_not_copied SOURCES capi/attributes_not_copied.c
                      PROCS ${DISTOPO_CAPI_RELIABILITY_PROCS} TIMEOUT 60)
# About 10000 communicator creations: seconds alone, minutes on a loaded machine.
distopo_add_capi_test(capi_communicator_capacity SOURCES capi/communicator_capacity.c
                      PROCS ${DISTOPO_CAPI_RELIABILITY_PROCS} TIMEOUT 300)
distopo_add_capi_test(capi_info_on_one_rank SOURCES capi/info_on_one_rank.c
                      PROCS ${DISTOPO_CAPI_RELIABILITY_PROCS} TIMEOUT 60)
distopo_add_capi_test(capi_out_of_memory_on_one_rank SOURCES capi/out_of_memory_on_one_rank.c
                      PROCS ${DISTOPO_CAPI_RELIABILITY_PROCS} TIMEOUT 60)
# Alone: under the address-space limit MPI's own transport must not need to
# map more shared memory, and under a parallel ctest it once did (UCX's
# mmap failed on the limited rank, np3, and the run hung until its timeout).
foreach(np IN LISTS DISTOPO_CAPI_RELIABILITY_PROCS)
  set_property(TEST capi_out_of_memory_on_one_rank.np${np} PROPERTY RUN_SERIAL TRUE)
endforeach()
if(DISTOPO_SANITIZE)
  # The allocator must report a failed allocation as a null pointer (the
  # library's std::bad_alloc) instead of ending the process.
  foreach(np IN LISTS DISTOPO_CAPI_RELIABILITY_PROCS)
    set_property(TEST capi_out_of_memory_on_one_rank.np${np} APPEND PROPERTY ENVIRONMENT
                 "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0:allocator_may_return_null=1")
  endforeach()
endif()
# Issue 28: topologies MPICH made without distopo (PMPI_ constructors).
distopo_add_capi_test(capi_topology_made_by_mpich SOURCES capi/topology_made_by_mpich.c
                      PROCS ${DISTOPO_CAPI_RELIABILITY_PROCS} TIMEOUT 60)
# Issue 28: one rank without memory for MPICH's copy of the topology.
distopo_add_capi_test(capi_native_copy_out_of_memory SOURCES capi/native_copy_out_of_memory.c
                      PROCS ${DISTOPO_CAPI_RELIABILITY_PROCS} TIMEOUT 90)
foreach(np IN LISTS DISTOPO_CAPI_RELIABILITY_PROCS)
  set_property(TEST capi_native_copy_out_of_memory.np${np} PROPERTY RUN_SERIAL TRUE)
  if(DISTOPO_SANITIZE)
    set_property(TEST capi_native_copy_out_of_memory.np${np} APPEND PROPERTY ENVIRONMENT
                 "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0:allocator_may_return_null=1")
  endif()
endforeach()
distopo_add_capi_test(capi_sessions_only SOURCES capi/sessions_only.c
                      PROCS ${DISTOPO_CAPI_RELIABILITY_PROCS} TIMEOUT 60)
# C++ for Kokkos only: the application owns Kokkos and finalizes it early.
distopo_add_capi_test(capi_kokkos_finalized_by_application SOURCES capi/kokkos_finalized_by_application.cpp
                      PROCS ${DISTOPO_CAPI_RELIABILITY_PROCS} TIMEOUT 60)
set_target_properties(capi_kokkos_finalized_by_application PROPERTIES LINKER_LANGUAGE CXX)
target_link_libraries(capi_kokkos_finalized_by_application PRIVATE MPI::MPI_CXX Kokkos::kokkos)
distopo_add_capi_test(capi_cart_many_dimensions SOURCES capi/cart_many_dimensions.c
                      PROCS ${DISTOPO_CAPI_RELIABILITY_PROCS} TIMEOUT 60)
distopo_add_capi_test(capi_reorder SOURCES capi/reorder.c PROCS ${DISTOPO_TEST_PROCS} 16)
# Rank 0 without memory for the gathered graph: reorder keeps the identity on
# every rank. Not under the sanitizers: there operator new aborts where the
# library expects std::bad_alloc.
if(NOT DISTOPO_SANITIZE)
  distopo_add_capi_test(capi_reorder_without_memory SOURCES capi/reorder_without_memory.c PROCS 4 8 TIMEOUT 120)
endif()

# Fortran programs (issue 28): the same source with `use mpi` and with
# `use mpi_f08`, built with MPICH's Fortran wrappers when a Fortran compiler
# exists (scripts/setup.sh installs gfortran with libmpich-dev); a machine
# without one still configures and runs the rest.
include(CheckLanguage)
check_language(Fortran)
if(CMAKE_Fortran_COMPILER)
  enable_language(Fortran)
  find_package(MPI COMPONENTS Fortran)
endif()
if(MPI_Fortran_FOUND AND MPI_Fortran_HAVE_F90_MODULE AND MPI_Fortran_HAVE_F08_MODULE)
  foreach(binding IN ITEMS mpi mpi_f08)
    set(name capi_fortran_topology_${binding})
    add_executable(${name} capi/fortran_topology.F90)
    set_target_properties(${name} PROPERTIES LINKER_LANGUAGE Fortran Fortran_MODULE_DIRECTORY
                          ${CMAKE_CURRENT_BINARY_DIR}/${name}_modules
                          # `use mpi` declares MPI_UNWEIGHTED a scalar, the arrays it
                          # stands for are not: gfortran warns, legally.
                          COMPILE_WARNING_AS_ERROR OFF)
    target_link_libraries(${name} PRIVATE MPI::MPI_Fortran)
    if(binding STREQUAL "mpi_f08")
      target_compile_definitions(${name} PRIVATE DISTOPO_F08)
    endif()
    add_dependencies(${name} distopo_capi distopo_ucx_yield)
    _distopo_register_mpi_runs(${name} PROCS 1 2 3 4 TIMEOUT 60 LABELS "capi;mpi;fortran"
                               ENVIRONMENT ${DISTOPO_CAPI_TEST_ENV})
  endforeach()
else()
  message(STATUS "No Fortran compiler with MPICH's mpi and mpi_f08 modules: the Fortran tests are not built")
endif()
