// cart_create, cart_map and cart_sub: validate locally, agree once, then one
// MPI_Comm_split builds the new communicator (key = the new rank).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "distopo/cart.hpp"
#include "distopo/core/argument_agreement.hpp"
#include "distopo/core/grid.hpp"
#include "distopo/core/node_layout.hpp"
#include "distopo/core/runtime.hpp"
#include "distopo/core/shared_channel.hpp"
#include "distopo/mapping/placement.hpp"
#include "install_topology.hpp"

namespace distopo {
namespace {

using detail::identity_placement;
using detail::Placement;

// The grid as validated input.
struct Grid {
  std::vector<int> dims;
  std::vector<Periodicity> periods;
  std::int64_t size = 1;
};

// Checks the standard's arrays; fills `grid` when they are valid.
std::optional<LocalError> read_grid(const char* caller, int ndims, const int dims[], const int periods[],
                                    int too_large_class, int rank, int size, Grid& grid) {
  if (ndims < 0) return rank_error(MPI_ERR_ARG, caller, rank, "ndims = " + std::to_string(ndims) + " is negative");
  if (ndims > 0 && (dims == nullptr || periods == nullptr)) {
    return rank_error(MPI_ERR_ARG, caller, rank, "dims or periods is NULL with ndims = " + std::to_string(ndims));
  }
  grid.dims.assign(dims, dims + ndims);
  grid.periods.resize(static_cast<std::size_t>(ndims));
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 1) {
      return rank_error(MPI_ERR_DIMS, caller, rank,
                        "dims[" + std::to_string(i) + "] = " + std::to_string(dims[i]) + " is not positive");
    }
    grid.periods[static_cast<std::size_t>(i)] = periodicity_of(periods[i]);
    grid.size *= dims[i];
    if (grid.size > size) {
      std::string shape;
      for (int j = 0; j <= i; ++j) shape += (j ? "x" : "") + std::to_string(dims[j]);
      return rank_error(too_large_class, caller, rank,
                        "the grid (" + shape + (i + 1 < ndims ? "x..." : "") + ") has more than the " +
                            std::to_string(size) + " processes of the communicator");
    }
  }
  return std::nullopt;
}

detail::Fingerprint grid_fingerprint(const Grid& grid, bool reorder) {
  detail::Fingerprint fingerprint;
  fingerprint.add(grid.dims);
  for (Periodicity p : grid.periods) fingerprint.add(p == Periodicity::periodic ? 1 : 0);
  fingerprint.add(reorder ? 1 : 0);
  return fingerprint;
}

// The grid every rank agreed on, and the ranks-per-node setting a reordering
// call agreed on (0 when not reordering or not set).
struct AgreedGrid {
  Grid grid;
  int ranks_per_node = 0;
  LeaseOffer lease;  // the result's channel lease, as agreed
};

// Collective over comm: checks the standard's arrays on every rank (or reports
// `misuse`, a local error of a C++ overload) and agrees on them, and on the
// settings a reordering call reads, once, so every rank throws the same error
// or gets the same grid.
AgreedGrid agreed_grid(MPI_Comm comm, const char* caller, int ndims, const int dims[], const int periods[],
                       int too_large_class, bool reorder, MPI_Info info, const std::string& misuse,
                       const char* arguments) {
  ensure_runtime();
  require_intracommunicator(comm, caller);
  const int rank = comm_rank(comm);
  AgreedGrid agreed;
  const auto error = local_step(caller, rank, "the grid", [&]() -> std::optional<LocalError> {
    if (!misuse.empty()) return rank_error(MPI_ERR_ARG, caller, rank, misuse);
    return read_grid(caller, ndims, dims, periods, too_large_class, rank, comm_size(comm), agreed.grid);
  });
  if (reorder) agreed.ranks_per_node = emulated_ranks_per_node(info);
  detail::Fingerprint setting;
  setting.add(agreed.ranks_per_node);
  const std::array<detail::MustAgree, 2> items{
      detail::MustAgree{error ? detail::Fingerprint{} : grid_fingerprint(agreed.grid, reorder), arguments},
      detail::MustAgree{setting, kRanksPerNodeSetting}};
  agreed.lease = LeaseOffer(comm);
  detail::agree_on_arguments(comm, error, items, caller, agreed.lease.values());
  return agreed;
}

// Collective over comm: node discovery, then the node-aware placement.
Placement node_aware_placement(MPI_Comm comm, const AgreedGrid& agreed) {
  return detail::place(comm, agreed.grid.dims, agreed.grid.periods, discover_nodes(comm, agreed.ranks_per_node));
}

CartesianTopology make_record(const Grid& grid, int grid_rank_of_caller) {
  return {grid.dims, grid.periods, grid_coords(grid.dims, grid_rank_of_caller)};
}

}  // namespace

namespace {
// `misuse` is a local error of a C++ overload (e.g. dims and periods of
// different lengths), reported through the agreement so no rank hangs.
Comm cart_create_impl(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], bool reorder, MPI_Info info,
                      const std::string& misuse) {
  const AgreedGrid agreed = agreed_grid(comm_old, "cart_create", ndims, dims, periods, MPI_ERR_ARG, reorder, info,
                                        misuse, "ndims, dims, periods or reorder");
  const Grid& grid = agreed.grid;
  const Placement placement =
      reorder ? node_aware_placement(comm_old, agreed) : identity_placement(comm_old, grid.size);
  if (!reorder) {
    // The grid is the first ranks of comm_old, in order: made in one step.
    const bool member = placement.rank != MPI_UNDEFINED;
    Comm result = detail::install_cart_in_order(
        comm_old, member ? make_record(grid, placement.rank) : CartesianTopology{grid.dims, grid.periods, {}}, member);
    if (placement.same_order && !result.is_null()) {
      share_channels(comm_old, result);
      agreed.lease.take(result);
    }
    return result;
  }
  Comm base = split_by_rank(comm_old, placement.rank);
  if (base.is_null()) return base;
  Comm result = detail::install_cart(std::move(base), make_record(grid, placement.rank));
  if (placement.same_order) {
    share_channels(comm_old, result);
    agreed.lease.take(result);
  }
  return result;
}

std::string length_mismatch(std::size_t dims, std::size_t periods) {
  if (dims == periods) return {};
  return "dims has " + std::to_string(dims) + " entries but periods has " + std::to_string(periods);
}
}  // namespace

Comm cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], bool reorder, MPI_Info info) {
  return cart_create_impl(comm_old, ndims, dims, periods, reorder, info, {});
}

Comm cart_create(MPI_Comm comm_old, std::span<const int> dims, std::span<const Periodicity> periods,
                 const CartOptions& options) {
  const std::vector<int> flags = period_flags(periods);
  return cart_create_impl(comm_old, static_cast<int>(dims.size()), dims.data(), flags.data(), options.reorder,
                          options.info, length_mismatch(dims.size(), periods.size()));
}

Comm cart_create(MPI_Comm comm_old, std::span<const int> dims, std::initializer_list<Periodicity> periods,
                 const CartOptions& options) {
  return cart_create(comm_old, dims, std::span<const Periodicity>(periods.begin(), periods.size()), options);
}

namespace {
int cart_map_impl(MPI_Comm comm, int ndims, const int dims[], const int periods[], MPI_Info info,
                  const std::string& misuse) {
  // A grid larger than the group is MPI_ERR_DIMS here, as in MPICH.
  const AgreedGrid agreed = agreed_grid(comm, "cart_map", ndims, dims, periods, MPI_ERR_DIMS, /*reorder=*/true, info,
                                        misuse, "ndims, dims or periods");
  return node_aware_placement(comm, agreed).rank;
}
}  // namespace

int cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], MPI_Info info) {
  return cart_map_impl(comm, ndims, dims, periods, info, {});
}

int cart_map(MPI_Comm comm, std::span<const int> dims, std::span<const Periodicity> periods, MPI_Info info) {
  const std::vector<int> flags = period_flags(periods);
  return cart_map_impl(comm, static_cast<int>(dims.size()), dims.data(), flags.data(), info,
                       length_mismatch(dims.size(), periods.size()));
}

namespace {
// given_length: entries of remain_dims the caller passed, when known.
Comm cart_sub_impl(MPI_Comm comm, const int remain_dims[], std::optional<std::size_t> given_length) {
  constexpr const char* kCaller = "cart_sub";
  ensure_runtime();
  require_intracommunicator(comm, kCaller);
  const auto& record = require_topology<CartesianTopology>(comm, kCaller);
  const int rank = comm_rank(comm);
  const std::size_t ndims = record.dims.size();
  std::optional<LocalError> error;
  if (given_length && *given_length != ndims) {
    error = rank_error(MPI_ERR_ARG, kCaller, rank,
                       "remain_dims has " + std::to_string(*given_length) + " entries but the grid has " +
                           std::to_string(ndims) + " dimensions");
  } else if (ndims > 0 && remain_dims == nullptr) {
    error = rank_error(MPI_ERR_ARG, kCaller, rank, "remain_dims is NULL with ndims = " + std::to_string(ndims));
  }
  detail::Fingerprint fingerprint;
  if (!error) {
    for (std::size_t i = 0; i < ndims; ++i) fingerprint.add(remain_dims[i] != 0 ? 1 : 0);
  }
  const std::array<detail::MustAgree, 1> items{detail::MustAgree{fingerprint, "remain_dims"}};
  LeaseOffer lease(comm);
  detail::agree_on_arguments(comm, error, items, kCaller, lease.values());

  // color: the grid rank along dropped dimensions; key: along kept ones.
  CartesianTopology kept;
  CartesianTopology dropped;
  for (std::size_t i = 0; i < ndims; ++i) {
    CartesianTopology& part = remain_dims[i] != 0 ? kept : dropped;
    part.dims.push_back(record.dims[i]);
    part.periods.push_back(record.periods[i]);
    part.coords.push_back(record.coords[i]);
  }
  const int color = grid_rank(dropped.dims, dropped.coords);
  const int key = grid_rank(kept.dims, kept.coords);
  // Keeping every dimension keeps every rank in its place.
  const bool same_order = dropped.dims.empty();
  MPI_Comm split = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(comm, color, key, &split), "MPI_Comm_split");
  Comm result = detail::install_cart(Comm::adopt(split), std::move(kept));
  if (same_order) {
    share_channels(comm, result);
    lease.take(result);
  }
  return result;
}
}  // namespace

Comm cart_sub(MPI_Comm comm, const int remain_dims[]) { return cart_sub_impl(comm, remain_dims, std::nullopt); }

Comm cart_sub(MPI_Comm comm, const std::vector<bool>& remain_dims) {
  const std::vector<int> flags(remain_dims.begin(), remain_dims.end());
  return cart_sub_impl(comm, flags.data(), flags.size());
}

}  // namespace distopo
