"""A result's stats.json: a tree whose leaves are {"type", "unit", "value", ...}."""
import contextlib
import json
import numbers
import sqlite3
from pathlib import Path

import pandas as pd

from .errors import StrataError


def read_json(path, expect=dict):
    """The JSON value of a result file; anything wrong with the file (missing, unreadable, not
    UTF-8, not JSON, not a `expect`) is a StrataError with one line naming it, exit code 2."""
    with reading(path):
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
        try:
            value = json.loads(text)
        except json.JSONDecodeError as e:
            raise StrataError(f"{path}:{e.lineno}:{e.colno}: not valid JSON ({e.msg})", 2) from None
        except RecursionError:
            raise StrataError(f"{path}: not valid JSON (nested too deeply)", 2) from None
    if expect is not None and not isinstance(value, expect):
        raise StrataError(f"{path}: expected a JSON {_kind(expect)}, found {_kind(type(value))}", 2)
    return value


def _kind(t):
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        t, "number" if t in (int, float) else getattr(t, "__name__", str(t)))


@contextlib.contextmanager
def reading(path):
    """Where a result file is read: a damaged or unreadable file (bytes that are not UTF-8, a
    corrupt SQLite database, a CSV that does not parse, a folder where a file should be) raises
    StrataError with one line naming it, never the reader's own exception."""
    try:
        yield
    except StrataError:
        raise
    except FileNotFoundError:
        raise StrataError(f"no such file: {path}", 2) from None
    except UnicodeDecodeError as e:
        raise StrataError(f"{path}: not UTF-8 text (byte 0x{e.object[e.start]:02X} at offset {e.start})", 2) from None
    except (OSError, ValueError, TypeError, KeyError, IndexError, sqlite3.Error, pd.errors.DatabaseError) as e:
        raise StrataError(f"{path}: cannot read it: {_one_line(e)}", 2) from None


def _one_line(e):
    text = " ".join(str(e).split())
    return (text[:300] + "...") if len(text) > 300 else (text or type(e).__name__)


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
    path = Path(directory) / "stats.json"
    rows = {name: leaf for name, leaf in leaves(read_json(path))}
    with reading(path):
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
