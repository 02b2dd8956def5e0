"""Shared style and helpers for Strata's paper-figure scripts (scripts/plot_*.py).

Only the standard library, numpy and matplotlib are used (Debian's python3-matplotlib), so the
scripts run on a bare machine without pip. See docs/plots.md.
"""
import csv
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")  # before pyplot: no display on build machines, and identical output everywhere
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# Okabe-Ito, minus yellow (unreadable on white) and black (kept for roofs and annotations).
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#999999"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
# Distinct dash patterns so that series stay apart when printed in greyscale.
LINESTYLES = ["-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2)), (0, (3, 1, 3, 3))]
GREY = "#BBBBBB"

SINGLE_COLUMN_IN = 3.5


def apply_style():
    matplotlib.rcParams.update({
        "pdf.fonttype": 42,  # embed TrueType, not Type 3: publishers' checkers reject Type 3 fonts
        "ps.fonttype": 42,
        "font.size": 9,
        "axes.labelsize": 9,
        "axes.titlesize": 9,
        "xtick.labelsize": 8,
        "ytick.labelsize": 8,
        "legend.fontsize": 7.5,
        "legend.title_fontsize": 7.5,
        "legend.frameon": False,
        "figure.figsize": (SINGLE_COLUMN_IN, 2.4),
        "figure.dpi": 100,
        "savefig.dpi": 300,
        "savefig.bbox": "tight",
        "savefig.pad_inches": 0.02,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "axes.axisbelow": True,
        "grid.linewidth": 0.4,
        "grid.alpha": 0.5,
        "lines.linewidth": 1.2,
        "lines.markersize": 4,
        "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
        "image.cmap": "viridis",  # perceptually uniform and colour-blind safe
    })


apply_style()


# ---------------------------------------------------------------------------------------------
# Errors: every bad input ends in one line on stderr and exit status 2 (as argparse does).

class PlotError(Exception):
    pass


def run_main(main):
    """Runs main(), turning PlotError (and missing or malformed files) into a one-line error."""
    prog = os.path.basename(sys.argv[0])
    try:
        main()
    except PlotError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        sys.exit(2)
    except (OSError, csv.Error) as e:  # unreadable or malformed files
        print(f"{prog}: error: {e}".replace("\n", " "), file=sys.stderr)
        sys.exit(2)


# ---------------------------------------------------------------------------------------------
# Sweep directories (results.csv + sweep.json, written by the sweep engine).

def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise PlotError(f"{path}: not valid JSON ({e})") from None


class Sweep:
    def __init__(self, directory, name, axes, objectives, outputs, columns, rows, csv_path):
        self.dir = directory
        self.name = name
        self.axes = axes
        self.objectives = objectives  # [{"key": ..., "sense": "min"|"max"}]
        self.outputs = outputs
        self.columns = columns
        self.rows = rows  # list of {column: raw string}
        self.csv_path = csv_path

    def require(self, column):
        if column not in self.columns:
            raise PlotError(f"no column '{column}' in {self.csv_path}; available: {', '.join(self.columns)}")

    def numeric(self, column):
        """The column as floats (NaN where empty); an error if it holds text."""
        self.require(column)
        out = []
        for r in self.rows:
            v = r.get(column, "")
            if v == "":
                out.append(math.nan)
                continue
            try:
                out.append(float(v))
            except ValueError:
                raise PlotError(f"column '{column}' of {self.csv_path} is not numeric (holds '{v}')") from None
        return np.array(out, dtype=float)

    def raw(self, column):
        self.require(column)
        return [r.get(column, "") for r in self.rows]

    def sense(self, column, default="min"):
        for o in self.objectives:
            if o.get("key") == column:
                return o.get("sense", default)
        return default

    def point_dir(self, row):
        return os.path.join(self.dir, row.get("path", ""))


def load_sweep(directory, ok_only=True, csv_name="results.csv"):
    if not os.path.isdir(directory):
        raise PlotError(f"no such directory: {directory}")
    csv_path = os.path.join(directory, csv_name)
    if not os.path.isfile(csv_path):
        raise PlotError(f"no {csv_name} in {directory} (is it a sweep directory?)")
    with open(csv_path, newline="") as f:
        reader = csv.DictReader(f)
        columns = list(reader.fieldnames or [])
        rows = list(reader)
    for c in ("point", "status"):
        if c not in columns:
            raise PlotError(f"{csv_path} has no '{c}' column; not a sweep results file")
    meta = {}
    meta_path = os.path.join(directory, "sweep.json")
    if os.path.isfile(meta_path):
        meta = read_json(meta_path)
    # Without sweep.json the axes are still known: they sit between `point` and `fidelity`.
    axes = meta.get("axes")
    if axes is None:
        end = columns.index("fidelity") if "fidelity" in columns else 1
        axes = columns[1:end]
    total = len(rows)
    # A two-stage sweep holds the analytic screen and the cycle-level runs of the best points;
    # figures show the cycle-level ones unless STRATA_PLOT_FIDELITY names another.
    fidelities = {r.get("fidelity") for r in rows}
    wanted = os.environ.get("STRATA_PLOT_FIDELITY") or ("cycle" if len(fidelities) > 1 else None)
    if wanted:
        rows = [r for r in rows if r.get("fidelity") == wanted]
    if ok_only:
        rows = [r for r in rows if r.get("status") == "ok"]
        if not rows:
            raise PlotError(f"no ok points in {csv_path} ({total} rows, none with status ok)")
    return Sweep(directory, meta.get("name", os.path.basename(os.path.abspath(directory))), axes,
                 meta.get("objectives", []), meta.get("outputs", []), columns, rows, csv_path)


# ---------------------------------------------------------------------------------------------
# Sweep axis values: numbers, quantities as written in the sweep file ("1.6 GHz"), or names.

_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-zµ/%²]*)\s*$")
SI_PREFIX = {"p": 1e-12, "n": 1e-9, "u": 1e-6, "µ": 1e-6, "m": 1e-3, "": 1.0, "k": 1e3, "K": 1e3,
             "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def parse_quantity(text):
    """'1.6 GHz' -> (1.6, 'GHz'); '32' -> (32.0, ''); None if not a number with a unit."""
    m = _QUANTITY.match(str(text))
    return (float(m.group(1)), m.group(2)) if m else None


def to_base(number, unit):
    """Applies an SI or binary prefix: (4, 'MiB') -> 4194304; the unit letters after it are kept apart."""
    for p in sorted(SI_PREFIX, key=len, reverse=True):
        if p and unit.startswith(p):
            return number * SI_PREFIX[p]
    return number


def parse_si(text, what):
    """A command-line number with an optional prefixed unit: '2.05e12', '2 TFLOP/s', '25.6 GB/s'."""
    q = parse_quantity(text)
    if q is None:
        raise PlotError(f"{what}: cannot read '{text}' as a number (e.g. 2e12 or '2 TFLOP/s')")
    return to_base(*q)


class AxisValues:
    """One sweep axis over some rows: numeric positions where they exist, tick labels otherwise."""

    def __init__(self, key, raw):
        self.key = key
        self.raw = raw
        parsed = [parse_quantity(v) for v in raw]
        units = {p[1] for p in parsed if p}
        self.unit = ""
        if raw and all(parsed) and len(units) == 1:
            # Plain numbers, or one unit throughout ("1 GHz", "1.6 GHz"): a real numeric axis.
            self.numeric = True
            self.unit = units.pop()
            self.values = np.array([p[0] for p in parsed])
            self.order = sorted(set(self.values.tolist()))
        else:
            self.numeric = False
            self.values = list(raw)
            firsts = list(dict.fromkeys(raw))
            if all(parsed):  # mixed prefixes ("512 KiB", "4 MiB"): order by size, label as written
                firsts.sort(key=lambda v: to_base(*parse_quantity(v)))
            self.order = firsts

    def label(self):
        name = pretty_name(self.key)
        return f"{name} ({self.unit})" if self.unit else name

    def tick(self, v):
        return f"{v:g}" if self.numeric else str(v)


def axis_values(sweep, key):
    return AxisValues(key, sweep.raw(key))


# ---------------------------------------------------------------------------------------------
# Units in axis labels, derived from the column name, with an SI prefix chosen from the data.

_ACRONYMS = {"dram": "DRAM", "edp": "EDP", "ed2p": "ED²P", "noc": "NoC", "sram": "SRAM", "dma": "DMA",
             "avg": "average", "flops": "FLOPs", "p99": "p99", "pj": "pJ", "kv": "KV"}

# suffix -> (unit, factor to the unit's base, prefixes allowed when scaling)
_SUFFIX_UNITS = [
    ("_gbps", ("B/s", 1e9, "kMGT")),
    ("_per_s", ("1/s", 1.0, None)),  # a rate (tokens_per_s): not seconds
    ("_mm2", ("mm²", 1.0, None)),
    ("_ns", ("s", 1e-9, "pnµm")),
    ("_us", ("s", 1e-6, "pnµm")),
    ("_ms", ("s", 1e-3, "pnµm")),
    ("_s", ("s", 1.0, "pnµm")),  # no ks: a long run is still read in seconds
    ("_j", ("J", 1.0, "pnµmk")),
    ("_w", ("W", 1.0, "pnµmk")),
    ("_hz", ("Hz", 1.0, "kMGT")),
    ("_bytes", ("B", 1.0, "kMGT")),
    ("_fraction", ("", 1.0, None)),
    ("_ratio", ("", 1.0, None)),
]
_NAMED_UNITS = {
    "edp": ("energy-delay product", "J·s", "pnµm"),
    "ed2p": ("energy-delay² product", "J·s²", "pnµm"),
    "flops": ("FLOPs", "FLOP", "kMGTP"),
    "energy_pj_per_bit": ("energy per bit", "pJ/bit", None),
}


def pretty_name(key):
    """'hardware.core.engine.rows' -> 'engine rows'; 'dram_bandwidth' -> 'DRAM bandwidth'."""
    parts = key.split(".")
    words = " ".join(parts[-2:]).replace("_", " ").split()
    return " ".join(_ACRONYMS.get(w, w) for w in words)


def choose_prefix(values, allowed):
    """The prefix whose scaled maximum lands in [1, 1000), among the allowed ones."""
    finite = np.abs(np.asarray(values, dtype=float))
    finite = finite[np.isfinite(finite) & (finite > 0)]
    if allowed is None or finite.size == 0:
        return "", 1.0
    exp3 = int(math.floor(math.log10(finite.max()) / 3))
    table = {-4: "p", -3: "n", -2: "µ", -1: "m", 0: "", 1: "k", 2: "M", 3: "G", 4: "T", 5: "P"}
    lo = min([0] + [k for k, v in table.items() if v in allowed])
    hi = max([0] + [k for k, v in table.items() if v in allowed])
    exp3 = max(lo, min(hi, exp3))
    return table[exp3], 10.0 ** (3 * exp3)


def unit_scale(column, values):
    """(axis label, factor): plot values * factor under the label, e.g. ('latency (ms)', 1e3)."""
    name = column.split(".")[-1]
    if name in _NAMED_UNITS:
        text, unit, allowed = _NAMED_UNITS[name]
        base = 1.0
    else:
        for suffix, (unit, base, allowed) in _SUFFIX_UNITS:
            if name.endswith(suffix) and len(name) > len(suffix):
                text = pretty_name(column[: len(column) - len(suffix)])
                break
        else:
            return pretty_name(column), 1.0
    if allowed is None:  # a fixed unit (mm², pJ/bit) or none (fractions)
        return (f"{text} ({unit})" if unit else text), base
    prefix, div = choose_prefix(np.asarray(values, dtype=float) * base, allowed)
    return f"{text} ({prefix}{unit})", base / div


# ---------------------------------------------------------------------------------------------
# A design point's stats.json: a tree whose leaves are {"type", "unit", "value", ...}.

def load_stats(point_dir):
    path = os.path.join(point_dir, "stats.json")
    if not os.path.isfile(path):
        raise PlotError(f"no stats.json in {point_dir} (not a result directory)")
    tree = read_json(path)
    flat = {}

    def walk(node, prefix):
        if isinstance(node, dict) and "type" in node and "value" in node:
            flat[prefix] = node
            return
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, f"{prefix}.{k}" if prefix else k)

    walk(tree, "")
    return flat


def stat(flat, name, unit_base=None):
    """A leaf's value as a float; with unit_base ('B/s', 'FLOP/s') a prefixed unit is scaled to it."""
    leaf = flat.get(name)
    if leaf is None or not isinstance(leaf.get("value"), (int, float)):
        return None
    v = float(leaf["value"])
    unit = leaf.get("unit", "") or ""
    if unit_base and unit != unit_base and unit.endswith(unit_base):
        v *= SI_PREFIX.get(unit[: -len(unit_base)], 1.0)
    return v


def component_group(component):
    """'hardware.core3.engine' -> 'engine': units of the same kind on all cores add up."""
    last = re.sub(r"\d+$", "", component.split(".")[-1])
    return "other" if last in ("hardware", "") else last


def by_component(flat, what):
    """{group: value} of `<comp>.<what>.total` (what: energy or area), like `strata report`.

    A component's total is its own (parents' totals do not include their children), so groups
    simply add up; totals.<what> is the sum (checked by callers)."""
    out = {}
    tail = f".{what}.total"
    for key in flat:
        if key.endswith(tail) and not key.startswith("totals."):
            v = stat(flat, key) or 0.0
            if v:
                g = component_group(key[: -len(tail)])
                out[g] = out.get(g, 0.0) + v
    return out


_OPS = re.compile(r"^(?:.*?\.)?ops\.(.+)\.latency$")  # the first "ops." starts the op name


def operators(flat):
    """{op name: {'latency', 'flops', 'dram_bytes', 'prefix'}} from `<root>.ops.<name>.*`."""
    ops = {}
    for key in flat:
        m = _OPS.match(key)
        if m:
            prefix = key[: -len(".latency")]
            ops[m.group(1)] = {f: stat(flat, f"{prefix}.{f}") for f in ("latency", "flops", "dram_bytes")}
    return ops


# Operator classes, first match wins. Names are the workload's (s0.l3.attn, moe.experts.up,
# l0.aggregate); the stats do not carry the operator kind, so the name is all there is.
OP_CLASSES = ["GEMM", "attention", "sparse", "norm", "element-wise", "routing", "embedding", "other"]


def op_class(name):
    parts = name.lower().split(".")
    last = re.sub(r"\d+$", "", parts[-1])
    if {"router", "dispatch", "top_k", "topk"} & set(parts) or name.endswith("experts.combine"):
        return "routing"  # MoE gating, dispatch and the weighted combine are scatter/gather work
    if last in ("attn", "attention", "sdpa") or last.endswith("_append"):
        return "attention"  # the KV-cache appends belong to attention's cost
    if last.endswith("_proj") or last in ("up", "down", "gate", "lm_head", "combine", "fc", "linear",
                                          "gemm", "gemv", "matmul", "dense", "classifier"):
        return "GEMM"  # a GNN layer's combine is its dense X·W
    if last in ("aggregate", "spmm", "sddmm"):
        return "sparse"
    if "norm" in last or last in ("ln", "ln_f"):
        return "norm"
    if last in ("add", "mul", "gelu", "silu", "relu", "softmax", "residual", "act", "scale"):
        return "element-wise"
    if "embed" in last or last in ("pos", "gather", "copy"):
        return "embedding"
    return "other"


def class_colour(cls):
    return PALETTE[OP_CLASSES.index(cls) % len(PALETTE)] if cls in OP_CLASSES else GREY


# ---------------------------------------------------------------------------------------------
# Pareto front in two dimensions.

def pareto_front(xs, ys, x_sense="min", y_sense="min"):
    """Indices of the non-dominated points, ordered by x ascending (then y).

    A point dominates another when it is no worse on both axes and better on at least one, so
    exact duplicates of a front point are all kept; NaN points are never on the front."""
    for s in (x_sense, y_sense):
        if s not in ("min", "max"):
            raise ValueError(f"sense must be min or max, not {s!r}")
    x = np.asarray(xs, dtype=float) * (1 if x_sense == "min" else -1)
    y = np.asarray(ys, dtype=float) * (1 if y_sense == "min" else -1)
    idx = [i for i in range(len(x)) if np.isfinite(x[i]) and np.isfinite(y[i])]
    idx.sort(key=lambda i: (x[i], y[i]))  # best x first; within equal x, the best y first
    front, best = [], None
    for i in idx:
        if best is None or y[i] < y[best]:
            front.append(i)
            best = i
        elif x[i] == x[best] and y[i] == y[best]:
            front.append(i)  # a duplicate of the last front point
    return sorted(front, key=lambda i: (xs[i], ys[i]))


# ---------------------------------------------------------------------------------------------
# Command line and output.

def add_output_args(parser):
    parser.add_argument("-o", "--output", metavar="BASE",
                        help="output path without extension (default: DIR/plots/<kind>-<what>)")
    parser.add_argument("--width", type=float, default=SINGLE_COLUMN_IN, help="figure width in inches (default 3.5)")
    parser.add_argument("--height", type=float, help="figure height in inches (default: per plot)")


def short_key(key):
    return key.split(".")[-1]


def output_base(args, directory, kind, what):
    if args.output:
        return args.output
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", what)
    return os.path.join(directory, "plots", f"{kind}-{safe}")


def save(fig, base):
    """Writes BASE.png (300 dpi) and BASE.pdf (vector) and prints both paths."""
    d = os.path.dirname(base)
    if d:
        os.makedirs(d, exist_ok=True)
    paths = []
    for ext, meta in (("png", {"Software": None}), ("pdf", {"CreationDate": None, "Creator": None})):
        path = f"{base}.{ext}"
        fig.savefig(path, metadata=meta)  # no dates or versions: reruns give identical files
        paths.append(path)
    plt.close(fig)
    for p in paths:
        print(p)
    return paths


def fmt_value(v):
    return "" if not np.isfinite(v) else f"{v:.3g}"
