/* Address space for the out-of-memory tests: a rank limits what it may still
 * map (RLIMIT_AS) to what it has mapped plus some headroom, so that the
 * library's next large allocation fails there as on a machine out of memory. */
#ifndef DISTOPO_CAPI_ADDRESS_SPACE_H
#define DISTOPO_CAPI_ADDRESS_SPACE_H

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* Bytes this process has mapped now (/proc/self/statm), 0 if unknown. */
static inline rlim_t mapped_bytes(void) {
  unsigned long pages = 0;
  FILE* statm = fopen("/proc/self/statm", "r");
  if (statm != NULL) {
    if (fscanf(statm, "%lu", &pages) != 1) pages = 0;
    fclose(statm);
  }
  return (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
}

#endif
