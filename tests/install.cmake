# The installed package: cmake --install, then a downstream CMake project
# (find_package), README's ring.cpp (pkg-config distopo) and a C program
# (pkg-config distopo-mpi) must build and run. Not in sanitizer builds: the
# installed static libraries carry ASan code.
if(NOT DISTOPO_SANITIZE)
  distopo_add_script_test(install_consumer
                          COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install_consumer/run.sh ${PROJECT_BINARY_DIR}
                                  ${CMAKE_CURRENT_SOURCE_DIR}/install_consumer
                                  ${CMAKE_CURRENT_BINARY_DIR}/install_consumer_scratch ${MPIEXEC_EXECUTABLE}
                          TIMEOUT 300 LABELS install)
endif()
