# C API tests: C programs written as an MPI user writes them (no distopo
# header), linked only to MPI, run with libdistopo_mpi.so preloaded.
find_package(MPI REQUIRED COMPONENTS C)

set(DISTOPO_CAPI_PRELOAD "$<TARGET_FILE:distopo_capi>:$<TARGET_FILE:distopo_ucx_yield>")
if(DISTOPO_SANITIZE)
  # The preloaded library carries ASan code and the programs do not: the ASan
  # runtime has to come first.
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so OUTPUT_VARIABLE _asan_runtime
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(DISTOPO_CAPI_PRELOAD "${_asan_runtime}:${DISTOPO_CAPI_PRELOAD}")
endif()
set(DISTOPO_CAPI_TEST_ENV ${DISTOPO_MPI_TEST_ENV})
list(FILTER DISTOPO_CAPI_TEST_ENV EXCLUDE REGEX "^LD_PRELOAD=")
list(APPEND DISTOPO_CAPI_TEST_ENV "LD_PRELOAD=${DISTOPO_CAPI_PRELOAD}")

# distopo_add_capi_test(<name> SOURCES ... [PROCS n...] [TIMEOUT s])
function(distopo_add_capi_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;PROCS" ${ARGN})
  if(NOT ARG_PROCS)
    set(ARG_PROCS ${DISTOPO_TEST_PROCS})
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 60)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE C)
  target_compile_options(${name} PRIVATE -Wall -Wextra)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/capi)
  target_link_libraries(${name} PRIVATE MPI::MPI_C ${CMAKE_DL_LIBS} m)
  add_dependencies(${name} distopo_capi distopo_ucx_yield)
  distopo_register_mpi_runs(${name} PROCS ${ARG_PROCS} TIMEOUT ${ARG_TIMEOUT} LABELS capi mpi
                            ENVIRONMENT ${DISTOPO_CAPI_TEST_ENV})
endfunction()

distopo_add_capi_test(capi_reaches_distopo SOURCES capi/reaches_distopo.c)
distopo_add_capi_test(capi_errors SOURCES capi/errors.c)
distopo_add_capi_test(capi_native_mirror SOURCES capi/native_mirror.c)
distopo_add_capi_test(capi_standard_examples SOURCES capi/standard_examples.c)
