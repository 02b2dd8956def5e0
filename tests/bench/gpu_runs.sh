#!/usr/bin/env bash
# Speed of the GPU model: microbenchmark kernels spread over every SM of the H100 preset (a
# grid of several CTAs per SM), compute-bound and then memory-bound (through the L2 and the
# HBM3 model), as simulated warp instructions per CPU-second, with the simulated time and peak
# memory. Speed is measured here, never asserted in a test.
#   tests/bench/gpu_runs.sh [ITERATIONS]
set -euo pipefail
# shellcheck source=tests/bench/bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
iterations="${1:-2048}"
bench() {  # bench LABEL WORKLOAD-KEYS
  local label="$1" keys="$2"
  cat >"$tmp/e.yaml" <<YAML
name: gpu-bench
hardware: {extends: $PWD/configs/hardware/gpu/h100-sxm.yaml}
workload: {kind: gpu_microbenchmark, iterations: $iterations, $keys}
YAML
  /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$strata" run -q "$tmp/e.yaml" -o "$tmp/out" >/dev/null
  read -r user sys rss_kb <"$tmp/time"
  awk -v label="$label" -v cpu="$(echo "$user + $sys" | bc)" -v n="$(summary warp_instructions "$tmp/out/summary.json")" \
      -v sim="$(summary simulated_time_s "$tmp/out/summary.json")" -v rss="$rss_kb" 'BEGIN {
    printf "| %s | %.0f | %.2f s | %.2f M | %.1f us | %.0f MB |\n", label, n, cpu, n / cpu / 1e6, sim * 1e6, rss / 1024 }'
  rm -rf "$tmp/out"
}

echo "| kernel (H100, 132 SMs) | warp instructions | CPU time | warp instructions per CPU-second | simulated time | peak RSS |"
echo "|---|---|---|---|---|---|"
bench "wgmma FP16 m64n128k16, 4 warp groups an SM" "benchmark: wgmma_rate, warps: 16, ctas: 132"
bench "mma.sync FP16 m16n8k16, 16 warps x 4 CTAs an SM" "benchmark: mma_rate, ctas: 528"
bench "FFMA issue, 32 warps x 2 CTAs an SM" "benchmark: issue_rate, ctas: 264"
bench "dependent FFMA chains, 1 warp x 32 CTAs an SM" "benchmark: ffma_chain, ctas: 4224"
bench "shared loads, 2-way conflict, 32 warps x 2 CTAs an SM" "benchmark: shared_bandwidth, lane_stride: 8 B, ctas: 264"
bench "HBM stream: every SM sums 64 MiB, 128 B loads (memory-bound)" "benchmark: global_read, footprint: 64 MiB"
bench "HBM copy: every SM copies 64 MiB (memory-bound)" "benchmark: global_copy, footprint: 64 MiB"
bench "HBM through TMA: 8 CTAs an SM stream 64 MiB in 4 KiB boxes (memory-bound)" "benchmark: tma_read, footprint: 64 MiB"
