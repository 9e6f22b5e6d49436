// The engine behind every NeighborCall: the communicator's state and plan,
// the checks, then the form's posting and completion. Any failed check takes
// the no-hang path (the rank still exchanges empty messages) except for
// persistent inits, where nothing was sent yet: there the rank only takes
// part in what the others' inits agree on (auto's choice, the relays' sizes). A failure while posting or completing is
// the collective's error, raised where its form completes: at once (blocking), at MPI_Wait and friends (non-blocking,
// persistent).
#include "engine.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "argument_checks.hpp"
#include "distopo/core/comm.hpp"
#include "distopo/core/comm_cache.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/info.hpp"
#include "distopo/core/node_layout.hpp"
#include "distopo/core/runtime.hpp"
#include "distopo/neighbor/algorithm.hpp"
#include "distopo/neighbor/collective.hpp"

namespace distopo {
namespace detail {
namespace {

// --- the communicator's settings (set_neighbor_info) -------------------------

constexpr const char* kAlgorithmKey = "distopo_neighbor_algorithm";
constexpr const char* kMaxBytesKey = "distopo_neighbor_aggregate_max_bytes";
// Their environment variables: kNeighborSettingsEnv's entries, in this order.
enum SettingsVariable { kAlgorithmVariable, kMaxBytesVariable, kRanksPerNodeVariable };

// The keys given to set_neighbor_info, copied to duplicates (MPI_Comm_dup
// keeps a communicator's info).
struct Settings {
  std::optional<std::string> algorithm, max_bytes, ranks_per_node;
};

int copy_settings(MPI_Comm, int, void*, void* attribute, void* copy, int* flag) {
  *static_cast<void**>(copy) = new Settings(*static_cast<Settings*>(attribute));
  *flag = 1;
  return MPI_SUCCESS;
}
constinit const RuntimeKeyval settings_keyval{copy_settings, delete_cached<Settings>};
constinit const RuntimeKeyval state_keyval{MPI_COMM_NULL_COPY_FN, delete_cached<NeighborState>};

std::optional<NeighborAlgorithm> parse_algorithm(const std::string& text) {
  if (text == "direct") return NeighborAlgorithm::direct;
  if (text == "aggregated") return NeighborAlgorithm::aggregated;
  if (text == "auto" || text == "automatic") return NeighborAlgorithm::automatic;
  return std::nullopt;
}

// A byte count: a non-negative decimal integer; -1 for anything else.
long long parse_bytes(const std::string& text) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(text);
}

// The info MPI keeps on `comm` (MPI libraries that keep unknown keys), read
// once per plan: each PMPI_Comm_get_info copies it. Null where there is none
// to read.
class CommInfo {
 public:
  explicit CommInfo(MPI_Comm comm) {
#ifndef DISTOPO_SMPI_BUILD  // SMPI's MPI_Comm_get_info returns no usable info
    if (PMPI_Comm_get_info(comm, &info_) != MPI_SUCCESS) info_ = MPI_INFO_NULL;
#else
    (void)comm;
#endif
  }
  ~CommInfo() {
    if (info_ != MPI_INFO_NULL) PMPI_Info_free(&info_);
  }
  CommInfo(const CommInfo&) = delete;
  CommInfo& operator=(const CommInfo&) = delete;

  [[nodiscard]] std::optional<std::string> value(const char* key) const {
    return info_ == MPI_INFO_NULL ? std::nullopt : info_value(info_, key);
  }

 private:
  MPI_Info info_ = MPI_INFO_NULL;
};

// The value of a setting: the key kept by set_neighbor_info, the key in the
// communicator's info, the environment (or the snapshot of it that the
// communicator's constructor agreed on).
std::optional<std::string> setting(const CommInfo* info, const std::optional<std::string>& kept, const char* key,
                                   SettingsVariable variable, const SettingsEnvironment* snapshot) {
  if (kept) return kept;
  if (info != nullptr) {
    if (std::optional<std::string> value = info->value(key)) return value;
  }
  if (snapshot != nullptr) return (*snapshot)[variable];
  if (const char* text = std::getenv(kNeighborSettingsEnv[variable])) return std::string(text);
  return std::nullopt;
}

const TopologyRecord& record_of(MPI_Comm comm, const char* caller) {
  if (comm == MPI_COMM_NULL) throw Error(MPI_ERR_COMM, std::string(caller) + ": communicator is MPI_COMM_NULL");
  const TopologyRecord* record = find_topology(comm);
  if (record == nullptr) {
    throw Error(MPI_ERR_TOPOLOGY, comm_rank_prefix(caller, comm) +
                                      "communicator has no topology (Cartesian, graph or distributed graph)");
  }
  return *record;
}

// `comm`'s settings, and whether they are agreed already: with `prepaid`
// (its constructor took the lease and agreed on the environment's settings)
// and no keys set since, they are the snapshot's. The communicator's info is
// not read then: MPICH keeps no distopo key on a new communicator, and the
// keys reach it only through set_neighbor_info (MPI_Comm_set_info).
std::pair<PlanSettings, bool> read_settings(MPI_Comm comm, const PrepaidLease* prepaid) {
  const Settings* kept = find_cached<Settings>(comm, settings_keyval);
  const bool agreed = prepaid != nullptr && kept == nullptr;
  const Settings none;
  if (kept == nullptr) kept = &none;
  std::optional<CommInfo> info;
  if (!agreed) info.emplace(comm);
  const CommInfo* comm_info = info ? &*info : nullptr;
  const SettingsEnvironment* snapshot = agreed ? &prepaid->environment : nullptr;
  PlanSettings s;
  if (const auto text = setting(comm_info, kept->algorithm, kAlgorithmKey, kAlgorithmVariable, snapshot)) {
    if (const auto algorithm = parse_algorithm(*text)) s.algorithm = *algorithm;
  }
  if (const auto text = setting(comm_info, kept->max_bytes, kMaxBytesKey, kMaxBytesVariable, snapshot))
    s.aggregate_max_bytes = parse_bytes(*text);
  if (const auto text =
          setting(comm_info, kept->ranks_per_node, kRanksPerNodeInfoKey, kRanksPerNodeVariable, snapshot)) {
    s.ranks_per_node = parse_positive(text->c_str());
  }
  s.known_node_count = agreed ? prepaid->node_count : family_node_count(comm);
  return {s, agreed};
}

}  // namespace

NeighborState& state_of(MPI_Comm comm, const char* caller) {
  const TopologyRecord& record = record_of(comm, caller);
  NeighborState* state = find_cached<NeighborState>(comm, state_keyval);
  if (state != nullptr && state->record == &record && state->plan) return *state;
  // A plan is needed. On the communicator's first collective its settings
  // are agreed in the channel's lease, or were agreed by its constructor
  // with the lease (prepaid); later (after set_neighbor_info, or a new
  // topology record) in an allreduce of their own.
  const std::optional<PrepaidLease> prepaid = state == nullptr ? take_prepaid_lease(comm) : std::nullopt;
  auto [settings, agreed] = read_settings(comm, prepaid ? &*prepaid : nullptr);
  SettingsAgreement agreement(settings);
  if (state == nullptr) {
    auto owned = std::make_unique<NeighborState>();
    if (prepaid) {
      owned->channel = prepaid->lease;
      if (!agreed) agreement.reduce(comm);
    } else {
      owned->channel = lease_channel(comm, caller, agreement.values);
    }
    owned->rank = comm_rank(comm);
    check_mpi(MPI_Comm_set_attr(comm, state_keyval.get(), owned.get()), "MPI_Comm_set_attr");
    state = owned.release();
  } else {
    agreement.reduce(comm);
  }
  if (!agreed) {
    agreement.check(caller);
    settings.known_node_count = agreement.agreed_node_count();
    // Agreed, so every rank's family learns the same.
    if (settings.known_node_count > 0 && family_node_count(comm) == 0)
      remember_family_node_count(comm, settings.known_node_count);
  }
  const Tags tags = next_tags(*state);
  state->plan = make_plan(comm, record, state->rank, settings, state->channel.get(), tags.direct);
  state->persistent_auto.reset();
  state->settings = settings;
  state->record = &record;
  return *state;
}

Tags next_tags(NeighborState& state) {
  const auto range = static_cast<unsigned long long>(state.channel.tag_count());
  const unsigned long long slots = range >= 4 ? range / 4 : 1;
  const int base =
      state.channel.first_tag() + static_cast<int>((state.next_collective++ % slots) * (range >= 4 ? 4 : 1));
  if (range < 4) return {base, base, base, base};
  return {base, base + 1, base + 2, base + 3};
}

namespace {

enum class Form { blocking, nonblocking, persistent };

struct Completion {
  Form form;
  MPI_Request* request = nullptr;           // non-blocking
  PersistentRequest* persistent = nullptr;  // persistent
};

// Posts immediate requests and begins the relayed part; if a post failed,
// the messages not posted are drained (so that the neighbors complete), the
// posted ones completed, and the failure thrown.
template <class Blocks>
void post_immediate(const NeighborState& state, const Tags& tags, const Blocks& blocks, const Origin& origin,
                    Exchange& into) {
  MPI_Comm channel = state.channel.get();
  if (post(state.plan, channel, tags, blocks, Posting::immediate, origin, into)) {
    begin_relayed(into);
    return;
  }
  drain_rest(state.plan, channel, tags, origin, &into);
  into.finish();
  (void)into.take();
  throw into.error();
}

// A persistent collective with the aggregated algorithm: its relays learn
// at init the sizes of what they will receive (RelayExchange::learn_sizes),
// with tags of their own. `exchange` is null on a rank whose arguments are
// bad (it takes part all the same, so that the others' inits return).
void learn_relay_sizes(const NeighborState& state, const std::shared_ptr<const Plan>& plan, const Tags& init,
                       const Origin& origin, Exchange* exchange) {
  if (exchange != nullptr && exchange->relayed) {
    exchange->relayed->learn_sizes(init);
    return;
  }
  RelayExchange dropping(plan, state.channel.get(), origin, true);
  dropping.learn_sizes(init);
}

// This rank's remote blocks under `plan`'s routes: (of at most the plan's
// relay size, all).
template <class Blocks>
std::array<long long, 2> remote_block_counts(const Plan& plan, const Blocks& blocks) {
  GroupBlocks sends;
  collect_groups(
      plan.routes->sends, [&](int slot) { return blocks.send(slot); }, plan.selection.aggregate_max_bytes, sends);
  const auto small = std::count(sends.relayed.begin(), sends.relayed.end(), 1);
  return {static_cast<long long>(small), static_cast<long long>(sends.bytes.size())};
}

// The plan a persistent init runs: the communicator's, or under auto the
// persistent form's own where it aggregates and this init's blocks are
// small enough (collective then; `blocks` null on a rank whose arguments
// are bad).
template <class Blocks>
std::shared_ptr<const Plan> persistent_plan(NeighborState& state, MPI_Comm comm, const Blocks* blocks) {
  if (state.plan->selection.setting != NeighborAlgorithm::automatic) return state.plan;
  if (!state.persistent_auto) {
    const Tags tags = next_tags(state);
    state.persistent_auto =
        make_persistent_auto_plan(comm, *state.record, state.rank, state.settings, state.channel.get(), tags.direct);
  }
  if (!state.persistent_auto->aggregated()) return state.plan;
  const std::array<long long, 2> counts =
      blocks != nullptr ? remote_block_counts(*state.persistent_auto, *blocks) : std::array<long long, 2>{0, 0};
  return auto_aggregates(comm, counts[0], counts[1]) ? state.persistent_auto : state.plan;
}

template <class Blocks>
void complete(NeighborState& state, const std::shared_ptr<const Plan>& plan, const Tags& tags, const Tags& init_tags,
              const Blocks& blocks, const Origin& origin, const Completion& completion) {
  switch (completion.form) {
    case Form::blocking:
      post_immediate(state, tags, blocks, origin, state.blocking);
      state.blocking.finish();
      if (state.blocking.take() != MPI_SUCCESS) throw state.blocking.error();
      return;
    case Form::nonblocking: {
      auto request = nonblocking_state();
      post_immediate(state, tags, blocks, origin, request->exchange);
      *completion.request = nonblocking_request(std::move(request));
      return;
    }
    case Form::persistent: {
      auto request = std::make_unique<PersistentRequest::State>();
      request->selection = plan->selection;
      // Nothing was sent yet: a failed init frees what it posted and throws.
      const bool posted = post(plan, state.channel.get(), tags, blocks, Posting::persistent, origin, request->exchange);
      if (plan->aggregated()) learn_relay_sizes(state, plan, init_tags, origin, &request->exchange);
      if (!posted) throw request->exchange.error();
      if (request->exchange.relayed && request->exchange.relayed->result() != MPI_SUCCESS) {
        throw request->exchange.relayed->error();
      }
      *completion.persistent = PersistentRequest(std::move(request));
      return;
    }
  }
}

template <class Args>
void execute(MPI_Comm comm, const Args& args, const std::optional<TypedBounds>& typed, const Completion& completion) {
  const char* caller = Args::kName;
  NeighborState& state = state_of(comm, caller);
  const NeighborSequence& sequence = state.plan->sequence;
  Check error = typed ? typed->error : std::nullopt;
  if (!error && completion.form == Form::nonblocking) error = check_request(completion.request, caller, state.rank);
  if (!error) error = validate(args, sequence, state.rank);
  std::optional<decltype(blocks_of(args))> blocks;
  if (!error) {
    blocks = blocks_of(args);
    error = check_blocks(sequence, *blocks, typed ? &*typed : nullptr, caller, state.rank);
  }
  const bool persistent = completion.form == Form::persistent;
  const std::shared_ptr<const Plan> plan =
      persistent ? persistent_plan(state, comm, error ? nullptr : &*blocks) : state.plan;
  const Tags tags = next_tags(state);
  const bool learns_sizes = persistent && plan->aggregated();
  const Tags init_tags = learns_sizes ? next_tags(state) : Tags{};
  if (!error) return complete(state, plan, tags, init_tags, *blocks, Origin{comm, caller, state.rank}, completion);
  if (learns_sizes) learn_relay_sizes(state, plan, init_tags, Origin{comm, caller, state.rank}, nullptr);
  if (persistent) throw Error(error->error_class, error->message);
  drain_rest(state.plan, state.channel.get(), tags, Origin{comm, caller, state.rank}, nullptr);
  throw Error(error->error_class, error->message);
}

void execute(MPI_Comm comm, const NeighborArgs& args, const std::optional<TypedBounds>& typed,
             const Completion& completion) {
  std::visit([&](const auto& a) { execute(comm, a, typed, completion); }, args);
}

}  // namespace

void NeighborCall::run() const { execute(comm_, args_, typed_, {Form::blocking}); }

void NeighborCall::start(MPI_Request* request) const { execute(comm_, args_, typed_, {Form::nonblocking, request}); }

PersistentRequest NeighborCall::init() const {
  PersistentRequest request;
  execute(comm_, args_, typed_, {Form::persistent, nullptr, &request});
  return request;
}

}  // namespace detail

NeighborDegrees neighbor_degrees(MPI_Comm comm) {
  const TopologyRecord& record = detail::record_of(comm, "neighbor_degrees");
  if (const auto* state = detail::find_cached<detail::NeighborState>(comm, detail::state_keyval);
      state != nullptr && state->record == &record && state->plan) {
    return {state->plan->sequence.indegree(), state->plan->sequence.outdegree()};
  }
  const detail::NeighborSequence s = detail::neighbor_sequence(record, comm_rank(comm));
  return {s.indegree(), s.outdegree()};
}

const char* to_string(NeighborAlgorithm algorithm) noexcept {
  switch (algorithm) {
    case NeighborAlgorithm::direct:
      return "direct";
    case NeighborAlgorithm::aggregated:
      return "aggregated";
    default:
      return "auto";
  }
}

NeighborAlgorithmChoice neighbor_algorithm(MPI_Comm comm) {
  return detail::choice_of(detail::state_of(comm, "neighbor_algorithm").plan->selection);
}

void set_neighbor_info(MPI_Comm comm, MPI_Info info) {
  if (comm == MPI_COMM_NULL) throw Error(MPI_ERR_COMM, "set_neighbor_info: communicator is MPI_COMM_NULL");
  // By the keys the info holds: SMPI's MPI_Info_get_valuelen fails on a key
  // that is not there.
  detail::Settings given;
  int keys = 0;
  if (info != MPI_INFO_NULL) check_mpi(PMPI_Info_get_nkeys(info, &keys), "MPI_Info_get_nkeys");
  for (int k = 0; k < keys; ++k) {
    std::array<char, MPI_MAX_INFO_KEY + 1> key{};
    check_mpi(PMPI_Info_get_nthkey(info, k, key.data()), "MPI_Info_get_nthkey");
    const std::string name(key.data());
    std::optional<std::string>* slot = name == detail::kAlgorithmKey  ? &given.algorithm
                                       : name == detail::kMaxBytesKey ? &given.max_bytes
                                       : name == kRanksPerNodeInfoKey ? &given.ranks_per_node
                                                                      : nullptr;
    if (slot != nullptr) *slot = info_value(info, name.c_str());
  }
#ifndef DISTOPO_SMPI_BUILD  // SMPI's MPI_Comm_set_info frees the caller's info
  check_mpi(PMPI_Comm_set_info(comm, info), "MPI_Comm_set_info");
#endif
  auto* kept = detail::find_cached<detail::Settings>(comm, detail::settings_keyval);
  if (kept == nullptr) {
    auto owned = std::make_unique<detail::Settings>();
    check_mpi(MPI_Comm_set_attr(comm, detail::settings_keyval.get(), owned.get()), "MPI_Comm_set_attr");
    kept = owned.release();
  }
  if (given.algorithm) kept->algorithm = std::move(given.algorithm);
  if (given.max_bytes) kept->max_bytes = std::move(given.max_bytes);
  if (given.ranks_per_node) kept->ranks_per_node = std::move(given.ranks_per_node);
  if (auto* state = detail::find_cached<detail::NeighborState>(comm, detail::state_keyval)) {
    state->plan.reset();
    state->persistent_auto.reset();
  }
}

}  // namespace distopo
