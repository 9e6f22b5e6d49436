#pragma once
// Channels shared by communicators over the same group in the same rank
// order, for traffic told apart by tag (the neighborhood collectives). MPI
// has a fixed number of communicators (MPICH 4.0: 2048 context ids), so one
// private channel per topology communicator would halve what a program can
// keep alive. Instead every communicator knows its family: a topology
// communicator whose ranks are its parent's, in the same order, and every
// MPI_Comm_dup of a topology communicator of the family belong to the
// parent's family (a duplicate of a communicator without topology starts its
// own: those are what programs give to threads, docs/guide/threads.md). A member
// leases a range of tags on the family's channel at its first use (or in its
// constructor's agreement, LeaseOffer, where the family has a channel with
// room); a channel
// holds 2048 ranges (or fewer when MPI_TAG_UB is small) and is made when the
// family's first lease needs it. Ranges are never handed out twice: a full
// channel is replaced by a new one and freed with its last lease, so the
// messages of a freed communicator's outstanding or persistent operations
// never meet a newer lease's.
#include <mpi.h>

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "distopo/core/node_layout.hpp"

namespace distopo {

namespace detail {
struct SharedChannel;
}

// A tag range on a shared channel; the channel lives as long as its leases.
class ChannelLease {
 public:
  ChannelLease() = default;
  ChannelLease(std::shared_ptr<const detail::SharedChannel> channel, int first_tag, int tag_count) noexcept
      : channel_(std::move(channel)), first_tag_(first_tag), tag_count_(tag_count) {}

  // The channel (MPI_ERRORS_RETURN, no user attributes) and the tags
  // first_tag() .. first_tag() + tag_count() - 1 that belong to this lease.
  [[nodiscard]] MPI_Comm get() const noexcept;
  [[nodiscard]] int first_tag() const noexcept { return first_tag_; }
  [[nodiscard]] int tag_count() const noexcept { return tag_count_; }

 private:
  std::shared_ptr<const detail::SharedChannel> channel_;
  int first_tag_ = 0;
  int tag_count_ = 0;
};

// Local. Records that `derived` has the group of `parent` in the same rank
// order, so its leases come from the channels of `parent`'s family. Every
// rank must decide the same (constructors decide from agreed values).
void share_channels(MPI_Comm parent, MPI_Comm derived);

// Collective over `comm`: agrees on the next range of `comm`'s family in one
// allreduce of two ints, and creates the channel (from `comm`, without its
// attributes) when the family has none with room. Members of one family must
// take their leases in the same order on every rank, which holds when their
// first neighborhood collectives are called in the same order; otherwise
// every rank throws MPI_ERR_OTHER. `also_max` rides on the same allreduce
// (MPI_MAX, in place), so a caller with its own values to agree on the
// first use of `comm` pays one collective, not two.
ChannelLease lease_channel(MPI_Comm comm, const char* caller, std::span<long long> also_max = {});

// The environment variables that set a topology communicator's neighborhood
// collectives (neighbor/src/engine.cpp reads them; a constructor that takes
// the lease takes a snapshot of them, below).
inline constexpr std::array<const char*, 3> kNeighborSettingsEnv = {
    "DISTOPO_NEIGHBOR_ALGORITHM", "DISTOPO_NEIGHBOR_AGGREGATE_MAX_BYTES", kRanksPerNodeEnv};
using SettingsEnvironment = std::array<std::optional<std::string>, kNeighborSettingsEnv.size()>;

// A constructor's offer to take its result's lease inside the constructor's
// own agreement step, so that the first neighborhood collective on the result
// needs no allreduce of its own (with many threads on few cores each round
// costs time slices). Made before the agreement from the family of the
// parent and the settings in the environment; values() ride on the
// agreement's MPI_MAX reduction. After it, take() gives the result the lease
// where every rank offered the same lease on a channel with room and the same
// settings environment; otherwise the result leases at its first collective,
// as any communicator does. A channel is never opened here: that would cost
// every program a communicator copy at its first constructor.
class LeaseOffer {
 public:
  static constexpr std::size_t kValues = 9;

  LeaseOffer() noexcept { values_[0] = 1; }  // offers nothing
  // Local. `parent`: the communicator whose group, in its rank order, the result will have.
  explicit LeaseOffer(MPI_Comm parent);

  [[nodiscard]] std::span<int> values() noexcept { return values_; }

  // Local, after the reduction: `result` (which share_channels made a member
  // of the parent's family) gets the lease if every rank offered it.
  void take(MPI_Comm result) const;

 private:
  std::array<int, kValues> values_{};
  SettingsEnvironment environment_;
};

// What the first collective on a communicator finds when its constructor took
// its lease: the lease, the settings environment as it was then, and the
// family's node count if every rank knew the same, 1 if every rank runs on
// one host (host_fingerprint), 0 otherwise.
struct PrepaidLease {
  ChannelLease lease;
  SettingsEnvironment environment;
  int node_count = 0;
};

// Local: removes `comm`'s prepaid lease and returns it, if it has one.
std::optional<PrepaidLease> take_prepaid_lease(MPI_Comm comm);

// The machine nodes of the family's group (MPI_Comm_split_type's), as a
// member found them: their count, 0 until one did. Local: ranks may differ
// (members used in different orders), so callers agree before relying on it.
int family_node_count(MPI_Comm comm);
void remember_family_node_count(MPI_Comm comm, int node_count);

}  // namespace distopo
