# The helpers every test folder uses (tests/<module>/CMakeLists.txt):
#   distopo_add_unit_test(<name> SOURCES ... [LIBS ...])
#       a GoogleTest binary of local code, run once
#   distopo_add_mpi_test(<name> SOURCES ... [LIBS ...] [PROCS n...] [TIMEOUT s])
#       a GoogleTest binary with the MPI-aware main, run under mpiexec once
#       per process count (DISTOPO_TEST_PROCS by default) as <name>.np<n>
#   distopo_add_capi_test(<name> SOURCES ... [PROCS n...] [TIMEOUT s])
#       a C program written as an MPI user writes it (no distopo header),
#       linked only to MPI, run like an MPI test with libdistopo_mpi.so preloaded
#   distopo_add_compile_fail_test(<name> SOURCE <file> LIBS ... ERROR <regex>)
#       passes only if compiling <file> fails with a message matching <regex>
#   distopo_add_script_test(<name> COMMAND ... [TIMEOUT s] [LABELS ...])
#       a driver script with the environment of the MPI tests
# Every test has a timeout, so a hang fails instead of blocking CI.
find_package(GTest REQUIRED)
find_package(MPI REQUIRED COMPONENTS C)

# MPI-aware gtest main shared by every MPI test binary.
add_library(distopo_mpi_gtest_main STATIC ${CMAKE_CURRENT_LIST_DIR}/mpi_gtest_main.cpp)
target_link_libraries(distopo_mpi_gtest_main PUBLIC GTest::gtest MPI::MPI_CXX PRIVATE distopo_warnings)
target_include_directories(distopo_mpi_gtest_main PUBLIC ${CMAKE_CURRENT_LIST_DIR})

# One allocation failing on one rank, swept through a round (sparse exchange,
# reordering).
add_library(distopo_failing_allocation STATIC ${CMAKE_CURRENT_LIST_DIR}/failing_allocation.cpp)
target_link_libraries(distopo_failing_allocation PRIVATE distopo_warnings)
target_include_directories(distopo_failing_allocation PUBLIC ${CMAKE_CURRENT_LIST_DIR})

# The environment every MPI run gets: the yield helper so oversubscribed ranks
# give the CPU back instead of spinning, and UCX's shared-memory transports.
set(DISTOPO_MPI_TEST_ENV
  "LD_PRELOAD=$<TARGET_FILE:distopo_ucx_yield>"
  "UCX_TLS=self,posix"
  "UCX_WARN_UNUSED_ENV_VARS=n")
if(DISTOPO_SANITIZE)
  # Our preload comes before the sanitizer runtime; MPICH and UCX keep
  # allocations until exit, which is not ours to report.
  list(APPEND DISTOPO_MPI_TEST_ENV "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0"
                                   "UBSAN_OPTIONS=print_stacktrace=1")
endif()

# The C API tests preload libdistopo_mpi.so as well. Under the sanitizers the
# preloaded library carries ASan code and the programs do not: the ASan
# runtime has to come first.
set(_capi_preload "$<TARGET_FILE:distopo_capi>:$<TARGET_FILE:distopo_ucx_yield>")
if(DISTOPO_SANITIZE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so OUTPUT_VARIABLE _asan_runtime
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(_capi_preload "${_asan_runtime}:${_capi_preload}")
endif()
set(DISTOPO_CAPI_TEST_ENV ${DISTOPO_MPI_TEST_ENV})
list(FILTER DISTOPO_CAPI_TEST_ENV EXCLUDE REGEX "^LD_PRELOAD=")
list(APPEND DISTOPO_CAPI_TEST_ENV "LD_PRELOAD=${_capi_preload}")

set(DISTOPO_TEST_TIMEOUT 120 CACHE STRING "Seconds a test may take unless it says otherwise")

# Registers <target> once per process count as <NAME>.np<n> (NAME: the
# target's by default), under mpiexec, with the program's ARGS.
function(_distopo_register_mpi_runs target)
  cmake_parse_arguments(ARG "" "TIMEOUT;NAME" "PROCS;LABELS;ENVIRONMENT;ARGS" ${ARGN})
  if(NOT ARG_PROCS)
    set(ARG_PROCS ${DISTOPO_TEST_PROCS})
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT ${DISTOPO_TEST_TIMEOUT})
  endif()
  if(NOT ARG_NAME)
    set(ARG_NAME ${target})
  endif()
  foreach(np IN LISTS ARG_PROCS)
    add_test(NAME ${ARG_NAME}.np${np}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS}
                     $<TARGET_FILE:${target}> ${ARG_ARGS} ${MPIEXEC_POSTFLAGS})
    set_tests_properties(${ARG_NAME}.np${np} PROPERTIES TIMEOUT ${ARG_TIMEOUT} PROCESSORS 2 LABELS "${ARG_LABELS}"
                                                        ENVIRONMENT "${ARG_ENVIRONMENT}")
  endforeach()
endfunction()

# Registers an MPI test made by distopo_add_mpi_test again, as <name>.np<n>,
# with more environment (ENVIRONMENT: NAME=VALUE entries, after the usual
# ones) and program arguments (ARGS): the same test under another setting.
function(distopo_add_mpi_test_variant target name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "PROCS;ENVIRONMENT;ARGS" ${ARGN})
  _distopo_register_mpi_runs(${target} NAME ${name} PROCS ${ARG_PROCS} TIMEOUT ${ARG_TIMEOUT} LABELS mpi
                             ENVIRONMENT ${DISTOPO_MPI_TEST_ENV} ${ARG_ENVIRONMENT} ARGS ${ARG_ARGS})
endfunction()

function(distopo_add_unit_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE GTest::gtest_main ${ARG_LIBS} distopo_warnings)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${DISTOPO_TEST_TIMEOUT} LABELS "unit")
endfunction()

function(distopo_add_mpi_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;PROCS;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE distopo_mpi_gtest_main ${ARG_LIBS} distopo_warnings)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  _distopo_register_mpi_runs(${name} PROCS ${ARG_PROCS} TIMEOUT ${ARG_TIMEOUT} LABELS mpi
                             ENVIRONMENT ${DISTOPO_MPI_TEST_ENV})
endfunction()

function(distopo_add_capi_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;PROCS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE C)
  target_compile_options(${name} PRIVATE -Wall -Wextra)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${name} PRIVATE MPI::MPI_C ${CMAKE_DL_LIBS} m)
  add_dependencies(${name} distopo_capi distopo_ucx_yield)
  _distopo_register_mpi_runs(${name} PROCS ${ARG_PROCS} TIMEOUT ${ARG_TIMEOUT} LABELS capi mpi
                             ENVIRONMENT ${DISTOPO_CAPI_TEST_ENV})
endfunction()

# The source is an object library outside `all`; the test builds it.
function(distopo_add_compile_fail_test name)
  cmake_parse_arguments(ARG "" "SOURCE;ERROR" "LIBS" ${ARGN})
  add_library(${name}_probe OBJECT EXCLUDE_FROM_ALL ${ARG_SOURCE})
  target_link_libraries(${name}_probe PRIVATE ${ARG_LIBS})
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} --build ${PROJECT_BINARY_DIR} --target ${name}_probe)
  set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${ARG_ERROR}" TIMEOUT ${DISTOPO_TEST_TIMEOUT}
                                          LABELS "unit")
endfunction()

function(distopo_add_script_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "COMMAND;LABELS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT ${DISTOPO_TEST_TIMEOUT})
  endif()
  add_test(NAME ${name} COMMAND ${ARG_COMMAND})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS "${ARG_LABELS}" PROCESSORS 2
                                          ENVIRONMENT "${DISTOPO_MPI_TEST_ENV}")
endfunction()
