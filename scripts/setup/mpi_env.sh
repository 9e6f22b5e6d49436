# Sourced by the other scripts: the environment every local MPI run gets.
# $1: the build directory holding lib/libdistopo_ucx_yield.so.
#
# MPICH's ch4:ucx busy-polls; with more ranks than cores that makes every
# exchange wait for time slices. The preloaded helper yields the CPU when a
# progress poll finds nothing, except inside MPI_Request_free, which waits for
# nothing (see tests/support/ucx_yield.c). UCX's shared-memory
# transports are all a single machine needs and start faster.
distopo_mpi_env() {
  local build_dir
  build_dir=$(cd "$1" && pwd) || return 1
  if [ ! -f "$build_dir/lib/libdistopo_ucx_yield.so" ]; then
    echo "mpi_env.sh: $build_dir/lib/libdistopo_ucx_yield.so is missing (build target distopo_ucx_yield);" \
         "without it oversubscribed ranks busy-poll and timings are meaningless" >&2
    return 1
  fi
  export LD_PRELOAD="$build_dir/lib/libdistopo_ucx_yield.so${LD_PRELOAD:+:$LD_PRELOAD}"
  export UCX_TLS=self,posix
  export UCX_WARN_UNUSED_ENV_VARS=n
}
