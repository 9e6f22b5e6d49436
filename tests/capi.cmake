# capi/: C programs against libdistopo_mpi.so (MPICH's own suite runs from
# scripts/mpich_test_suite.sh).
distopo_add_capi_test(capi_reaches_distopo SOURCES capi/reaches_distopo.c)
distopo_add_capi_test(capi_errors SOURCES capi/errors.c)
distopo_add_capi_test(capi_native_mirror SOURCES capi/native_mirror.c)
distopo_add_capi_test(capi_standard_examples SOURCES capi/standard_examples.c)
distopo_add_capi_test(capi_reorder SOURCES capi/reorder.c PROCS ${DISTOPO_TEST_PROCS} 16)
