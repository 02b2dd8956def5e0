#!/usr/bin/python3
"""Which systolic-array shapes of the edge NPU are worth their silicon?

Sweeps the array's rows x columns (8 to 128 each) under W8A8 and FP16 on a GPT-2 prefill,
every point with the closed-form analytic model (a few seconds for the 50 points), loads the
results into pandas, prints the Pareto fronts of latency against area and against energy,
and draws the first.

    /usr/bin/python3 scripts/python/examples/npu_array_pareto.py [FIGURE.png|.pdf]
        [--sizes 8,16,32,64,128] [--prompt-len 512] [--sweep-dir DIR] [--jobs N]

FIGURE defaults to DIR/npu-array-pareto.png, DIR to results/npu-array-pareto/ in the checkout.
The `# %%` marks make the file a notebook in Jupyter (jupytext) or VS Code, cell by cell.
"""
# %% Setup: the package from the source tree when it is not installed.
import argparse
import sys
from pathlib import Path

try:
    import strata
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import strata

import matplotlib.pyplot as plt

REPO = Path(__file__).resolve().parents[3]

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("figure", nargs="?", help="output figure (.png or .pdf; default DIR/npu-array-pareto.png)")
ap.add_argument("--sizes", default="8,16,32,64,128", help="array rows and columns to try (each)")
ap.add_argument("--prompt-len", type=int, default=512, help="prefill tokens (512: compute matters)")
ap.add_argument("--sweep-dir", default=str(REPO / "results" / "npu-array-pareto"))
ap.add_argument("--jobs", type=int, help="points at once (default: the number of cores)")
# parse_known_args: a notebook kernel passes its own arguments.
args, _ = ap.parse_known_args()
sizes = [int(s) for s in args.sizes.split(",")]
sweep_dir = Path(args.sweep_dir)
figure = Path(args.figure) if args.figure else sweep_dir / "npu-array-pareto.png"

# %% The sweep file: the GPT-2 experiment on the edge NPU, with rows and columns as independent
# axes (not zipped, unlike configs/sweeps/npu-array-quant.yaml) so that tall and wide arrays
# compete with square ones. It lives in the sweep directory, next to what it produced.
spec = f"""\
extends: {REPO / "configs/experiments/npu-gpt2-decode-edge.yaml"}
name: npu-array-pareto
workload:
  phase: prefill
  model: {{layers: 2}}
sweep:
  axes:
    hardware.core.engine.rows: {strata.to_yaml(sizes)}
    hardware.core.engine.cols: {strata.to_yaml(sizes)}
    workload.quant:
      name: quant
      values:
        W8A8: {{weights: int8, activations: int8, kv_cache: int8, accumulate: fp32}}
        FP16: {{weights: fp16, activations: fp16, kv_cache: fp16, accumulate: fp32}}
  objectives: {{latency_s: min, area_mm2: min, energy_j: min}}
  outputs: {{edp: "latency_s * energy_j"}}
"""
sweep_dir.mkdir(parents=True, exist_ok=True)
sweep_file = sweep_dir / "npu-array-pareto.yaml"
sweep_file.write_text(spec)

# %% Run it. The overrides apply to every point: the analytic model instead of the cycle-level
# one (milliseconds a point) and the prompt length.
df = strata.sweep(sweep_file, {"sim.fidelity": "analytic", "workload.prompt_len": args.prompt_len},
                  output=sweep_dir, jobs=args.jobs)
df = df[df.status == "ok"].copy()
df["shape"] = df["hardware.core.engine.rows"].astype(str) + "x" + df["hardware.core.engine.cols"].astype(str)
print(f"{len(df)} points from {sweep_dir}")

# %% The fronts, as tables: a design is on one unless another is as fast and as small (or as
# frugal) and better in one of the two.
fronts = {y: strata.pareto_front(df, "latency_s", y) for y in ("area_mm2", "energy_j")}
for y, front in fronts.items():
    print(f"\nlatency vs {y}: {len(front)} of {len(df)} designs on the front")
    print(front[["shape", "quant", "latency_s", "area_mm2", "energy_j", "edp"]].to_string(index=False))

# %% The figure: latency against area, every design coloured by quantization, and the front as
# a staircase (the region between two front points is not reachable by any design swept).
front = fronts["area_mm2"]
fig, ax = plt.subplots(figsize=(4.5, 3.2))
for (quant, group), marker in zip(df.groupby("quant", sort=False), "os^v"):
    ax.scatter(group.latency_s * 1e3, group.area_mm2, s=14, marker=marker, alpha=0.7, label=quant)
ax.plot(front.latency_s * 1e3, front.area_mm2, drawstyle="steps-post", color="black", lw=0.9,
        marker="o", ms=7, mfc="none", label="Pareto front")
for _, row in front.iterrows():
    ax.annotate(row["shape"], (row.latency_s * 1e3, row.area_mm2), xytext=(4, 2),
                textcoords="offset points", fontsize=7)
ax.set_xscale("log")
ax.set_xlabel("latency (ms)")
ax.set_ylabel("area (mm²)")
ax.set_title(f"Edge NPU arrays, GPT-2 prefill of {args.prompt_len} tokens (analytic)", fontsize=9)
ax.grid(alpha=0.4, lw=0.4)
ax.legend(fontsize=7, frameon=False)
figure.parent.mkdir(parents=True, exist_ok=True)
fig.savefig(figure, dpi=200, bbox_inches="tight")
print(f"\nfigure: {figure}")

# %% The same sweep as `strata plot pareto` draws it (paper style, PNG and PDF), by the same code.
for path in strata.plot("pareto", sweep_dir, x="latency_s", y="area_mm2", color="quant", logx=True):
    print(f"figure: {path}")
