# METIS from Debian (libmetis-dev 5.1, no MPI dependency): the partitioner of
# the distributed-graph reordering. Imported as distopo_metis so the installed
# package can name it too.
if(NOT TARGET distopo_metis)
  find_path(DISTOPO_METIS_INCLUDE_DIR metis.h REQUIRED)
  find_library(DISTOPO_METIS_LIBRARY metis REQUIRED)
  add_library(distopo_metis UNKNOWN IMPORTED)
  set_target_properties(distopo_metis PROPERTIES IMPORTED_LOCATION "${DISTOPO_METIS_LIBRARY}"
                                                 INTERFACE_INCLUDE_DIRECTORIES "${DISTOPO_METIS_INCLUDE_DIR}")
endif()
