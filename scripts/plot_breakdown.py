#!/usr/bin/python3
"""Stacked bars per design point: latency by operator class, energy and area by component.

    plot_breakdown.py DIR [--points 0,3,7 | --by AXIS] [--what latency,energy,area]
                          [--label AXIS] [--op-groups class|name] [-o BASE]

Reads each point's stats.json: `<comp>.energy.total` and `<comp>.area.total` (components
grouped by their last name, so core0..coreN's engines add up) and `<root>.ops.<op>.latency`.
"""
import argparse
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc  # noqa: E402

MAX_BARS = 16
# Bottom-to-top stacking order of the NPU's blocks, so that bars of every plot read alike.
COMPONENT_ORDER = ["engine", "vector", "scratchpad", "dma", "noc", "memory"]
UNIT_COLUMN = {"latency": "latency_s", "energy": "energy_j", "area": "area_mm2"}  # for the axis label


def select_points(sw, args):
    """The rows to draw and their bar labels."""
    rows = sw.rows
    if args.points:
        try:
            wanted = [int(p) for p in args.points.split(",") if p.strip()]
        except ValueError:
            raise pc.PlotError(f"--points: expected point indices such as 0,3,7, not '{args.points}'") from None
        by_point = {int(r["point"]): r for r in rows}
        missing = [p for p in wanted if p not in by_point]
        if missing:
            raise pc.PlotError(f"point(s) {', '.join(map(str, missing))} not among the ok points of {sw.csv_path}")
        rows = [by_point[p] for p in wanted]
    elif args.by:
        # One bar per value of AXIS; the other axes stay at the first ok point's values, so that
        # the bars differ in AXIS alone.
        sw.require(args.by)
        first = rows[0]
        others = [a for a in sw.axes if a != args.by and a in sw.columns]
        rows = [r for r in rows if all(r[a] == first[a] for a in others)]
        av = pc.AxisValues(args.by, [r[args.by] for r in rows])
        rank = {v: k for k, v in enumerate(av.order)}
        rows = [rows[i] for i in sorted(range(len(rows)), key=lambda i: rank[av.values[i]])]
        if others:
            held = ", ".join(f"{pc.short_key(a)}={first[a]}" for a in others)
            print(f"holding {held}", file=sys.stderr)
    else:
        pareto = os.path.join(sw.dir, "pareto.csv")
        if os.path.isfile(pareto):
            front = {r["point"] for r in pc.load_sweep(sw.dir, csv_name="pareto.csv").rows}
            rows = [r for r in rows if r["point"] in front] or rows
    if len(rows) > MAX_BARS:
        print(f"showing the first {MAX_BARS} of {len(rows)} points; choose with --points or --by", file=sys.stderr)
        rows = rows[:MAX_BARS]
    label_key = args.by or args.label
    if label_key:
        sw.require(label_key)
        labels = [r[label_key] for r in rows]
    else:
        labels = [f"p{r['point']}" for r in rows]
    return rows, labels


def breakdowns(flat, what, op_groups):
    """{group: value in base units} of one quantity for one point."""
    if what in ("energy", "area"):
        parts = pc.by_component(flat, what)
        total = pc.stat(flat, f"totals.{what}")
        if total and abs(sum(parts.values()) - total) > 0.01 * total:
            print(f"warning: {what} by component sums to {sum(parts.values()):.4g}, totals.{what} is {total:.4g}",
                  file=sys.stderr)
        return parts
    out = {}
    for name, op in pc.operators(flat).items():
        if op["latency"]:
            g = pc.op_class(name) if op_groups == "class" else re.sub(r"\d+$", "", name.split(".")[-1])
            out[g] = out.get(g, 0.0) + op["latency"]
    return out


def group_order(what, totals):
    """Known groups in a fixed order (bars compare across figures), then the rest, largest first."""
    order = pc.OP_CLASSES if what == "latency" else COMPONENT_ORDER
    known = [g for g in order if g in totals]
    rest = sorted((g for g in totals if g not in known), key=lambda g: -totals[g])
    return known + rest


def colour_for(group, what, op_groups, colours):
    """Operator classes keep the roofline's colours; any other group takes the next palette colour
    when first seen, so that a group (memory, say) has one colour in every subplot."""
    if what == "latency" and op_groups == "class":
        return pc.class_colour(group)
    if group not in colours:
        colours[group] = pc.PALETTE[len(colours) % len(pc.PALETTE)]
    return colours[group]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", metavar="DIR", help="sweep directory (results.csv, point directories)")
    sel = ap.add_mutually_exclusive_group()
    sel.add_argument("--points", metavar="P1,P2", help="point indices to draw (default: pareto.csv's points, else all)")
    sel.add_argument("--by", metavar="AXIS", help="one bar per value of AXIS, other axes at the first ok point's values")
    ap.add_argument("--what", default="latency,energy,area", help="quantities, one subplot each (default: %(default)s)")
    ap.add_argument("--label", metavar="AXIS", help="label bars with this axis' value (default: p<point>)")
    ap.add_argument("--op-groups", choices=["class", "name"], default="class",
                    help="latency by operator class (GEMM, attention, ...) or by the op name's last part")
    pc.add_output_args(ap)
    args = ap.parse_args()

    whats = [w.strip() for w in args.what.split(",") if w.strip()]
    for w in whats:
        if w not in UNIT_COLUMN:
            raise pc.PlotError(f"--what: unknown quantity '{w}'; choose from {', '.join(UNIT_COLUMN)}")
    sw = pc.load_sweep(args.dir)
    sw.require("path")
    rows, labels = select_points(sw, args)
    stats = [pc.load_stats(sw.point_dir(r)) for r in rows]

    fig, axes = pc.plt.subplots(len(whats), 1, sharex=True, squeeze=False,
                                figsize=(args.width, args.height or 0.4 + 1.45 * len(whats)))
    pos = np.arange(len(rows))
    colours = {}
    for ax, what in zip(axes[:, 0], whats):
        per_point = [breakdowns(s, what, args.op_groups) for s in stats]
        totals = {}
        for d in per_point:
            for g, v in d.items():
                totals[g] = totals.get(g, 0.0) + v
        if not totals:
            raise pc.PlotError(f"no {what} figures in the points' stats.json (see docs/plots.md for the names read)")
        groups = group_order(what, totals)
        stack = np.array([[d.get(g, 0.0) for d in per_point] for g in groups])
        ylabel, factor = pc.unit_scale(UNIT_COLUMN[what], stack.sum(axis=0))
        bottom = np.zeros(len(rows))
        for k, g in enumerate(groups):
            ax.bar(pos, stack[k] * factor, 0.7, bottom=bottom, label=g, color=colour_for(g, what, args.op_groups, colours),
                   edgecolor="white", lw=0.3)
            bottom += stack[k] * factor
        ax.set_ylabel(ylabel)
        ax.grid(axis="x", visible=False)
        handles, names = ax.get_legend_handles_labels()
        # Reversed so that the legend reads top-down like the stack.
        ax.legend(handles[::-1], names[::-1], loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0,
                  handlelength=1.0)
    last = axes[-1, 0]
    last.set_xticks(pos)
    crowded = max(len(s) for s in labels) * len(labels) > 40  # would the labels overlap if flat?
    last.set_xticklabels(labels, rotation=45 if crowded else 0, ha="right" if crowded else "center")
    if args.by or args.label:
        last.set_xlabel(pc.pretty_name(args.by or args.label))
    fig.align_ylabels(axes[:, 0])
    pc.save(fig, pc.output_base(args, args.dir, "breakdown", "-".join(whats)))


if __name__ == "__main__":
    pc.run_main(main)
