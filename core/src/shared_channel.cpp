#include "distopo/core/shared_channel.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "distopo/core/argument_agreement.hpp"
#include "distopo/core/comm.hpp"
#include "distopo/core/comm_cache.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/runtime.hpp"
#include "distopo/core/topology.hpp"

namespace distopo {

namespace detail {
struct SharedChannel {
  Comm comm;
};
}  // namespace detail

namespace {

constexpr int kRangesPerChannel = 2048;
// Below this many tags per range a channel holds fewer ranges instead (MPI
// only promises MPI_TAG_UB >= 32767).
constexpr int kMinTagsPerRange = 1024;

struct Family {
  std::mutex mutex;
  long long leases = 0;  // ranges handed out in this family so far: the same on every rank
  std::shared_ptr<const detail::SharedChannel> current;  // the channel of the latest lease
  long long current_first = 0;                           // the lease that opened `current`
  int ranges = 0;                                        // ranges `current` holds
  int range_size = 0;                                    // tags per range on `current`
  int node_count = 0;  // machine nodes of the group, once a member found them (0: not yet)
};
using FamilyRef = std::shared_ptr<Family>;

// MPI_Comm_dup of a topology communicator joins its family: that is how a
// program keeps many copies of one topology alive. A copy of a communicator
// without topology (MPI_COMM_WORLD after a topology was made from it) starts
// a family of its own: such copies are what a program hands to its threads
// or libraries, which lease channels concurrently and in no agreed order.
int copy_family(MPI_Comm old_comm, int, void*, void* attribute_in, void* attribute_out, int* flag) {
  bool topology = false;
  try {
    topology = find_topology(old_comm) != nullptr;
  } catch (const Error&) {
    topology = false;
  }
  if (!topology) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  auto* copy = new (std::nothrow) FamilyRef(*static_cast<FamilyRef*>(attribute_in));
  if (copy == nullptr) return MPI_ERR_NO_MEM;
  *static_cast<void**>(attribute_out) = copy;
  *flag = 1;
  return MPI_SUCCESS;
}

// MPI_Comm_dup keeps the group and the rank order: the duplicate joins the family.
constinit const RuntimeKeyval family_keyval{copy_family, detail::delete_cached<FamilyRef>};

void set_family(MPI_Comm comm, FamilyRef family) {
  auto attribute = std::make_unique<FamilyRef>(std::move(family));
  check_mpi(PMPI_Comm_set_attr(comm, family_keyval.get(), attribute.get()), "MPI_Comm_set_attr");
  attribute.release();  // owned by the attribute now (delete_family)
}

// `comm`'s family, null where it has none yet.
FamilyRef find_family(MPI_Comm comm) {
  void* attribute = nullptr;
  int found = 0;
  check_mpi(PMPI_Comm_get_attr(comm, family_keyval.get(), &attribute, &found), "MPI_Comm_get_attr");
  return found ? *static_cast<FamilyRef*>(attribute) : nullptr;
}

FamilyRef family_of(MPI_Comm comm) {
  if (FamilyRef found = find_family(comm)) return found;
  auto family = std::make_shared<Family>();
  set_family(comm, family);
  return family;
}

// Collective over `comm`: a new channel for `family`, opened by lease `first`.
void open_channel(MPI_Comm comm, Family& family, long long first) {
  auto channel = std::make_shared<detail::SharedChannel>();
  channel->comm = private_copy(comm);
  int* tag_ub = nullptr;
  int found = 0;
  check_mpi(PMPI_Comm_get_attr(channel->comm, MPI_TAG_UB, &tag_ub, &found), "MPI_Comm_get_attr");
  const int usable = found ? *tag_ub : 32767;  // tags 1 .. usable
  int range_size = usable / kRangesPerChannel;
  if (range_size < kMinTagsPerRange) range_size = std::min(kMinTagsPerRange, usable);
  const std::lock_guard lock(family.mutex);
  family.current = std::move(channel);
  family.current_first = first;
  family.range_size = range_size;
  family.ranges = std::min(kRangesPerChannel, usable / range_size);
}

// The lease a constructor took for its result (LeaseOffer::take), until the
// result's first collective takes it over. Not copied by MPI_Comm_dup: a copy
// takes a lease of its own.
constinit const RuntimeKeyval prepaid_keyval{MPI_COMM_NULL_COPY_FN, detail::delete_cached<PrepaidLease>};

// LeaseOffer's values, reduced with MPI_MAX: each with its negation, so that
// equal on every rank reads value == -negation.
enum OfferSlot { kNotOffered, kLease, kMinusLease, kLow, kMinusLow, kHigh, kMinusHigh, kNodes, kMinusNodes };

bool same_everywhere(std::span<const int> values, OfferSlot slot) { return values[slot] == -values[slot + 1]; }

}  // namespace

LeaseOffer::LeaseOffer(MPI_Comm parent) {
  const FamilyRef family = find_family(parent);
  if (!family) {
    values_[kNotOffered] = 1;  // no channel yet: opening one is the first collective's
    return;
  }
  for (std::size_t i = 0; i < kNeighborSettingsEnv.size(); ++i) {
    if (const char* text = std::getenv(kNeighborSettingsEnv[i])) environment_[i] = text;
  }
  detail::Fingerprint settings;
  for (const auto& value : environment_) {
    settings.add(value ? 1 : 0);
    if (value) {
      settings.add(static_cast<std::int64_t>(value->size()));
      for (char c : *value) settings.add(static_cast<unsigned char>(c));
    }
  }
  long long lease = 0;
  bool room = false;
  int known_nodes = 0;
  {
    const std::lock_guard lock(family->mutex);
    lease = family->leases;
    // A new channel would have to be opened (collective): that stays with the first collective.
    room = family->current && lease - family->current_first < family->ranges;
    known_nodes = family->node_count;
  }
  const int nodes = node_count_offer(known_nodes);
  values_ = {room && lease < INT_MAX ? 0 : 1,
             static_cast<int>(std::min<long long>(lease, INT_MAX)),
             -static_cast<int>(std::min<long long>(lease, INT_MAX)),
             settings.low(),
             -settings.low(),
             settings.high(),
             -settings.high(),
             nodes,
             -nodes};
}

void LeaseOffer::take(MPI_Comm result) const {
  const std::span<const int> agreed = values_;
  if (agreed[kNotOffered] != 0 || !same_everywhere(agreed, kLease) || !same_everywhere(agreed, kLow) ||
      !same_everywhere(agreed, kHigh)) {
    return;
  }
  const FamilyRef family = find_family(result);
  if (!family) return;
  auto prepaid = std::make_unique<PrepaidLease>();
  prepaid->node_count = agreed_node_count(agreed[kNodes], agreed[kMinusNodes]);
  {
    const std::lock_guard lock(family->mutex);
    if (!family->current) return;  // no channel: `result` is not in the family the offer was made in
    if (family->node_count == 0) family->node_count = prepaid->node_count;  // agreed: the same on every rank
    const long long lease = agreed[kLease];
    family->leases = lease + 1;
    const auto range = static_cast<int>(lease - family->current_first);
    prepaid->lease = {family->current, 1 + range * family->range_size, family->range_size};
  }
  prepaid->environment = environment_;
  check_mpi(PMPI_Comm_set_attr(result, prepaid_keyval.get(), prepaid.get()), "MPI_Comm_set_attr");
  prepaid.release();  // owned by the attribute now
}

std::optional<PrepaidLease> take_prepaid_lease(MPI_Comm comm) {
  PrepaidLease* prepaid = detail::find_cached<PrepaidLease>(comm, prepaid_keyval);
  if (prepaid == nullptr) return std::nullopt;
  std::optional<PrepaidLease> taken(std::move(*prepaid));
  check_mpi(PMPI_Comm_delete_attr(comm, prepaid_keyval.get()), "MPI_Comm_delete_attr");
  return taken;
}

MPI_Comm ChannelLease::get() const noexcept { return channel_ ? channel_->comm.get() : MPI_COMM_NULL; }

void share_channels(MPI_Comm parent, MPI_Comm derived) { set_family(derived, family_of(parent)); }

ChannelLease lease_channel(MPI_Comm comm, const char* caller, std::span<long long> also_max) {
  const FamilyRef family = family_of(comm);
  long long local = 0;
  {
    const std::lock_guard lock(family->mutex);
    local = family->leases;
  }
  std::vector<long long> counts{local, -local};
  counts.insert(counts.end(), also_max.begin(), also_max.end());
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()), MPI_LONG_LONG, MPI_MAX, comm),
            "MPI_Allreduce");
  std::copy(counts.begin() + 2, counts.end(), also_max.begin());
  if (counts[0] != -counts[1]) {
    throw Error(MPI_ERR_OTHER, std::string(caller) +
                                   ": communicators over the same group took their channels in different orders "
                                   "on different ranks (first neighborhood collectives on them called in "
                                   "different orders, or from several threads at once)");
  }
  // Every rank has the same family state here, so all of them open a channel or none.
  const long long lease = counts[0];
  bool full = false;
  {
    const std::lock_guard lock(family->mutex);
    full = !family->current || lease - family->current_first >= family->ranges;
  }
  if (full) open_channel(comm, *family, lease);
  const std::lock_guard lock(family->mutex);
  family->leases = lease + 1;
  const auto range = static_cast<int>(lease - family->current_first);
  return {family->current, 1 + range * family->range_size, family->range_size};
}

int family_node_count(MPI_Comm comm) {
  const FamilyRef family = family_of(comm);
  const std::lock_guard lock(family->mutex);
  return family->node_count;
}

void remember_family_node_count(MPI_Comm comm, int node_count) {
  const FamilyRef family = family_of(comm);
  const std::lock_guard lock(family->mutex);
  family->node_count = node_count;
}

}  // namespace distopo
