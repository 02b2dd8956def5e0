#!/usr/bin/env bash
# CPU time of the PIM examples at cycle level, and the rate their command streams simulate at:
# DRAM and PIM commands per CPU-second, counted once for the one controller simulated and for
# every channel it stands for (all channels run the same stream). Compare with
# tests/bench/dram_throughput.sh (the DRAM model's commands per CPU-second under streaming reads).
# Speed is measured here, never asserted in a test.
#   tests/bench/pim_runs.sh
set -euo pipefail
# shellcheck source=tests/bench/bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
stat() {  # stat FILE NAME: a counter of the design
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['hardware'][sys.argv[2]]['value'])" "$1" "$2"
}
bench() {  # bench LABEL ARGS...
  local label="$1"; shift
  /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$strata" run -q "$@" -o "$tmp/out" >/dev/null
  read -r user sys rss_kb <"$tmp/time"
  awk -v label="$label" -v cpu="$(echo "$user + $sys" | bc)" -v lat="$(summary latency_s "$tmp/out/summary.json")" \
      -v sim="$(stat "$tmp/out/stats.json" simulated_commands)" -v all="$(stat "$tmp/out/stats.json" dram_commands)" \
      -v rss="$rss_kb" 'BEGIN { printf "| %s | %.3f s | %.4g ms | %.3g M | %.3g M | %.3g M | %.0f MB |\n", label, cpu,
                                lat * 1e3, sim / 1e6, sim / cpu / 1e6, all / cpu / 1e6, rss / 1024 }'
  rm -rf "$tmp/out"
}
echo "| run | CPU time | simulated latency | commands simulated | simulated per CPU-s | all channels' per CPU-s | peak RSS |"
echo "|---|---|---|---|---|---|---|"
bench "pim-gemv 8192^2 (HBM-PIM), PIM only" "configs/experiments/pim-gemv.yaml" --set hardware.compare_without_pim=false
bench "pim-gemv with the no-PIM baseline" "configs/experiments/pim-gemv.yaml"
bench "pim-gemv 32768 x 8192, sim.check_protocol" "configs/experiments/pim-gemv.yaml" --set workload.n=32768 \
  --set hardware.compare_without_pim=false --set sim.check_protocol=true
bench "pim-gpt2-decode (PIM-GPT)" "configs/experiments/pim-gpt2-decode.yaml"
bench "pim-llama-attention (AttAcc, Llama-2-7B b8)" "configs/experiments/pim-llama-attention.yaml"
