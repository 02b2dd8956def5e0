#!/usr/bin/env bash
# Throughput of the sweep engine: a 1,000-point analytic sweep (the edge NPU on a GPT-2 decode
# step, Latin-hypercube over array size, clock and quantization) and a 100-point cycle-level
# sweep (the quickstart trace over queue depth x latency), each with the local executor.
# Prints points per second and the per-point overhead: wall time per point minus the time the
# points spent simulating (summary wall_time_s), with its parts (process start, config
# resolution, result writing) measured separately. Speed is measured here, never asserted.
#   tests/bench/sweep_throughput.sh [JOBS]
set -euo pipefail
cd "$(dirname "$0")/../.."
jobs="${1:-$(nproc)}"
strata="$(realpath "${STRATA:-build/bin/strata}")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
mean_time() {  # mean_time N COMMAND...: mean wall seconds of N runs
  local n="$1"; shift
  local t0 t1
  t0="$(now)"
  for _ in $(seq "$n"); do "$@" >/dev/null; done
  t1="$(now)"
  echo "($t1 - $t0) / $n" | bc -l
}

cat >"$tmp/analytic.yaml" <<YAML
extends: $PWD/configs/experiments/npu-gpt2-decode-edge.yaml
name: bench-analytic
sim: {fidelity: analytic}
sweep:
  method: lhs
  samples: 1000
  seed: 1
  axes:
    hardware.core.engine.rows: {range: [4, 128]}
    hardware.core.engine.cols: {range: [4, 128]}
    hardware.clock: {range: ["0.5 GHz", "2 GHz"], scale: log}
    workload.quant.weights: [int8, int4, fp8_e4m3, fp16]
YAML
cat >"$tmp/cycle.yaml" <<YAML
extends: $PWD/configs/experiments/quickstart.yaml
name: bench-cycle
sweep:
  axes:
    hardware.queue_depth: {range: [4, 40], step: 4}
    hardware.latency: {range: ["10 ns", "100 ns"], steps: 10}
YAML

sweep() {  # sweep LABEL FILE JOBS: prints a table row
  local label="$1" file="$2" j="$3"
  local out
  out="$tmp/out-$(basename "$file" .yaml)-$j"
  local t0 t1
  t0="$(now)"
  "$strata" sweep "$file" -o "$out" --jobs "$j" --no-progress >/dev/null
  t1="$(now)"
  local n sim
  n="$(sqlite3 "$out/results.sqlite" "SELECT COUNT(*) FROM points WHERE status='ok'")"
  sim="$(sqlite3 "$out/results.sqlite" "SELECT SUM(wall_time_s) FROM points")"
  awk -v l="$label" -v j="$j" -v n="$n" -v w="$(echo "$t1 - $t0" | bc -l)" -v s="$sim" 'BEGIN {
    printf "| %s | %d | %d | %.1f s | %.1f | %.1f ms | %.1f ms |\n", l, n, j, w, n / w, s / n * 1e3, (w * j - s) / n * 1e3 }'
}

echo "| sweep | points | jobs | wall | points/s | simulating per point | overhead per point |"
echo "|---|---|---|---|---|---|---|"
sweep "analytic NPU (1,000-point LHS)" "$tmp/analytic.yaml" 1
sweep "analytic NPU (1,000-point LHS)" "$tmp/analytic.yaml" "$jobs"
sweep "cycle quickstart (100-point grid)" "$tmp/cycle.yaml" 1
sweep "cycle quickstart (100-point grid)" "$tmp/cycle.yaml" "$jobs"

# The overhead's parts, each the mean of 20 runs.
start="$(mean_time 20 "$strata" --version)"
resolve="$(mean_time 20 "$strata" config --hash configs/experiments/quickstart.yaml)"
run="$(mean_time 20 "$strata" run -q configs/experiments/quickstart.yaml -o "$tmp/one")"
sim_s="$(sed -n 's/.*"wall_time_s": \([0-9.e+-]*\).*/\1/p' "$tmp/one/summary.json")"
echo
echo "| part | per point |"
echo "|---|---|"
awk -v a="$start" -v b="$resolve" -v c="$run" -v s="$sim_s" 'BEGIN {
  printf "| process start (strata --version) | %.1f ms |\n", a * 1e3
  printf "| config resolution (strata config --hash, less start) | %.1f ms |\n", (b - a) * 1e3
  printf "| elaboration and result writing (strata run, less resolution and simulation) | %.1f ms |\n", (c - b - s) * 1e3 }'
