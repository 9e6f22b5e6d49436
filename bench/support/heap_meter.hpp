#pragma once
// Live heap bytes of this process, counted by replacing malloc and friends in
// the executable (glibc lets a program do that; see heap_meter.cpp). MPICH,
// UCX, Kokkos and the C++ runtime all allocate through malloc, so their
// arrays are seen too: the peak during a call is measured, not computed.
#include <cstddef>

namespace heap_meter {

// Bytes currently allocated.
std::size_t live_bytes();
// Starts a new measurement: the peak becomes the current live bytes, which
// are returned (the baseline).
std::size_t reset_peak();
// The highest live bytes since the last reset_peak().
std::size_t peak_bytes();

}  // namespace heap_meter
