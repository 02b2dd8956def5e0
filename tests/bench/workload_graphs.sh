#!/usr/bin/env bash
# Throughput of the workload layer: generates a large operator graph (Mixtral-8x7B, batch 8,
# 1,024-token prefill then 128 decode steps: ~87,000 operators), summarizes it, writes it as a
# JSON Lines trace and reads the trace back. Prints operators per wall-second and peak memory
# of each step. Not part of the test suite (speed is measured, never asserted).
#   tests/bench/workload_graphs.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
strata="${STRATA:-build/bin/strata}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/gen.yaml" <<YAML
workload:
  kind: transformer
  phase: generate
  batch: 8
  prompt_len: 1024
  gen_tokens: 128
  model: {extends: $PWD/configs/models/mixtral-8x7b.yaml}
YAML
printf 'workload: {kind: op_trace, path: %s}\n' "$tmp/graph.jsonl" >"$tmp/replay.yaml"
ops="$("$strata" workload info --json "$tmp/gen.yaml" | sed -n 's/^  "ops": \([0-9]*\),*/\1/p')"
measure() {  # measure LABEL COMMAND...
  local label="$1"; shift
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$@" >/dev/null
  read -r wall rss_kb <"$tmp/time"
  awk -v l="$label" -v n="$ops" -v w="$wall" -v r="$rss_kb" \
    'BEGIN { printf "%-28s %6.2f s  %8.0f k ops/s  peak RSS %6.1f MB\n", l, w, n / w / 1e3, r / 1024 }'
}
echo "operators: $ops"
measure "generate + summarize" "$strata" workload info "$tmp/gen.yaml"
measure "generate + export trace" "$strata" trace export "$tmp/gen.yaml" -o "$tmp/graph.jsonl"
echo "trace size: $(du -m "$tmp/graph.jsonl" | cut -f1) MB"
measure "read trace + summarize" "$strata" workload info "$tmp/replay.yaml"
