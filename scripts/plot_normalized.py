#!/usr/bin/python3
"""Grouped bars of objectives normalised to one baseline design, the figure accelerator papers draw.

    plot_normalized.py DIR --baseline AXIS=VALUE --x AXIS[,AXIS...] [--y COLUMNS] [--agg gmean|mean]
                       [--logy] [-o BASE]

One subplot per column of --y (default: the sweep's objectives), one group of bars per value of
--x (several axes joined: "cora/gcn"), one bar per value of the baseline's axis. Each point is
divided by the baseline's point that shares every other axis value (but axes that follow the
baseline's axis, zipped with it, such as each design's own precision); latency_s and columns ending
in _s are shown as speed-up (baseline over point), the rest as the point over the baseline.
Points that differ only in axes other than --x and the baseline's are reduced with --agg (the
geometric mean by default, as papers average ratios). BASE.csv holds the plotted table.
"""
import argparse
import csv
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc  # noqa: E402


def gmean(values):
    return float(np.exp(np.mean(np.log(values))))


AGG = {"gmean": gmean, "mean": lambda v: float(np.mean(v))}


def is_time(column):
    return column == "latency_s" or column.endswith("_s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", metavar="DIR", help="sweep directory (results.csv, sweep.json)")
    ap.add_argument("--baseline", required=True, metavar="AXIS=VALUE", help="the design every point is divided by")
    ap.add_argument("--x", required=True, metavar="AXIS[,AXIS]", help="axis (or axes) of the bar groups")
    ap.add_argument("--y", metavar="COLUMNS", help="comma-separated columns (default: the objectives)")
    ap.add_argument("--agg", choices=sorted(AGG), default="gmean", help="reduce ratios over the other axes")
    ap.add_argument("--logy", action="store_true", help="logarithmic y axes")
    pc.add_output_args(ap)
    args = ap.parse_args()

    sw = pc.load_sweep(args.dir)
    if "=" not in args.baseline:
        raise pc.PlotError(f"--baseline: expected AXIS=VALUE, got '{args.baseline}'")
    base_axis, base_value = args.baseline.split("=", 1)
    designs = pc.axis_values(sw, base_axis)
    if base_value not in [str(v) for v in designs.raw]:
        raise pc.PlotError(f"--baseline: axis '{base_axis}' has no value '{base_value}' "
                           f"(values: {', '.join(dict.fromkeys(designs.raw))})")
    x_axes = args.x.split(",")
    xs = [pc.axis_values(sw, a) for a in x_axes]
    columns = args.y.split(",") if args.y else [o["key"] for o in sw.objectives]
    if not columns:
        raise pc.PlotError("--y: give the columns (the sweep has no objectives)")
    # Axes that follow the baseline's axis (zipped with it: each design's own precision) are not
    # matched; every other axis is.
    def follows_designs(axis):
        seen = {}
        for d, v in zip(designs.raw, sw.raw(axis)):
            if seen.setdefault(d, v) != v:
                return False
        return True

    others = [a for a in sw.axes if a not in x_axes and a != base_axis and a in sw.columns and not follows_designs(a)]
    other_values = [sw.raw(a) for a in others]
    labels = ["/".join(str(x.raw[i]) for x in xs) for i in range(len(sw.rows))]
    group_order = list(dict.fromkeys(labels))
    design_order = list(dict.fromkeys(designs.raw))

    def key(i):
        return (labels[i], tuple(v[i] for v in other_values))

    table = []  # (column, group, design, ratio)
    for column in columns:
        y = sw.numeric(column)
        base = {key(i): y[i] for i in range(len(y)) if designs.raw[i] == base_value and np.isfinite(y[i])}
        ratios = {}
        for i in range(len(y)):
            b = base.get(key(i))
            if b is None or not np.isfinite(y[i]) or y[i] <= 0 or b <= 0:
                continue
            r = b / y[i] if is_time(column) else y[i] / b
            ratios.setdefault((labels[i], designs.raw[i]), []).append(r)
        if not ratios:
            raise pc.PlotError(f"column '{column}': no point shares its other axes with a {base_axis}={base_value} point")
        for g in group_order:
            for d in design_order:
                if (g, d) in ratios:
                    table.append((column, g, d, AGG[args.agg](ratios[(g, d)])))

    fig, axes = pc.plt.subplots(len(columns), 1, figsize=(args.width, args.height or 1.9 * len(columns)), squeeze=False,
                                sharex=True)
    width = 0.8 / len(design_order)
    for ax, column in zip(axes[:, 0], columns):
        for k, d in enumerate(design_order):
            pos, vals = [], []
            for gi, g in enumerate(group_order):
                for c, gg, dd, r in table:
                    if c == column and gg == g and dd == d:
                        pos.append(gi + (k - (len(design_order) - 1) / 2) * width)
                        vals.append(r)
            ax.bar(pos, vals, width, color=pc.PALETTE[k % len(pc.PALETTE)], label=str(d))
        ax.axhline(1.0, color="0.3", lw=0.6)
        # A ratio has no unit: "energy_j" reads "energy".
        name = pc.pretty_name(re.sub(r"_(j|w|mm2|bytes|gbps)$", "", column))
        ax.set_ylabel(f"speed-up over {base_value}" if is_time(column) else f"{name}\n/ {base_value}")
        if args.logy:
            ax.set_yscale("log")
    tilt = len(group_order) > 4
    axes[-1, 0].set_xticks(range(len(group_order)))
    axes[-1, 0].set_xticklabels(group_order, rotation=30 if tilt else 0, ha="right" if tilt else "center")
    # Above the first panel, clear of the bars.
    axes[0, 0].legend(title=designs.label(), loc="lower center", bbox_to_anchor=(0.5, 1.02),
                      ncol=min(len(design_order), 6), frameon=False)
    if others:
        print(f"ratios reduce over {', '.join(others)} by {args.agg}", file=sys.stderr)
    base_path = pc.output_base(args, args.dir, "normalized", f"{pc.short_key(base_axis)}-{base_value}")
    pc.save(fig, base_path)
    with open(f"{base_path}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["column", "group", base_axis, "normalized"])
        for c, g, d, r in table:
            w.writerow([c, g, d, f"{r:.6g}"])
    print(f"{base_path}.csv")


if __name__ == "__main__":
    pc.run_main(main)
