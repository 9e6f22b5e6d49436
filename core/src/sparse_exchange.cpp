#include "distopo/core/sparse_exchange.hpp"

#include <cstring>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"

namespace distopo::detail {
namespace {

// A contiguous type of one element, so counts stay element counts.
class ElementType {
 public:
  explicit ElementType(std::size_t size) {
    check_mpi(MPI_Type_contiguous(static_cast<int>(size), MPI_BYTE, &type_), "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(&type_), "MPI_Type_commit");
  }
  ~ElementType() { MPI_Type_free(&type_); }
  ElementType(const ElementType&) = delete;
  ElementType& operator=(const ElementType&) = delete;
  [[nodiscard]] MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

}  // namespace

void sparse_exchange_raw(MPI_Comm comm, std::size_t element_size, const std::vector<RawMessage>& outgoing,
                         const PlaceFn& place, const DoneFn& done, std::span<int> agreement_max, int tag) {
  const int self = comm_rank(comm);
  const ElementType element(element_size);

  std::vector<MPI_Request> sends;
  sends.reserve(outgoing.size());
  for (const RawMessage& message : outgoing) {
    if (message.destination == self) continue;
    sends.emplace_back();
    check_mpi(MPI_Issend(message.data, message.count, element.get(), message.destination, tag, comm,
                         &sends.back()),
              "MPI_Issend");
  }
  // The message to ourselves is a copy; doing it after posting the sends
  // overlaps it with their transfer.
  for (const RawMessage& message : outgoing) {
    if (message.destination != self) continue;
    void* target = place(self, message.count);
    if (message.count > 0) std::memcpy(target, message.data, static_cast<std::size_t>(message.count) * element_size);
    done(self, message.count, target);
  }

  MPI_Request agreement = MPI_REQUEST_NULL;
  bool agreement_started = false;
  for (;;) {
    int arrived = 0;
    MPI_Status status;
    check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &arrived, &status), "MPI_Iprobe");
    if (arrived) {
      int count = 0;
      check_mpi(MPI_Get_count(&status, element.get(), &count), "MPI_Get_count");
      void* target = place(status.MPI_SOURCE, count);
      check_mpi(MPI_Recv(target, count, element.get(), status.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE),
                "MPI_Recv");
      done(status.MPI_SOURCE, count, target);
      continue;  // drain what has arrived before testing anything else
    }
    if (!agreement_started) {
      int all_sent = 0;
      check_mpi(MPI_Testall(static_cast<int>(sends.size()), sends.data(), &all_sent, MPI_STATUSES_IGNORE),
                "MPI_Testall");
      if (all_sent) {
        if (agreement_max.empty()) {
          check_mpi(MPI_Ibarrier(comm, &agreement), "MPI_Ibarrier");
        } else {
          check_mpi(MPI_Iallreduce(MPI_IN_PLACE, agreement_max.data(), static_cast<int>(agreement_max.size()),
                                   MPI_INT, MPI_MAX, comm, &agreement),
                    "MPI_Iallreduce");
        }
        agreement_started = true;
      }
    } else {
      int finished = 0;
      check_mpi(MPI_Test(&agreement, &finished, MPI_STATUS_IGNORE), "MPI_Test");
      if (finished) return;
    }
  }
}

}  // namespace distopo::detail
