# capi/: C programs against libdistopo_mpi.so (MPICH's own suite runs from
# scripts/mpich_test_suite.sh).
distopo_add_capi_test(capi_reaches_distopo SOURCES capi/reaches_distopo.c)
distopo_add_capi_test(capi_errors SOURCES capi/errors.c)
distopo_add_capi_test(capi_native_mirror SOURCES capi/native_mirror.c)
distopo_add_capi_test(capi_standard_examples SOURCES capi/standard_examples.c)
# Neighborhood collectives' requests, errors and arguments (issue 13).
distopo_add_capi_test(capi_requests SOURCES capi/requests.c)
distopo_add_capi_test(capi_request_status SOURCES capi/request_status.c)
distopo_add_capi_test(capi_collective_errors SOURCES capi/collective_errors.c)
distopo_add_capi_test(capi_negative_displacements SOURCES capi/negative_displacements.c)
distopo_add_capi_test(capi_large_count SOURCES capi/large_count.c)
