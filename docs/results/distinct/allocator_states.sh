# glibc's allocator states of the distinct-ends study, as GLIBC_TUNABLES
# values (sourced by allocator_conditions.sh and by_source.sh):
#   default  as it comes (glibc's own thresholds)
#   warm     nothing ever given back (trim threshold 4 GB, mmap threshold
#            32 MiB): repeated creates reuse memory already touched
#   fresh    every block above 128 KiB a new mapping: every create touches
#            new pages, as the first create of a process does
declare -A tunables=(
  [default]=""
  [warm]="glibc.malloc.trim_threshold=4000000000:glibc.malloc.mmap_threshold=33554432"
  [fresh]="glibc.malloc.mmap_threshold=131072"
)
