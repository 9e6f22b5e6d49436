#pragma once
// Helpers every MPI test binary uses: the caller's place in MPI_COMM_WORLD,
// the error class a distopo call throws, and info objects.
#include <mpi.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <utility>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"

namespace distopo::testing {

inline int world_rank() { return distopo::comm_rank(MPI_COMM_WORLD); }
inline int world_size() { return distopo::comm_size(MPI_COMM_WORLD); }

// Calls `body` and returns the MPI error class of the distopo::Error it throws
// (MPI_SUCCESS if none), with its message in `*message` when asked for.
inline int error_class_of(const std::function<void()>& body, std::string* message = nullptr) {
  try {
    body();
  } catch (const distopo::Error& error) {
    if (message != nullptr) *message = error.what();
    return error.error_class();
  }
  return MPI_SUCCESS;
}

// An MPI_Info holding `entries`, freed with the handle.
class InfoHandle {
 public:
  explicit InfoHandle(std::initializer_list<std::pair<const char*, const char*>> entries) {
    MPI_Info_create(&info_);
    for (const auto& [key, value] : entries) MPI_Info_set(info_, key, value);
  }
  ~InfoHandle() { MPI_Info_free(&info_); }
  InfoHandle(const InfoHandle&) = delete;
  InfoHandle& operator=(const InfoHandle&) = delete;
  [[nodiscard]] MPI_Info get() const { return info_; }

 private:
  MPI_Info info_ = MPI_INFO_NULL;
};

}  // namespace distopo::testing
