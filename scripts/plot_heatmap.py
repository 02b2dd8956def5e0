#!/usr/bin/python3
"""Heat map of one objective over two sweep axes, with annotated cells.

    plot_heatmap.py DIR --x AXIS --y AXIS --z COLUMN [--agg min|max|mean] [--no-annotate] [-o BASE]

Several points per cell (other axes vary) are reduced with --agg (default: the objective's best,
min unless sweep.json says max). Cells whose points all failed are hatched; cells never run are blank.
"""
import argparse
import os
import sys

import numpy as np
from matplotlib.patches import Patch, Rectangle

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc  # noqa: E402

AGG = {"min": np.min, "max": np.max, "mean": np.mean}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", metavar="DIR", help="sweep directory (results.csv, sweep.json)")
    ap.add_argument("--x", required=True, metavar="AXIS", help="axis across (columns)")
    ap.add_argument("--y", required=True, metavar="AXIS", help="axis up (rows)")
    ap.add_argument("--z", required=True, metavar="COLUMN", help="objective or output to colour by")
    ap.add_argument("--agg", choices=sorted(AGG), help="reduce several points per cell (default: the best)")
    ap.add_argument("--no-annotate", action="store_true", help="do not print values in the cells")
    pc.add_output_args(ap)
    args = ap.parse_args()

    # Failed points are read too: they are what the hatching shows.
    sw = pc.load_sweep(args.dir, ok_only=False)
    for c in (args.x, args.y):
        sw.require(c)
    z = sw.numeric(args.z)
    ok = np.array([r["status"] == "ok" for r in sw.rows])
    if not ok.any():
        raise pc.PlotError(f"no ok points in {sw.csv_path} ({len(ok)} rows, none with status ok)")
    xa, ya = pc.axis_values(sw, args.x), pc.axis_values(sw, args.y)
    agg = args.agg or sw.sense(args.z)

    grid = np.full((len(ya.order), len(xa.order)), np.nan)
    failed = np.zeros(grid.shape, dtype=bool)
    for j, yv in enumerate(ya.order):
        for i, xv in enumerate(xa.order):
            cell = [k for k in range(len(z)) if xa.values[k] == xv and ya.values[k] == yv]
            good = [z[k] for k in cell if ok[k] and np.isfinite(z[k])]
            if good:
                grid[j, i] = AGG[agg](good)
            elif cell:
                failed[j, i] = True
    zlabel, factor = pc.unit_scale(args.z, grid)
    grid *= factor

    fig, ax = pc.plt.subplots(figsize=(args.width, args.height or 0.6 + 0.32 * len(ya.order) + 0.9))
    # pcolormesh, not imshow: imshow embeds a bitmap in the PDF; a mesh stays vector.
    mesh = ax.pcolormesh(np.ma.masked_invalid(grid), cmap="viridis", edgecolors="white", linewidth=0.5)
    cbar = fig.colorbar(mesh, ax=ax, pad=0.02)
    cbar.set_label(zlabel)
    cbar.outline.set_visible(False)
    cbar.solids.set_rasterized(False)  # matplotlib rasterizes colour bars of 50+ levels; keep the PDF vector
    for j, i in zip(*np.nonzero(failed)):
        ax.add_patch(Rectangle((i, j), 1, 1, fill=False, hatch="////", edgecolor="#888888", lw=0))
    if failed.any():
        ax.legend(handles=[Patch(fill=False, hatch="////", edgecolor="#888888", label="failed")],
                  loc="lower left", bbox_to_anchor=(0, 1.01), borderaxespad=0, handlelength=1.2)
    if not args.no_annotate and np.isfinite(grid).any():
        lo, hi = np.nanmin(grid), np.nanmax(grid)
        for j, i in zip(*np.nonzero(np.isfinite(grid))):
            # Light text on viridis' dark lower half, dark text on its light upper half.
            dark = (grid[j, i] - lo) / (hi - lo) < 0.6 if hi > lo else True
            ax.text(i + 0.5, j + 0.5, pc.fmt_value(grid[j, i]), ha="center", va="center", fontsize=7,
                    color="white" if dark else "black")
    ax.set_xticks(np.arange(len(xa.order)) + 0.5)
    xticks = [xa.tick(v) for v in xa.order]
    # Long labels (preset names) would run into each other side by side.
    long_labels = sum(len(t) for t in xticks) > 6 * len(xticks)
    ax.set_xticklabels(xticks, rotation=30 if long_labels else 0, ha="right" if long_labels else "center")
    ax.set_yticks(np.arange(len(ya.order)) + 0.5)
    ax.set_yticklabels([ya.tick(v) for v in ya.order])
    ax.set_xlabel(xa.label())
    ax.set_ylabel(ya.label())
    ax.grid(False)
    ax.tick_params(length=0)
    for s in ax.spines.values():
        s.set_visible(False)
    others = [a for a in sw.axes if a not in (args.x, args.y) and a in sw.columns]
    if others:
        print(f"cells reduce over {', '.join(others)} by {agg}", file=sys.stderr)
    pc.save(fig, pc.output_base(args, args.dir, "heatmap",
                                f"{args.z}-{pc.short_key(args.x)}-{pc.short_key(args.y)}"))


if __name__ == "__main__":
    pc.run_main(main)
