// The engine behind every NeighborCall: state of the communicator, checks,
// then the form's completion. Any failed check takes the no-hang path (the
// rank still exchanges empty messages) except for persistent inits, which
// have not communicated yet (nor have the other ranks' inits).
#include "distopo/neighbor/collective.hpp"

#include <memory>
#include <variant>

#include "argument_checks.hpp"
#include "channel_state.hpp"
#include "error_drain.hpp"
#include "generalized_request.hpp"
#include "posting.hpp"

namespace distopo::detail {
namespace {

enum class Form { blocking, nonblocking, persistent };

struct Completion {
  Form form;
  MPI_Request* request = nullptr;           // non-blocking
  PersistentRequest* persistent = nullptr;  // persistent
};

template <class Blocks>
void complete(NeighborState& state, int tag, const Blocks& blocks, const Completion& completion) {
  const NeighborSequence& s = state.sequence;
  MPI_Comm channel = state.channel.get();
  switch (completion.form) {
    case Form::blocking:
      post(s, channel, tag, blocks, Posting::immediate, state.blocking);
      check_mpi(state.blocking.wait(), "MPI_Waitall");
      return;
    case Form::nonblocking: {
      auto posted = std::make_unique<PostedRequests>();
      post(s, channel, tag, blocks, Posting::immediate, *posted);
      *completion.request = generalized_request(std::move(posted));
      return;
    }
    case Form::persistent: {
      auto posted = std::make_unique<PostedRequests>();
      post(s, channel, tag, blocks, Posting::persistent, *posted);
      *completion.persistent = PersistentRequest(std::move(posted));
      return;
    }
  }
}

template <class Args>
void execute(MPI_Comm comm, const Args& args, const std::optional<TypedBounds>& typed, const Completion& completion) {
  const char* caller = Args::kName;
  NeighborState& state = state_of(comm, caller);
  const int tag = next_tag(state);
  Check error = typed ? typed->error : std::nullopt;
  if (!error && completion.form == Form::nonblocking) error = check_request(completion.request, caller, state.rank);
  if (!error) error = validate(args, state.sequence, state.rank);
  if (!error) {
    const auto blocks = blocks_of(args);
    if (typed) error = check_bounds(state.sequence, blocks, *typed, caller, state.rank);
    if (!error) return complete(state, tag, blocks, completion);
  }
  if (completion.form == Form::persistent) throw Error(error->error_class, error->message);
  drain_and_throw(state, tag, *error);
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

}  // namespace distopo::detail
