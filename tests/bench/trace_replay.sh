#!/usr/bin/env bash
# Throughput of the memory-trace slice: replays N sequential 64 B reads (default 2,000,000)
# through the simple DDR4-3200 channel preset and prints requests per wall-second and peak
# memory. Not part of the test suite (speed is measured, never asserted).
#   tests/bench/trace_replay.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-2000000}"
strata="${STRATA:-build/bin/strata}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "%d R %x\n", i, i * 64 }' >"$tmp/stream.trace"
cat >"$tmp/bench.yaml" <<YAML
name: bench
hardware: {extends: $PWD/configs/hardware/memory/simple-ddr4-3200.yaml}
workload: {kind: memory_trace, path: $tmp/stream.trace, clock: 2 GHz, max_outstanding: 64}
YAML
/usr/bin/time -f '%e %M' -o "$tmp/time" "$strata" run -q "$tmp/bench.yaml" -o "$tmp/out" >/dev/null
read -r wall rss_kb <"$tmp/time"
sim_wall="$(sed -n 's/.*"wall_time_s": \([0-9.e+-]*\).*/\1/p' "$tmp/out/summary.json")"
awk -v n="$n" -v wall="$wall" -v sim="$sim_wall" -v rss="$rss_kb" 'BEGIN {
  printf "requests: %d\nprocess wall time: %.2f s (simulation loop %.2f s)\n", n, wall, sim
  printf "throughput: %.2f M requests/s (process), %.2f M requests/s (simulation loop)\n", n / wall / 1e6, n / sim / 1e6
  printf "peak RSS: %.1f MB\n", rss / 1024 }'
