# cmake --install: headers, the C++ libraries, the C API library
# (libdistopo_mpi.so), a CMake package (find_package(distopo) gives
# distopo::core, ::mapping, ::cart, ::graph, ::distgraph, ::neighbor, ::capi) and
# pkg-config files (distopo.pc for the C++ API, distopo-mpi.pc for the C API).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

foreach(_module core mapping cart graph distgraph neighbor capi)
  set_target_properties(distopo_${_module} PROPERTIES EXPORT_NAME ${_module})
endforeach()

install(TARGETS distopo_core distopo_mapping distopo_cart distopo_graph distopo_distgraph distopo_neighbor distopo_capi
        EXPORT distopoTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(_module core mapping cart graph distgraph neighbor)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_module}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()

set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/distopo)
install(EXPORT distopoTargets NAMESPACE distopo:: DESTINATION ${_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/distopoConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/distopoConfig.cmake INSTALL_DESTINATION ${_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/distopoConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/distopoConfig.cmake ${PROJECT_BINARY_DIR}/distopoConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/DistopoKokkos.cmake ${PROJECT_SOURCE_DIR}/cmake/DistopoMetis.cmake
        DESTINATION ${_cmake_dir})

# pkg-config: relocatable (prefix found from the .pc file's own directory);
# Kokkos' headers and library as this build found them.
file(RELATIVE_PATH DISTOPO_PC_UP "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" DISTOPO_PC_UP "${DISTOPO_PC_UP}")
set(DISTOPO_PC_KOKKOS_CFLAGS "")
foreach(_dir IN LISTS _distopo_kokkos_includes)
  string(APPEND DISTOPO_PC_KOKKOS_CFLAGS " -I${_dir}")
endforeach()
set(DISTOPO_PC_KOKKOS_LIBS "$<TARGET_LINKER_FILE:${_distopo_kokkos_core}>")
# A Kokkos outside the linker's default directories (a -DKokkos_ROOT build)
# is found at run time through an rpath; an OpenMP build needs -fopenmp.
if(DISTOPO_KOKKOS_RUNTIME_DIR)
  string(APPEND DISTOPO_PC_KOKKOS_LIBS " -Wl,-rpath,${DISTOPO_KOKKOS_RUNTIME_DIR}")
endif()
if("OPENMP" IN_LIST Kokkos_DEVICES)
  string(APPEND DISTOPO_PC_KOKKOS_CFLAGS " -fopenmp")
  string(APPEND DISTOPO_PC_KOKKOS_LIBS " -fopenmp")
endif()
set(DISTOPO_PC_NATIVE_TOPOLOGY $<BOOL:${DISTOPO_NATIVE_TOPOLOGY}>)
foreach(_pc distopo distopo-mpi)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${_pc}.pc.in ${PROJECT_BINARY_DIR}/${_pc}.pc.in @ONLY)
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/${_pc}.pc INPUT ${PROJECT_BINARY_DIR}/${_pc}.pc.in)
  install(FILES ${PROJECT_BINARY_DIR}/${_pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
