// Which remote blocks take the relays (collect_groups, neighbor/src/
// exchange.hpp): blocks of at most the limit, unless their group's relayed
// bytes would not fit the 32-bit length of the relays' headers; then the
// whole group goes direct. Sizes come from datatypes alone, so blocks of
// gigabytes cost no memory here.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "exchange.hpp"

namespace {

using distopo::detail::Block;
using distopo::detail::collect_groups;
using distopo::detail::GroupBlocks;
using distopo::detail::kMaxRelayedGroupBytes;
using distopo::detail::RemoteGroup;

// A datatype of `bytes` bytes (freed with the fixture).
class Sizes : public ::testing::Test {
 protected:
  MPI_Datatype bytes_type(MPI_Count bytes) {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    EXPECT_EQ(MPI_Type_contiguous_c(bytes, MPI_BYTE, &type), MPI_SUCCESS);
    MPI_Type_commit(&type);
    types_.push_back(type);
    return type;
  }
  ~Sizes() override {
    for (MPI_Datatype& type : types_) MPI_Type_free(&type);
  }

 private:
  std::vector<MPI_Datatype> types_;
};

// Groups of the given block sizes (bytes), every slot its own block.
GroupBlocks collect(const std::vector<std::vector<MPI_Datatype>>& groups, std::uint64_t limit) {
  std::vector<RemoteGroup> remote;
  std::vector<MPI_Datatype> types;
  for (const auto& g : groups) {
    RemoteGroup group;
    for (MPI_Datatype type : g) {
      group.slots.push_back(static_cast<int>(types.size()));
      types.push_back(type);
    }
    remote.push_back(group);
  }
  GroupBlocks out;
  collect_groups(
      remote,
      [&](int slot) {
        return Block{nullptr, 1, types[static_cast<std::size_t>(slot)]};
      },
      limit, out);
  return out;
}

TEST_F(Sizes, BlocksAboveTheLimitGoDirect) {
  const GroupBlocks g = collect({{bytes_type(8), bytes_type(300), bytes_type(256)}, {bytes_type(0)}}, 256);
  EXPECT_EQ(g.relayed, (std::vector<char>{1, 0, 1, 1}));
  EXPECT_EQ(g.first, (std::vector<std::size_t>{0, 3, 4}));
  EXPECT_EQ(g.relayed_blocks, (std::vector<std::uint32_t>{2, 1}));
  EXPECT_EQ(g.relayed_bytes, (std::vector<std::uint32_t>{264, 0}));
}

TEST_F(Sizes, AGroupWhoseRelayedBytesExceedTheHeaderGoesDirectWhole) {
  const MPI_Count three_gib = MPI_Count{3} << 30;
  const auto over = static_cast<MPI_Count>(kMaxRelayedGroupBytes) + 1;
  const GroupBlocks g = collect({{bytes_type(three_gib)},                         // 3 GiB: fits
                                 {bytes_type(three_gib), bytes_type(8)},          // 3 GiB + 8: fits
                                 {bytes_type(three_gib), bytes_type(three_gib)},  // 6 GiB: direct
                                 {bytes_type(8), bytes_type(over - 8)}},          // one byte over
                                UINT64_MAX);
  EXPECT_EQ(g.relayed, (std::vector<char>{1, 1, 1, 0, 0, 0, 0}));
  EXPECT_EQ(g.relayed_blocks, (std::vector<std::uint32_t>{1, 2, 0, 0}));
  EXPECT_EQ(g.relayed_bytes, (std::vector<std::uint32_t>{3U << 30, (3U << 30) + 8, 0, 0}));
  // The bound itself still fits.
  const GroupBlocks at = collect({{bytes_type(static_cast<MPI_Count>(kMaxRelayedGroupBytes))}}, UINT64_MAX);
  EXPECT_EQ(at.relayed, (std::vector<char>{1}));
  EXPECT_EQ(at.relayed_bytes, (std::vector<std::uint32_t>{static_cast<std::uint32_t>(kMaxRelayedGroupBytes)}));
  // Blocks above the limit do not count toward the group's relayed bytes.
  const GroupBlocks limited = collect({{bytes_type(three_gib), bytes_type(three_gib), bytes_type(8)}}, 256);
  EXPECT_EQ(limited.relayed, (std::vector<char>{0, 0, 1}));
  EXPECT_EQ(limited.relayed_blocks, (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(limited.relayed_bytes, (std::vector<std::uint32_t>{8}));
}

}  // namespace
