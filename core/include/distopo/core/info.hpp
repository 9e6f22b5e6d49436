#pragma once
// Reading the settings distopo documents (docs/guide/configuration.md): info keys
// and environment variables, parsed the same way everywhere.
#include <mpi.h>

#include <optional>
#include <string>

namespace distopo {

// The value of `key` in `info`, whole; nullopt when `info` is MPI_INFO_NULL
// or has no such key. Local.
std::optional<std::string> info_value(MPI_Info info, const char* key);

// A setting that an info key and an environment variable both give: the
// key's value in `info`, else the variable's; nullopt for neither (an empty
// variable counts as unset). Local.
std::optional<std::string> info_or_environment(MPI_Info info, const char* key, const char* variable);

// A positive int in decimal; 0 for anything else (null, empty, other
// characters, out of range).
int parse_positive(const char* text);

// An info flag is set by "true" or "1".
bool parse_flag(const std::string& text);

// Whether `key` is a flag set in `info` (parse_flag of its value). Local.
bool info_flag(MPI_Info info, const char* key);

}  // namespace distopo
