#!/usr/bin/env bash
# scripts/check-layering on small trees: clean, an include pointing upwards, a cycle of units,
# the kernel including the application. Each bad tree must fail with its one line.
set -euo pipefail
check="$(dirname "$0")/../../scripts/check-layering"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tree() {  # tree NAME FILE=CONTENT...: a tree of the project's folders with these files
  local root="$tmp/$1"; shift
  mkdir -p "$root"/{sim/app,models,workloads,memory,rtl,accelerators}
  for spec in "$@"; do
    mkdir -p "$(dirname "$root/${spec%%=*}")"
    printf '%b\n' "${spec#*=}" >"$root/${spec%%=*}"
  done
  echo "$root"
}
expect() {  # expect ROOT RC PATTERN
  local out rc=0
  out="$(python3 "$check" "$1" 2>&1)" || rc=$?
  if [ "$rc" -ne "$2" ] || ! grep -q -- "$3" <<<"$out"; then
    echo "check_layering_test: $1: wanted exit $2 and '$3', got exit $rc:"; echo "$out"; exit 1
  fi
}
expect "$(tree clean 'sim/a.h=' 'models/b.h=#include "sim/a.h"' 'accelerators/c.cpp=#include "models/b.h"')" 0 "no unit cycles"
expect "$(tree upward 'sim/a.h=' 'models/b.h=#include "accelerators/c.h"' 'accelerators/c.h=')" 1 \
  "models/b.h: includes accelerators/c.h: models may include only from"
expect "$(tree sideways 'memory/m.h=#include "workloads/w.h"' 'workloads/w.h=')" 1 "memory/m.h: includes workloads/w.h"
expect "$(tree kernel_app 'sim/k.cpp=#include "sim/app/cli.h"' 'sim/app/cli.h=')" 1 "sim/k.cpp: includes sim/app/cli.h"
expect "$(tree cycle 'models/x.h=' 'models/x.cpp=#include "models/y.h"' 'models/y.h=' 'models/y.cpp=#include "models/x.h"')" 1 \
  "include cycle between units: models/x <-> models/y"
echo "check_layering_test: 5 trees checked"
