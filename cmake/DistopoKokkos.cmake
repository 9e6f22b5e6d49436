# Finds Kokkos: Debian's (libtrilinos-kokkos-dev 3.4, Serial only) or one
# named with -DKokkos_ROOT=<prefix> (e.g. the OpenMP build of
# scripts/setup/kokkos_openmp.sh), which is then used as is. The installed package
# config passes DISTOPO_KOKKOS_DIR, the Kokkos distopo was built with, as a
# hint so that consumers link that same Kokkos.
#
# Debian's exported target names the include directory <prefix>/include,
# which for the Debian layout resolves to /usr/lib/include and does not exist;
# the headers live in /usr/include/trilinos. Only a target whose include
# directory is missing is repaired here (rather than editing system files).
find_package(Kokkos REQUIRED HINTS ${DISTOPO_KOKKOS_DIR})

get_target_property(_distopo_kokkos_includes Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
set(_distopo_kokkos_repair FALSE)
foreach(_dir IN LISTS _distopo_kokkos_includes)
  if(NOT EXISTS "${_dir}")
    set(_distopo_kokkos_repair TRUE)
  endif()
endforeach()
if(NOT _distopo_kokkos_includes)
  set(_distopo_kokkos_repair TRUE)
endif()

if(_distopo_kokkos_repair)
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
endif()

# The core library (what pkg-config consumers link): Kokkos' own name, or
# Trilinos' for Debian's build.
if(TARGET Kokkos::kokkoscore)
  set(_distopo_kokkos_core Kokkos::kokkoscore)
else()
  set(_distopo_kokkos_core trilinos_kokkoscore)
endif()

# Where a shared Kokkos outside the linker's default directories (a
# -DKokkos_ROOT build) is found at run time: installed binaries and pkg-config
# users get it as an rpath. Empty for a system directory, where an rpath
# would take precedence over LD_LIBRARY_PATH for every library, MPI's too.
set(DISTOPO_KOKKOS_RUNTIME_DIR "")
get_target_property(_distopo_kokkos_type ${_distopo_kokkos_core} TYPE)
if(_distopo_kokkos_type STREQUAL "SHARED_LIBRARY")
  foreach(_property IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION_NOCONFIG IMPORTED_LOCATION)
    get_target_property(_location ${_distopo_kokkos_core} ${_property})
    if(_location AND NOT DISTOPO_KOKKOS_RUNTIME_DIR)
      get_filename_component(DISTOPO_KOKKOS_RUNTIME_DIR "${_location}" DIRECTORY)
    endif()
  endforeach()
  if(DISTOPO_KOKKOS_RUNTIME_DIR IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
    set(DISTOPO_KOKKOS_RUNTIME_DIR "")
  endif()
endif()
message(STATUS "distopo: Kokkos ${Kokkos_VERSION} (${Kokkos_DEVICES}) from ${Kokkos_DIR}, headers in ${_distopo_kokkos_includes}")
