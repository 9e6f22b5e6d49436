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
// leases a range of tags on the family's channel at its first use; a channel
// holds 2048 ranges (or fewer when MPI_TAG_UB is small) and is made when the
// family's first lease needs it. Ranges are never handed out twice: a full
// channel is replaced by a new one and freed with its last lease, so the
// messages of a freed communicator's outstanding or persistent operations
// never meet a newer lease's.
#include <mpi.h>

#include <memory>
#include <span>

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

// The machine nodes of the family's group (MPI_Comm_split_type's), as a
// member found them: their count, 0 until one did. Local: ranks may differ
// (members used in different orders), so callers agree before relying on it.
int family_node_count(MPI_Comm comm);
void remember_family_node_count(MPI_Comm comm, int node_count);

}  // namespace distopo
