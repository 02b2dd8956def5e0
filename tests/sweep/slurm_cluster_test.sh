#!/usr/bin/env bash
# Starts a throw-away single-node Slurm cluster (scripts/slurm-cluster) in a temporary directory,
# runs a 4-task job array whose tasks write files (task 3 then exits 3), and checks every task's
# file and its completion record (DIR/jobcomp.txt: state and exit code, the stand-in for sacct).
# The cluster is always stopped. Exit 0: pass; 77: skipped (not root, or no slurm-wlm/munge);
# anything else: fail. Takes about 5-10 s.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cluster="$repo/scripts/slurm-cluster"
tmp="$(mktemp -d /tmp/slurm_cluster_test.XXXXXX)"
dir="$tmp/cluster"
chmod 711 "$tmp"  # munged wants every ancestor of its socket executable by all

fail() { echo "slurm_cluster_test: FAILED: $*" >&2; exit 1; }
cleanup() {
  local rc=$?
  "$cluster" stop "$dir" || { echo "slurm_cluster_test: stop failed" >&2; rc=1; }
  if [[ "$rc" != 0 && "$rc" != 77 && -d "$dir/log" ]]; then
    tail -n 5 "$dir"/log/*.log >&2 || true
  fi
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT

set +e
envfile="$("$cluster" start "$dir")"
rc=$?
set -e
[[ "$rc" == 77 ]] && exit 77
[[ "$rc" == 0 ]] || fail "slurm-cluster start exited $rc"
# shellcheck disable=SC1090
. "$envfile"

mkdir "$tmp/work"
cat >"$tmp/work/task.sh" <<'SCRIPT'
#!/bin/bash
echo "task=$SLURM_ARRAY_TASK_ID array=$SLURM_ARRAY_JOB_ID pwd=$PWD" >"result_$SLURM_ARRAY_TASK_ID.txt"
[[ "$SLURM_ARRAY_TASK_ID" == 3 ]] && exit 3
exit 0
SCRIPT
chmod +x "$tmp/work/task.sh"

cd "$tmp/work"
jobid="$(sbatch --parsable --array=0-3 --time=1 -o "$tmp/work/%A_%a.out" task.sh)"
[[ "$jobid" =~ ^[0-9]+$ ]] || fail "sbatch printed '$jobid'"

deadline=$((SECONDS + 20))
while [[ -n "$(squeue -h -j "$jobid" -r -o '%i %T' 2>/dev/null)" ]]; do
  (( SECONDS < deadline )) || fail "array $jobid still queued after 20 s: $(squeue -h -j "$jobid" -r -o '%i %T' | xargs)"
  sleep 0.2
done

for t in 0 1 2 3; do
  f="$tmp/work/result_$t.txt"
  [[ -f "$f" ]] || fail "task $t wrote no $f"
  want="task=$t array=$jobid pwd=$tmp/work"
  [[ "$(cat "$f")" == "$want" ]] || fail "$f holds '$(cat "$f")', want '$want'"
  [[ -f "$tmp/work/${jobid}_$t.out" ]] || fail "no output file ${jobid}_$t.out"

  # One completion line per task: "JobId=N ... JobState=S ... ArrayJobId=A ArrayTaskId=T ... ExitCode=E:S"
  line="$(grep -E "ArrayJobId=$jobid ArrayTaskId=$t " "$STRATA_SLURM_JOBCOMP" || true)"
  [[ -n "$line" ]] || fail "no completion record for task $t in $STRATA_SLURM_JOBCOMP"
  state="$(grep -o 'JobState=[A-Z_]*' <<<"$line" | cut -d= -f2)"
  code="$(grep -o ' ExitCode=[0-9:]*' <<<"$line" | cut -d= -f2)"
  if [[ "$t" == 3 ]]; then want_state=FAILED want_code=3:0; else want_state=COMPLETED want_code=0:0; fi
  [[ "$state" == "$want_state" && "$code" == "$want_code" ]] \
    || fail "task $t: JobState=$state ExitCode=$code, want $want_state $want_code"
done
echo "slurm_cluster_test: passed (array $jobid, 4 tasks)"
