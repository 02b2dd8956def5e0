#!/usr/bin/env bash
# The external_platform test (CTest): installs Strata from a build folder to a scratch prefix,
# builds this folder against it as a project of its own (find_package(Strata), Ninja, Release),
# runs the platform and checks what it printed. Nothing of the source tree is used but this
# folder: the headers, libraries and presets all come from the prefix, and the program runs
# in the scratch folder.
#
#   tests/external-platform/run.sh BUILD_DIR     e.g. build
#
# Exit 77 (CTest: skipped) for a sanitizer or fuzzing build: its libraries need the sanitizer
# runtime and flags at link time, which an outside project does not have.
set -euo pipefail
build="$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
cache="$build/CMakeCache.txt"
[ -f "$cache" ] || { echo "run.sh: $build is not a CMake build folder" >&2; exit 1; }
if grep -Eq '^STRATA_(SANITIZE|FUZZ):BOOL=(ON|TRUE|1)$' "$cache"; then
  echo "run.sh: skipped: $build is a sanitizer/fuzzing build"
  exit 77
fi

cmake="${CMAKE:-cmake}"  # CTest passes the cmake that configured the build
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"

# The same compiler the libraries were built with (C++ ABI, SystemC's C++17 guard).
cxx="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$cache")"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

step() {  # step NAME COMMAND...: runs it, its output shown only when it fails
  if ! "${@:2}" >"$tmp/$1.log" 2>&1; then
    echo "run.sh: $1 failed: ${*:2}" >&2
    cat "$tmp/$1.log" >&2
    exit 1
  fi
}
step install "$cmake" --install "$build" --prefix "$prefix"
step configure "$cmake" -S "$here" -B "$tmp/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" ${cxx:+-DCMAKE_CXX_COMPILER="$cxx"}
step build "$cmake" --build "$tmp/build" -j 2

cd "$tmp"
status=0
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$tmp/build/external_platform" >"$tmp/out.txt" 2>&1 || status=$?
cat "$tmp/out.txt"
[ "$status" -eq 0 ] || { echo "run.sh: external_platform exited $status" >&2; exit 1; }
# The preset came from the prefix, the checks all passed.
grep -q "^external_platform: $prefix/share/strata/configs/hardware/memory/ddr4-3200.yaml (kind dram)" "$tmp/out.txt" ||
  { echo "run.sh: the preset was not the installed one" >&2; exit 1; }
if grep -q "FAILED" "$tmp/out.txt" || ! grep -q "^external_platform: PASS$" "$tmp/out.txt"; then
  echo "run.sh: the platform's checks failed" >&2
  exit 1
fi
echo "run.sh: ok"
