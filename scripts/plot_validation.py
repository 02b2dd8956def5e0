#!/usr/bin/python3
"""The figures of a validation report (`strata validate` draws them; run it again by hand to redraw).

    plot_validation.py DIR

Reads DIR/validation.json and writes, per suite, into DIR/plots/:
  SUITE-scatter.{png,pdf}  the model's figure against the reference, log-log, with the line of
                           agreement, the band of the suite's widest asserted tolerance and each
                           check's own tolerance as an error bar on its reference;
  SUITE-error.{png,pdf}    the error of each check in percent, its tolerance as a grey interval.
Checks that pass are blue circles, failures vermilion squares, checks reported without a
tolerance grey triangles; checks whose run failed are left out of the figures.
"""
import json
import os
import sys

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc  # noqa: E402

STYLE = {  # status -> (colour, marker, legend label)
    "pass": (pc.PALETTE[0], "o", "within tolerance"),
    "fail": (pc.PALETTE[3], "s", "outside tolerance"),
    "reported": (pc.PALETTE[7], "^", "reported (not asserted)"),
}


def save(fig, base):
    for ext in ("png", "pdf"):
        fig.savefig(f"{base}.{ext}")
    plt.close(fig)


def scatter(suite, checks, base):
    fig, ax = plt.subplots()
    refs = np.array([c["reference"] for c in checks])
    models = np.array([c["model"] for c in checks])
    positive = (refs > 0) & (models > 0)
    lo = min(refs[positive].min(), models[positive].min()) / 2
    hi = max(refs[positive].max(), models[positive].max()) * 2
    line = np.geomspace(lo, hi, 50)
    ax.plot(line, line, color="black", linewidth=0.6, zorder=1)
    asserted = [c["tolerance"] for c in checks if c["tolerance"]]
    below = max((t["below"] for t in asserted), default=0)
    above = max((t["above"] for t in asserted), default=0)
    if below > 0 or above > 0:
        ax.fill_between(line, line * (1 - below), line * (1 + above), color=pc.GREY, alpha=0.35, linewidth=0,
                        label=f"widest tolerance (-{100 * below:g}% / +{100 * above:g}%)", zorder=0)
    for status, (colour, marker, label) in STYLE.items():
        mine = [c for c in checks if c["status"] == status and c["model"] > 0 and c["reference"] > 0]
        if not mine:
            continue
        x = np.array([c["reference"] for c in mine])
        y = np.array([c["model"] for c in mine])
        if status != "reported":
            err = np.array([[c["reference"] * c["tolerance"]["below"] for c in mine],
                            [c["reference"] * c["tolerance"]["above"] for c in mine]])
            ax.errorbar(x, x, yerr=err, fmt="none", ecolor=pc.GREY, elinewidth=2.5, alpha=0.8, zorder=2)
        ax.scatter(x, y, color=colour, marker=marker, label=label, zorder=3, s=14)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("reference (each check's unit)")
    ax.set_ylabel("Strata")
    ax.set_title(f"{suite}: {len(checks)} checks")
    ax.legend(loc="upper left")
    save(fig, base)


def error_bars(suite, checks, base):
    n = len(checks)
    fig, ax = plt.subplots(figsize=(pc.SINGLE_COLUMN_IN * 1.4, max(1.6, 0.16 * n + 0.8)))
    y = np.arange(n)[::-1]
    errors = np.array([100 * c["error"] for c in checks])
    for i, c in enumerate(checks):
        if c["tolerance"]:
            lo, hi = -100 * c["tolerance"]["below"], 100 * c["tolerance"]["above"]
            ax.plot([lo, hi], [y[i], y[i]], color=pc.GREY, linewidth=5, solid_capstyle="butt", zorder=1)
    colours = [STYLE[c["status"]][0] for c in checks]
    ax.barh(y, errors, height=0.5, color=colours, zorder=2)
    ax.axvline(0, color="black", linewidth=0.6)
    ax.set_yticks(y)
    ax.set_yticklabels([c["id"] for c in checks], fontsize=6)
    ax.set_xlabel("error against the reference (%); grey: tolerance")
    bounds = [100 * max(c["tolerance"]["below"], c["tolerance"]["above"]) for c in checks if c["tolerance"]]
    span = max(1.0, float(np.max(np.abs(errors))) * 1.1, max(bounds, default=0) * 1.1)
    ax.set_xlim(-span, span)
    ax.set_title(suite)
    ax.grid(axis="y", visible=False)
    save(fig, base)


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        raise pc.PlotError("usage: plot_validation.py DIR (a `strata validate` output directory)")
    directory = sys.argv[1]
    report = pc.read_json(os.path.join(directory, "validation.json"))
    out = os.path.join(directory, "plots")
    os.makedirs(out, exist_ok=True)
    for suite in report["suites"]:
        checks = [c for c in suite["checks"] if c["model"] is not None]
        if not checks:
            continue
        scatter(suite["suite"], checks, os.path.join(out, f"{suite['suite']}-scatter"))
        error_bars(suite["suite"], checks, os.path.join(out, f"{suite['suite']}-error"))


if __name__ == "__main__":
    pc.run_main(main)
