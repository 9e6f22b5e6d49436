#pragma once
// The machine model's command-line options (machine_model.hpp), for the
// drivers that run on it; scripts/smpi/neighbor_model.sh passes them.
#include <CLI/CLI.hpp>

#include "machine_model.hpp"

namespace smpi_bench {

inline void add_machine_model_options(CLI::App& app, MachineModel& model) {
  app.add_option("--network-overhead", model.network_overhead, "s per message between hosts, each end");
  app.add_option("--shm-overhead", model.shm_overhead, "s per message within a host, each end");
  app.add_option("--copy-bandwidth", model.copy_bandwidth, "bytes/s of a copy (0: free)");
  app.add_option("--wire-bytes", model.wire_bytes, "bytes each network message adds in its NIC's queue");
  app.add_option("--loopback-bandwidth", model.loopback_bandwidth, "the platform's loopback bytes/s");
  app.add_option("--nic-bandwidth", model.nic_bandwidth, "bytes/s of a host's NIC queue");
  app.add_option("--hop-latency", model.hop_latency, "s per fat-tree hop");
  app.add_option("--eager-limit", model.eager_limit, "smpi/send-is-detached-thresh of the run");
}

}  // namespace smpi_bench
