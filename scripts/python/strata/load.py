"""Results into pandas: one row for a run directory, one row per point for a sweep directory."""
import os
import sqlite3
from contextlib import closing
from pathlib import Path

import pandas as pd

from .errors import StrataError
from .stats import flatten, read_json, reading


def load(directory, stats=None):
    """A DataFrame of a run directory (summary.json) or a sweep directory (results.sqlite).

    A run gives one row: the summary's keys, then every statistic flattened (see
    stats.flatten), then `path`. A sweep gives one row per point as its results store holds
    it; with stats=True each ok point's flattened statistics are joined on. `stats` defaults
    to True for a run and False for a sweep (reading every point's stats.json is slow)."""
    d = Path(directory)
    if (d / "summary.json").is_file():
        return load_run(d, stats=True if stats is None else stats)
    if (d / "results.sqlite").is_file() or (d / "results.csv").is_file():
        return load_sweep(d, stats=bool(stats))
    if not d.is_dir():
        raise StrataError(f"no such directory: {d}", 2)
    if (d / "points.json").is_file():
        raise StrataError(f"{d} has no results yet: strata.collect() it when its points are done", 2)
    raise StrataError(f"{d} is neither a result directory (summary.json) nor a sweep (results.sqlite)", 2)


def load_run(directory, stats=True):
    d = Path(directory).resolve()
    row = dict(read_json(d / "summary.json"))
    if stats and (d / "stats.json").is_file():
        for name, v in _flat_stats(d / "stats.json").items():
            # Summary keys are plain words and statistics dotted paths, so they do not meet in
            # practice; if one ever did, the summary keeps the bare name.
            row[f"stats.{name}" if name in row else name] = v
    row["path"] = str(d)
    frame = pd.DataFrame([row])
    frame.attrs["dir"] = str(d)
    return frame


def load_sweep(directory, stats=False):
    d = Path(directory).resolve()
    if (d / "results.sqlite").is_file():
        frame, meta = _read_sqlite(d / "results.sqlite")
    else:  # a store from before results.sqlite, or one copied without it
        with reading(d / "results.csv"):
            frame, meta = pd.read_csv(d / "results.csv", keep_default_na=False, na_values=[""], encoding="utf-8"), {}
    sweep = read_json(d / "sweep.json") if (d / "sweep.json").is_file() else {}
    with reading(d / "sweep.json"):
        axes = [str(a) for a in (sweep.get("axes") or _axes_from_columns(frame))]
        objectives = list(sweep.get("objectives", []))
    with reading(d / ("results.sqlite" if (d / "results.sqlite").is_file() else "results.csv")):
        frame = _typed(frame, axes)
    # The store's paths are relative to the sweep; absolute ones can be passed to load() as is.
    if "path" in frame.columns:
        frame["path"] = [str(d / p) if isinstance(p, str) and p else p for p in frame["path"]]
    if stats:
        frame = _join_stats(frame)
    frame.attrs.update(dir=str(d), axes=list(axes), sweep=meta, objectives=objectives)
    return frame


def _flat_stats(path):
    tree = read_json(path)
    with reading(path):
        return flatten(tree)


def _read_sqlite(path):
    # Read-only: a sweep driver may be rewriting the store next to us. A damaged store (not a
    # database, a table missing, text that is not UTF-8) is a StrataError naming it.
    with reading(path), closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        frame = pd.read_sql_query("SELECT * FROM points ORDER BY rowid", db)
        meta = dict(db.execute("SELECT key, value FROM sweep").fetchall())
    return frame, meta


def _axes_from_columns(frame):
    # As the plot scripts do without sweep.json: the axes sit between `point` and `fidelity`.
    cols = list(frame.columns)
    end = cols.index("fidelity") if "fidelity" in cols else 1
    return cols[1:end]


def _typed(frame, axes):
    """The store keeps axis values as the labels written in the sweep file; numbers become
    numbers so that they sort and plot as such, while "1.6 GHz" or "W8A8" stay text."""
    if "point" in frame.columns:
        frame["point"] = frame["point"].astype("int64")
    for a in axes:
        if a in frame.columns:
            try:
                frame[a] = pd.to_numeric(frame[a])
            except (ValueError, TypeError):
                pass
    return frame


def _join_stats(frame):
    rows = []
    for status, path in zip(frame.get("status", []), frame.get("path", [])):
        ok = status == "ok" and isinstance(path, str) and os.path.isfile(os.path.join(path, "stats.json"))
        rows.append(_flat_stats(Path(path) / "stats.json") if ok else {})
    extra = pd.DataFrame(rows, index=frame.index)
    extra = extra[[c for c in extra.columns if c not in frame.columns]]
    return pd.concat([frame, extra], axis=1)
