#!/usr/bin/python3
"""Pareto plot of a sweep: every ok design point, with the 2-D front highlighted.

    plot_pareto.py DIR [--x latency_s --y energy_j] [--x-sense min --y-sense min]
                       [--label AXIS] [--color AXIS] [--logx] [--logy] [-o BASE]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", metavar="DIR", help="sweep directory (results.csv, sweep.json)")
    ap.add_argument("--x", help="x column (default: the first objective in sweep.json)")
    ap.add_argument("--y", help="y column (default: the second objective in sweep.json)")
    ap.add_argument("--x-sense", choices=["min", "max"], help="default: the objective's sense, else min")
    ap.add_argument("--y-sense", choices=["min", "max"], help="default: the objective's sense, else min")
    ap.add_argument("--label", metavar="AXIS", help="annotate the front's points with this axis' value")
    ap.add_argument("--color", metavar="AXIS", help="colour all points by this axis' value")
    ap.add_argument("--logx", action="store_true", help="logarithmic x axis")
    ap.add_argument("--logy", action="store_true", help="logarithmic y axis")
    pc.add_output_args(ap)
    args = ap.parse_args()

    sw = pc.load_sweep(args.dir)
    objectives = [o["key"] for o in sw.objectives]
    x = args.x or (objectives[0] if len(objectives) > 0 else None)
    y = args.y or (objectives[1] if len(objectives) > 1 else None)
    if not x or not y:
        raise pc.PlotError(f"sweep.json names fewer than two objectives; give --x and --y (columns: {', '.join(sw.columns)})")
    xs, ys = sw.numeric(x), sw.numeric(y)
    x_sense = args.x_sense or sw.sense(x)
    y_sense = args.y_sense or sw.sense(y)
    front = pc.pareto_front(xs, ys, x_sense, y_sense)
    xlabel, xf = pc.unit_scale(x, xs)
    ylabel, yf = pc.unit_scale(y, ys)
    X, Y = xs * xf, ys * yf

    fig, ax = pc.plt.subplots(figsize=(args.width, args.height or 2.5))
    if args.color:
        av = pc.axis_values(sw, args.color)
        for k, v in enumerate(av.order):
            sel = [i for i in range(len(X)) if av.values[i] == v]
            ax.scatter(X[sel], Y[sel], s=14, marker=pc.MARKERS[k % len(pc.MARKERS)],
                       color=pc.PALETTE[k % len(pc.PALETTE)], label=av.tick(v), zorder=2)
    else:
        ax.scatter(X, Y, s=12, color=pc.GREY, label="design points", zorder=2)
    # The front as the boundary of the region it dominates: a staircase, not a straight line,
    # because designs between two front points are not attainable.
    step = "steps-post" if x_sense == "min" else "steps-pre"
    # Black, so that it stands apart from the palette used by --color and survives greyscale.
    ax.plot(X[front], Y[front], drawstyle=step, color="black", lw=0.9, marker="o", ms=6, mfc="none", mew=1.0,
            zorder=3, label="Pareto front")
    if args.label:
        av = pc.axis_values(sw, args.label)
        for i in front:
            ax.annotate(av.tick(av.values[i]), (X[i], Y[i]), xytext=(3, 3), textcoords="offset points",
                        fontsize=7)
    ax.legend(title=pc.axis_values(sw, args.color).label() if args.color else None, loc="best")
    ax.set_xlabel(xlabel + ("  (higher is better)" if x_sense == "max" else ""))
    ax.set_ylabel(ylabel + ("  (higher is better)" if y_sense == "max" else ""))
    if args.logx:
        ax.set_xscale("log")
    if args.logy:
        ax.set_yscale("log")
    print(f"{len(front)} of {np.isfinite(xs * ys).sum()} points on the front", file=sys.stderr)
    pc.save(fig, pc.output_base(args, args.dir, "pareto", f"{x}-{y}"))


if __name__ == "__main__":
    pc.run_main(main)
