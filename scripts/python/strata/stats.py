"""A result's stats.json: a tree whose leaves are {"type", "unit", "value", ...}."""
import json
import numbers
from pathlib import Path

import pandas as pd

from .errors import StrataError


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise StrataError(f"no such file: {path}", 2) from None
    except json.JSONDecodeError as e:
        raise StrataError(f"{path}: not valid JSON ({e})", 2) from None


def leaves(tree, prefix=""):
    """(dotted name, leaf) for every statistic, in file order."""
    if isinstance(tree, dict) and "type" in tree and "value" in tree:
        yield prefix, tree
        return
    if isinstance(tree, dict):
        for k, v in tree.items():
            yield from leaves(v, f"{prefix}.{k}" if prefix else k)


def stats_frame(directory):
    """One row per statistic, indexed by its dotted name: value, unit, type, description and
    whatever else the leaf has (count, min, max, p50..p999, stddev; the lists `values` of a
    time series and `histogram` of a distribution as Python lists)."""
    rows = {name: leaf for name, leaf in leaves(read_json(Path(directory) / "stats.json"))}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    first = [c for c in ("value", "unit", "type", "description") if c in frame.columns]
    frame = frame[first + [c for c in frame.columns if c not in first]]
    frame.index.name = "stat"
    return frame


def flatten(tree):
    """{name: value} for each statistic, plus {name.field: number} for its other numeric fields
    (a distribution's p99, a time average's max): one flat row for a DataFrame."""
    flat = {}
    for name, leaf in leaves(tree):
        flat[name] = leaf["value"]
        for field, v in leaf.items():
            if field != "value" and isinstance(v, numbers.Number) and not isinstance(v, bool):
                flat[f"{name}.{field}"] = v
    return flat
