#!/usr/bin/env bash
# Every C and C++ source tracked by git is formatted as .clang-format says
# (clang-format 14, Debian 12). Prints the files that are not and fails.
# Fix them with: git ls-files '*.c' '*.h' '*.cpp' '*.hpp' | xargs clang-format -i
# Usage: bash scripts/test/check_format.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v clang-format >/dev/null || { echo "check_format: clang-format is missing (scripts/setup/install_packages.sh installs it)" >&2; exit 1; }
unformatted=()
while IFS= read -r file; do
  clang-format --dry-run -Werror "$file" >/dev/null 2>&1 || unformatted+=("$file")
done < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
if [ ${#unformatted[@]} -ne 0 ]; then
  printf 'not formatted (clang-format -i fixes it):\n' >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "check_format: every source formatted"
