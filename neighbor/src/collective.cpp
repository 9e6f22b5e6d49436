// The engine behind every NeighborCall: state of the communicator, checks,
// then the form's completion. Any failed check takes the no-hang path (the
// rank still exchanges empty messages) except for persistent inits, which
// have not communicated yet (nor have the other ranks' inits). A failure
// while posting or completing is the collective's error, raised where its
// form completes: at once (blocking), at MPI_Wait and friends (non-blocking,
// persistent).
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

// Posts immediate requests; if a post failed, the slots not posted are
// drained (so that the neighbors complete), the posted ones completed, and
// the failure thrown.
template <class Blocks>
void post_immediate(const NeighborState& state, int tag, const Blocks& blocks, const Origin& origin,
                    PostedRequests& into) {
  MPI_Comm channel = state.channel.get();
  if (post(state.sequence, channel, tag, blocks, Posting::immediate, origin, into)) return;
  drain_rest(state.sequence, channel, tag, into.count_posted());
  into.finish();
  (void)into.take();
  throw into.error();
}

template <class Blocks>
void complete(NeighborState& state, int tag, const Blocks& blocks, const Origin& origin, const Completion& completion) {
  switch (completion.form) {
    case Form::blocking:
      post_immediate(state, tag, blocks, origin, state.blocking);
      state.blocking.finish();
      if (state.blocking.take() != MPI_SUCCESS) throw state.blocking.error();
      return;
    case Form::nonblocking: {
      auto posted = std::make_unique<PostedRequests>();
      post_immediate(state, tag, blocks, origin, *posted);
      *completion.request = generalized_request(std::move(posted));
      return;
    }
    case Form::persistent: {
      auto posted = std::make_unique<PostedRequests>();
      // Nothing was sent yet: a failed init frees what it posted and throws.
      if (!post(state.sequence, state.channel.get(), tag, blocks, Posting::persistent, origin, *posted)) {
        throw posted->error();
      }
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
    error = check_blocks(state.sequence, blocks, typed ? &*typed : nullptr, caller, state.rank);
    if (!error) return complete(state, tag, blocks, Origin{comm, caller, state.rank}, completion);
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
