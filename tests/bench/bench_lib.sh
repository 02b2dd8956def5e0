# shellcheck shell=bash
# Sourced by the tests/bench scripts: run from the repository root with the strata binary
# ($STRATA, default build/bin/strata) and a scratch folder $tmp removed on exit.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
# shellcheck disable=SC2034  # used by the scripts that source this
strata="${STRATA:-build/bin/strata}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

summary() {  # summary KEY FILE: the first number under KEY in a summary.json
  sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" "$2" | head -1
}
