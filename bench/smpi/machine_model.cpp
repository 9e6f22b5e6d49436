#include "machine_model.hpp"

#include <smpi/smpi.h>

#include <mutex>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <string>

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
    // The effective rate is the flow's share of its links times this factor:
    // a factor S / (S + w) makes S bytes occupy every link like S + w bytes.
    simgrid::s4u::Engine::get_instance()->get_netzone_root()->get_network_model()->set_bw_factor_cb(
        [model, eager](double size, const simgrid::s4u::Host* source, const simgrid::s4u::Host* destination,
                       const std::vector<simgrid::s4u::Link*>&, const std::unordered_set<simgrid::s4u::NetZone*>&) {
          if (size <= 0) return 1.0;  // nothing to carry: only the latency counts
          if (source == destination) {
            // Eager: the copies are the endpoints' overheads, the loopback
            // only adds its latency. Rendezvous: one copy, as the transfer.
            if (eager(static_cast<std::size_t>(size)) || model.copy_bandwidth <= 0 || model.loopback_bandwidth <= 0)
              return 1.0;
            return model.copy_bandwidth / model.loopback_bandwidth;
          }
          return size / (size + model.wire_bytes);
        });
    // Links as the platform says (none of SMPI's default latency factors).
    simgrid::s4u::Engine::get_instance()->get_netzone_root()->get_network_model()->set_lat_factor_cb(
        [model](double, const simgrid::s4u::Host* source, const simgrid::s4u::Host* destination,
                const std::vector<simgrid::s4u::Link*>&, const std::unordered_set<simgrid::s4u::NetZone*>&) {
          return model.fat_tree_hops ? fat_tree_hops(source, destination) : 1.0;
        });
  });
}

}  // namespace smpi_bench
