#!/usr/bin/python3
"""Roofline of one design point with the workload's operators placed on it.

    plot_roofline.py DIR [--point P] [--peak-flops F] [--peak-bandwidth B] [--annotate N] [-o BASE]
    plot_roofline.py POINT_DIR ...

x = arithmetic intensity (ops.<op>.flops / ops.<op>.dram_bytes, FLOP/B), y = achieved FLOP/s
(flops / latency). Roofs: --peak-flops / --peak-bandwidth if given, else stats.json's
hardware.peak_flops and hardware.peak_bandwidth (hardware.memory.peak_bandwidth for the latter).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc  # noqa: E402


def find_point(args):
    """(point directory, output directory, what): DIR is a point itself or a sweep."""
    if os.path.isfile(os.path.join(args.dir, "stats.json")):
        if args.point is not None:
            raise pc.PlotError(f"{args.dir} is a result directory, not a sweep: --point does not apply")
        return args.dir, args.dir, "point"
    sw = pc.load_sweep(args.dir)
    sw.require("path")
    if args.point is None:
        row = sw.rows[0]
        print(f"roofline of point {row['point']} (choose with --point)", file=sys.stderr)
    else:
        match = [r for r in sw.rows if r["point"] == str(args.point)]
        if not match:
            raise pc.PlotError(f"point {args.point} is not among the ok points of {sw.csv_path}")
        row = match[0]
    return sw.point_dir(row), args.dir, f"p{row['point']}"


def peak(option, flat, names, unit, what):
    """The roof from the command line, else the first stat present (scaled to FLOP/s or B/s)."""
    if option is not None:
        return pc.parse_si(option, what)
    for n in names:
        v = pc.stat(flat, n, unit)
        if v:
            return v
    raise pc.PlotError(f"no {' or '.join(names)} in stats.json; give {what} (e.g. {what} 2e12)")


def label_bandwidth_roof(ax, bw_roof, x, div):
    """Writes the bandwidth along its roof; the slope's angle on screen depends on the limits."""
    p0, p1 = ax.transData.transform([(x, bw_roof * x / div), (x * 2, bw_roof * x * 2 / div)])
    angle = np.degrees(np.arctan2(p1[1] - p0[1], p1[0] - p0[0]))
    prefix, scale = pc.choose_prefix([bw_roof], "kMGT")
    ax.annotate(f"{pc.fmt_value(bw_roof / scale)} {prefix}B/s", (x, bw_roof * x / div), xytext=(0, 3),
                textcoords="offset points", fontsize=7, rotation=angle, rotation_mode="anchor")


def annotate_longest(ax, names, x, y, lat, n):
    """Names the n longest operators; operators at the same spot (the layers' identical GEMMs)
    share one label instead of overprinting."""
    spots = {}
    for i in np.argsort(-lat)[:n]:
        key = (round(np.log10(x[i]), 1), round(np.log10(y[i]), 1))
        spots.setdefault(key, []).append(i)
    for members in spots.values():
        i = members[0]
        text = names[i] + (f" (+{len(members) - 1})" if len(members) > 1 else "")
        ax.annotate(text, (x[i], y[i]), xytext=(4, -3), textcoords="offset points", fontsize=6, va="top")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", metavar="DIR", help="sweep directory, or one result directory (with stats.json)")
    ap.add_argument("--point", type=int, help="point index in a sweep (default: the first ok point)")
    ap.add_argument("--peak-flops", metavar="F", help="compute roof in FLOP/s, e.g. 2.05e12 or '2.05 TFLOP/s'")
    ap.add_argument("--peak-bandwidth", metavar="B", help="memory roof in B/s, e.g. 25.6e9 or '25.6 GB/s'")
    ap.add_argument("--annotate", type=int, default=0, metavar="N", help="name the N longest-running operators")
    pc.add_output_args(ap)
    args = ap.parse_args()

    point_dir, out_dir, what = find_point(args)
    flat = pc.load_stats(point_dir)
    flops_roof = peak(args.peak_flops, flat, ["hardware.peak_flops"], "FLOP/s", "--peak-flops")
    bw_roof = peak(args.peak_bandwidth, flat, ["hardware.peak_bandwidth", "hardware.memory.peak_bandwidth"],
                   "B/s", "--peak-bandwidth")

    ops = pc.operators(flat)
    if not ops:
        raise pc.PlotError(f"no ops.<name>.latency in {point_dir}/stats.json: nothing to place on the roofline")
    # Operators without FLOPs (copies, embeddings) or without DRAM traffic have no finite
    # intensity; they cannot sit on a log-log roofline.
    placed = {n: o for n, o in ops.items() if (o["flops"] or 0) > 0 and (o["dram_bytes"] or 0) > 0 and (o["latency"] or 0) > 0}
    if len(placed) < len(ops):
        print(f"{len(ops) - len(placed)} of {len(ops)} operators have no FLOPs or no DRAM bytes; not shown", file=sys.stderr)
    if not placed:
        raise pc.PlotError("no operator has both FLOPs and DRAM bytes")
    names = list(placed)
    ai = np.array([placed[n]["flops"] / placed[n]["dram_bytes"] for n in names])
    perf = np.array([placed[n]["flops"] / placed[n]["latency"] for n in names])
    lat = np.array([placed[n]["latency"] for n in names])
    ridge = flops_roof / bw_roof

    prefix, div = pc.choose_prefix([flops_roof, perf.max()], "kMGTP")
    fig, ax = pc.plt.subplots(figsize=(args.width, args.height or 2.6))
    ax.set_xscale("log")
    ax.set_yscale("log")
    lo = min(ai.min(), ridge) / 4
    hi = max(ai.max(), ridge) * 4
    xs = np.geomspace(lo, hi, 200)
    ax.plot(xs, np.minimum(flops_roof, bw_roof * xs) / div, color="black", lw=1.2, zorder=2)
    ax.axvline(ridge, color="black", ls=":", lw=0.8, zorder=1)
    ax.plot([ridge], [flops_roof / div], "o", color="black", ms=3, zorder=3)
    ax.annotate(f"ridge {ridge:.3g} FLOP/B", (ridge, flops_roof / div), xytext=(4, -10),
                textcoords="offset points", fontsize=7)
    ax.annotate(f"{pc.fmt_value(flops_roof / div)} {prefix}FLOP/s", (hi, flops_roof / div), xytext=(-2, 3),
                textcoords="offset points", fontsize=7, ha="right")

    # Marker area grows with the operator's share of the run time: the big ones matter.
    size = 8 + 60 * lat / lat.sum()
    classes = [pc.op_class(n) for n in names]
    for cls in (c for c in pc.OP_CLASSES if c in classes):
        sel = [i for i, c in enumerate(classes) if c == cls]
        ax.scatter(ai[sel], perf[sel] / div, s=size[sel], color=pc.class_colour(cls),
                   marker=pc.MARKERS[pc.OP_CLASSES.index(cls) % len(pc.MARKERS)], label=cls,
                   edgecolor="white", lw=0.3, zorder=4)
    annotate_longest(ax, names, ai, perf / div, lat, args.annotate)
    ax.set_xlim(lo, hi)
    # Fixed limits before the bandwidth label, whose angle is measured on screen.
    ax.set_ylim(min(perf.min(), bw_roof * lo) / div / 2, flops_roof / div * 3)
    label_bandwidth_roof(ax, bw_roof, lo * 1.6, div)
    ax.set_xlabel("arithmetic intensity (FLOP/B)")
    ax.set_ylabel(f"performance ({prefix}FLOP/s)")
    legend = ax.legend(loc="lower right")
    for h in legend.legendHandles:
        h.set_sizes([20])  # the legend shows the class, not one operator's size
    pc.save(fig, pc.output_base(args, out_dir, "roofline", what))


if __name__ == "__main__":
    pc.run_main(main)
