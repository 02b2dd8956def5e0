#!/usr/bin/env bash
# CPU time of the NPU runs that issue 20 set targets for, at cycle level: a Llama-2-7B INT8
# decode token on the TPUv4i-style NPU (all 32 layers, or LAYERS) and GPT-2 decode on the edge
# NPU, each with sim.reuse: layers (the default) and none,
# a Mixtral MoE layer, and SCALE-Sim's 1024x4096x4096 GEMM on a 128x128 output-stationary array
# with 64 KiB SRAMs (the whole NPU, its DMA through DRAM). Prints a markdown table with the
# simulated latency and peak memory. Speed is measured here, never asserted in a test.
#   tests/bench/npu_runs.sh [LAYERS]
set -euo pipefail
# shellcheck source=tests/bench/bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
layers="${1:-32}"
bench() {  # bench LABEL ARGS...
  local label="$1"; shift
  /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$strata" run -q "$@" -o "$tmp/out" >/dev/null
  read -r user sys rss_kb <"$tmp/time"
  awk -v label="$label" -v cpu="$(echo "$user + $sys" | bc)" -v lat="$(summary latency_s "$tmp/out/summary.json")" \
      -v rss="$rss_kb" 'BEGIN { printf "| %s | %.2f s | %.4g ms | %.0f MB |\n", label, cpu, lat * 1e3, rss / 1024 }'
  rm -rf "$tmp/out"
}

cat >"$tmp/a128.cfg" <<'CFG'
[general]
run_name = a128_os
[architecture_presets]
ArrayHeight: 128
ArrayWidth: 128
IfmapSramSzkB: 64
FilterSramSzkB: 64
OfmapSramSzkB: 64
IfmapOffset: 0
FilterOffset: 10000000
OfmapOffset: 20000000
Bandwidth : 10
Dataflow : os
MemoryBanks: 1
[run_presets]
InterfaceBandwidth: CALC
CFG
printf 'Layer,M,N,K,\nGEMM_1024_4096_4096,1024,4096,4096,\n' >"$tmp/gemm.csv"

echo "| run | CPU time | simulated latency | peak RSS |"
echo "|---|---|---|---|"
bench "Llama-2-7B INT8 decode token, TPUv4i-style, $layers layers" configs/experiments/npu-llama-decode.yaml \
  --set "workload.model.layers=$layers"
bench "the same, sim.reuse: none" configs/experiments/npu-llama-decode.yaml --set "workload.model.layers=$layers" \
  --set sim.reuse=none
bench "GPT-2 decode step, edge NPU" configs/experiments/npu-gpt2-decode-edge.yaml
bench "the same, sim.reuse: none" configs/experiments/npu-gpt2-decode-edge.yaml --set sim.reuse=none
bench "Mixtral-8x7B MoE layer, TPUv4i-style" configs/experiments/npu-mixtral-moe.yaml
bench "SCALE-Sim GEMM 1024x4096x4096, 128x128 OS, 64 KiB SRAMs" --scalesim-config "$tmp/a128.cfg" \
  --scalesim-topology "$tmp/gemm.csv"
