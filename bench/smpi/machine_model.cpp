#include "machine_model.hpp"

#include <smpi/smpi.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <string>
#include <unordered_map>

namespace smpi_bench {
namespace {

// h of a host named node-<100000 + h>, or -1.
long host_index(const simgrid::s4u::Host* host) {
  const std::string& name = host->get_name();
  if (name.rfind("node-", 0) != 0) return -1;
  return std::stol(name.substr(5)) - 100000;
}

// Links between two hosts in the fat tree of fat_tree_platform.sh.
double fat_tree_hops(const simgrid::s4u::Host* source, const simgrid::s4u::Host* destination) {
  const long a = host_index(source);
  const long b = host_index(destination);
  if (a < 0 || b < 0 || a == b) return 1.0;
  if (a / 32 == b / 32) return 2.0;
  if (a / 1024 == b / 1024) return 4.0;
  return 6.0;
}

}  // namespace

void install_machine_model(const MachineModel& model) {
  static std::once_flag installed;
  std::call_once(installed, [model] {
    const auto copy = [model](std::size_t bytes) {
      return model.copy_bandwidth > 0 ? static_cast<double>(bytes) / model.copy_bandwidth : 0.0;
    };
    const auto eager = [model](std::size_t bytes) { return bytes < model.eager_limit; };
    // Sends: MPI_Isend (ISEND) and blocking or persistent sends (SEND) alike.
    const auto send_cost = [model, copy, eager](std::size_t bytes, simgrid::s4u::Host* source,
                                                simgrid::s4u::Host* destination) {
      if (source == destination) return model.shm_overhead + (eager(bytes) ? copy(bytes) : 0.0);
      return model.network_overhead + (eager(bytes) ? copy(bytes) : 0.0);
    };
    smpi_register_op_cost_callback(SmpiOperation::ISEND, send_cost);
    smpi_register_op_cost_callback(SmpiOperation::SEND, send_cost);
    // SMPI calls this for eager messages only.
    smpi_register_op_cost_callback(SmpiOperation::RECV, [model, copy](std::size_t bytes, simgrid::s4u::Host* source,
                                                                      simgrid::s4u::Host* destination) {
      return (source == destination ? model.shm_overhead : model.network_overhead) + copy(bytes);
    });
    // Between hosts the platform's link carries the bytes in no time: the
    // time a message spends leaving its node is its place in the node's NIC
    // queue plus its own bytes, added to its latency when it starts.
    auto nic_free = std::make_shared<std::unordered_map<const simgrid::s4u::Host*, double>>();
    auto* network = simgrid::s4u::Engine::get_instance()->get_netzone_root()->get_network_model();
    network->set_lat_factor_cb([model, nic_free](double size, const simgrid::s4u::Host* source,
                                                 const simgrid::s4u::Host* destination,
                                                 const std::vector<simgrid::s4u::Link*>& links,
                                                 const std::unordered_set<simgrid::s4u::NetZone*>&) {
      double route_latency = 0;
      for (const simgrid::s4u::Link* link : links) route_latency += link->get_latency();
      if (source == destination || route_latency <= 0 || model.nic_bandwidth <= 0) return 1.0;
      const double now = simgrid::s4u::Engine::get_clock();
      double& free = (*nic_free)[source];
      free = std::max(free, now) + (size + model.wire_bytes) / model.nic_bandwidth;
      return (fat_tree_hops(source, destination) * model.hop_latency + (free - now)) / route_latency;
    });
    // Within a host an eager message's copies are the two ranks' overheads
    // and the loopback adds only its latency; a rendezvous message is one
    // copy, as the transfer.
    network->set_bw_factor_cb(
        [model, eager](double size, const simgrid::s4u::Host* source, const simgrid::s4u::Host* destination,
                       const std::vector<simgrid::s4u::Link*>&, const std::unordered_set<simgrid::s4u::NetZone*>&) {
          if (source != destination || size <= 0 || eager(static_cast<std::size_t>(size)) ||
              model.copy_bandwidth <= 0 || model.loopback_bandwidth <= 0)
            return 1.0;
          return model.copy_bandwidth / model.loopback_bandwidth;
        });
  });
}

}  // namespace smpi_bench
