# Kokkos from Debian (libtrilinos-kokkos-dev 3.4). Its exported target names
# the include directory <prefix>/include, which for the Debian layout resolves
# to /usr/lib/include and does not exist; the headers live in
# /usr/include/trilinos. Repair the imported target here rather than editing
# system files. A Kokkos installed elsewhere (OpenMP, CUDA builds) is used as is.
find_package(Kokkos REQUIRED)

set(_distopo_kokkos_includes "")
foreach(_dir IN LISTS Kokkos_INCLUDE_DIRS)
  file(REAL_PATH "${_dir}" _real)
  if(EXISTS "${_real}/Kokkos_Core.hpp")
    list(APPEND _distopo_kokkos_includes "${_real}")
  endif()
endforeach()
if(NOT _distopo_kokkos_includes)
  find_path(_distopo_kokkos_header Kokkos_Core.hpp PATH_SUFFIXES trilinos REQUIRED)
  set(_distopo_kokkos_includes "${_distopo_kokkos_header}")
endif()

set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_distopo_kokkos_includes}")
message(STATUS "distopo: Kokkos ${Kokkos_VERSION}, headers in ${_distopo_kokkos_includes}")
