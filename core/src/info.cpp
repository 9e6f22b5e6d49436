#include "distopo/core/info.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "distopo/core/error.hpp"

namespace distopo {

std::optional<std::string> info_value(MPI_Info info, const char* key) {
  if (info == MPI_INFO_NULL) return std::nullopt;
  int length = 0;
  int found = 0;
  check_mpi(MPI_Info_get_valuelen(info, key, &length, &found), "MPI_Info_get_valuelen");
  if (!found) return std::nullopt;
  std::string value(static_cast<std::size_t>(length) + 1, '\0');
  check_mpi(MPI_Info_get(info, key, length, value.data(), &found), "MPI_Info_get");
  value.resize(std::strlen(value.c_str()));
  return value;
}

std::optional<std::string> info_or_environment(MPI_Info info, const char* key, const char* variable) {
  if (std::optional<std::string> value = info_value(info, key)) return value;
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return std::nullopt;
  return std::string(text);
}

int parse_positive(const char* text) {
  if (text == nullptr || *text == '\0') return 0;
  errno = 0;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value <= 0 || value > 0x7fffffffL) return 0;
  return static_cast<int>(value);
}

bool parse_flag(const std::string& text) { return text == "true" || text == "1"; }

bool info_flag(MPI_Info info, const char* key) {
  const std::optional<std::string> value = info_value(info, key);
  return value && parse_flag(*value);
}

}  // namespace distopo
