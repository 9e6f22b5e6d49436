#pragma once
// A test binary that links failing_allocation.cpp replaces operator new so
// that one chosen allocation throws std::bad_alloc, for sweeping a failure
// through a code path. Counting starts at arm(); single-threaded callers.
namespace distopo::testing {

// Allocation number `failing` (0-based, from now) throws; -1: none fails,
// they are only counted.
void arm_failing_allocation(long failing);
void disarm_failing_allocation();
// Allocations made since arm_failing_allocation().
long allocations_counted();
// Whether the chosen allocation was made (and failed) since the last arm.
bool allocation_failed();

}  // namespace distopo::testing
