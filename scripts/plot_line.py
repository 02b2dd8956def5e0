#!/usr/bin/python3
"""Lines of one objective against one sweep axis, one line per value of another axis.

    plot_line.py DIR --x AXIS --y COLUMN [--group AXIS] [--agg min|max|mean] [--logx] [--logy] [-o BASE]

Points that differ only in axes other than --x and --group are reduced with --agg (default: the
objective's best, min unless sweep.json says max).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc  # noqa: E402

AGG = {"min": np.min, "max": np.max, "mean": np.mean}


def powers_of_two(values):
    return all(v > 0 and float(v).is_integer() and (int(v) & (int(v) - 1)) == 0 for v in values)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", metavar="DIR", help="sweep directory (results.csv, sweep.json)")
    ap.add_argument("--x", required=True, metavar="AXIS", help="axis along x")
    ap.add_argument("--y", required=True, metavar="COLUMN", help="objective or output along y")
    ap.add_argument("--group", metavar="AXIS", help="one line per value of this axis")
    ap.add_argument("--agg", choices=sorted(AGG), help="reduce points that share x and group (default: the best)")
    ap.add_argument("--logx", action="store_true", help="logarithmic x axis (base 2 for powers of two)")
    ap.add_argument("--logy", action="store_true", help="logarithmic y axis")
    pc.add_output_args(ap)
    args = ap.parse_args()

    sw = pc.load_sweep(args.dir)
    xa = pc.axis_values(sw, args.x)
    y = sw.numeric(args.y)
    ga = pc.axis_values(sw, args.group) if args.group else None
    agg = args.agg or sw.sense(args.y)
    ylabel, factor = pc.unit_scale(args.y, y)
    if args.logx and not xa.numeric:
        raise pc.PlotError(f"--logx: axis '{args.x}' is not numeric (values such as '{xa.raw[0]}')")

    fig, ax = pc.plt.subplots(figsize=(args.width, args.height or 2.4))
    # Text-valued axes (int8, int4) are spaced evenly in sweep order.
    pos = {v: (v if xa.numeric else k) for k, v in enumerate(xa.order)}
    groups = ga.order if ga else [None]
    for k, g in enumerate(groups):
        xs, ys = [], []
        for xv in xa.order:
            sel = [y[i] for i in range(len(y)) if xa.values[i] == xv and (ga is None or ga.values[i] == g)
                   and np.isfinite(y[i])]
            if sel:
                xs.append(pos[xv])
                ys.append(AGG[agg](sel) * factor)
        ax.plot(xs, ys, color=pc.PALETTE[k % len(pc.PALETTE)], ls=pc.LINESTYLES[k % len(pc.LINESTYLES)],
                marker=pc.MARKERS[k % len(pc.MARKERS)], label=None if g is None else ga.tick(g))
    if args.logx:
        ax.set_xscale("log", base=2 if powers_of_two(xa.order) else 10)
    if xa.numeric and len(xa.order) <= 10 or not xa.numeric:
        # Few sweep values: tick exactly at them, as written.
        ax.set_xticks([pos[v] for v in xa.order])
        ax.set_xticklabels([xa.tick(v) for v in xa.order])
        ax.minorticks_off()
    if not xa.numeric:
        ax.margins(x=0.15)
    if args.logy:
        ax.set_yscale("log")
    ax.set_xlabel(xa.label())
    ax.set_ylabel(ylabel)
    if ga:
        ax.legend(title=ga.label(), loc="best")
    others = [a for a in sw.axes if a not in (args.x, args.group) and a in sw.columns]
    if others:
        print(f"points reduce over {', '.join(others)} by {agg}", file=sys.stderr)
    what = f"{args.y}-{pc.short_key(args.x)}" + (f"-{pc.short_key(args.group)}" if args.group else "")
    pc.save(fig, pc.output_base(args, args.dir, "line", what))


if __name__ == "__main__":
    pc.run_main(main)
