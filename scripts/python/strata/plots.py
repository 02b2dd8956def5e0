"""Figures by the same code as `strata plot`: the scripts/plot_*.py modules, imported and run."""
import contextlib
import csv
import importlib
import io
import sys
from pathlib import Path
from unittest import mock

import numpy as np

from .errors import StrataError
from .locate import scripts_dir


def kinds():
    """The figure kinds there are scripts for: pareto, breakdown, roofline, heatmap, line, ..."""
    return sorted(p.stem[len("plot_"):] for p in scripts_dir().glob("plot_*.py") if p.stem != "plot_common")


def _module(name):
    folder = str(scripts_dir())
    if folder not in sys.path:
        sys.path.insert(0, folder)  # as the scripts do for themselves, so they share plot_common
    if name in sys.modules:
        return sys.modules[name]
    import matplotlib

    # Importing plot_common sets its style and the Agg backend for the whole process. The
    # caller's figures keep theirs: switching backends would close them (and stop a notebook
    # drawing inline), and a machine without a display picks Agg by itself anyway.
    with matplotlib.rc_context(), mock.patch.object(matplotlib, "use", lambda *a, **k: None):
        return importlib.import_module(name)


def plot_args(directory, output=None, **options):
    """The command line for the options: x="latency_s" -> --x=latency_s, logy=True -> --logy,
    points=[0, 3] -> --points=0,3; None and False leave an option out."""
    argv = [str(directory)]
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            argv.append(flag)
        elif isinstance(value, (list, tuple)):
            argv.append(f"{flag}={','.join(str(v) for v in value)}")
        else:
            argv.append(f"{flag}={value}")  # one word: a value starting with '-' stays a value
    if output is not None:
        argv.append(f"--output={output}")
    return argv


def plot(kind, directory, output=None, **options):
    """Draws a `strata plot KIND` figure and returns the files written ([PNG, PDF], plus the CSV
    of `normalized`). `output` is the path without extension (default DIR/plots/KIND-WHAT);
    options are the script's long options with underscores: plot("pareto", d, x="latency_s",
    y="area_mm2", label="quant", logx=True). Bad input raises StrataError (exit code 2)."""
    if kind not in kinds():
        raise StrataError(f"no plot '{kind}' (kinds: {', '.join(kinds())})", 2)
    script = _module(f"plot_{kind}")
    pc = _module("plot_common")
    import matplotlib

    argv = [str(Path(script.__file__))] + plot_args(directory, output, **options)
    out, err = io.StringIO(), io.StringIO()
    saved_argv = sys.argv
    try:
        with matplotlib.rc_context():  # the scripts' style for this figure only
            pc.apply_style()
            sys.argv = argv
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                script.main()
    except pc.PlotError as e:
        raise StrataError(f"plot_{kind}.py: {e}", 2, argv, err.getvalue()) from None
    except (OSError, csv.Error) as e:  # unreadable or malformed files, as run_main reports them
        raise StrataError(f"plot_{kind}.py: {e}".replace("\n", " "), 2, argv, err.getvalue()) from None
    except SystemExit as e:  # argparse: an unknown or malformed option
        lines = [l for l in err.getvalue().splitlines() if l.strip()]
        raise StrataError(lines[-1] if lines else f"plot_{kind}.py exited {e.code}", e.code, argv,
                          err.getvalue()) from None
    finally:
        sys.argv = saved_argv
    sys.stderr.write(err.getvalue())  # the script's notes and warnings, as `strata plot` shows them
    # save() prints each file it writes, one per line on stdout.
    return [Path(l) for l in out.getvalue().splitlines() if l.strip() and Path(l).is_file()]


def pareto_front(frame, x, y, x_sense="min", y_sense="min"):
    """The rows of `frame` on the 2-D Pareto front of columns x and y, ordered by x: the same
    rule as plot_pareto.py (plot_common.pareto_front; NaN rows are never on it)."""
    pc = _module("plot_common")
    xs = np.asarray(frame[x], dtype=float)
    ys = np.asarray(frame[y], dtype=float)
    return frame.iloc[pc.pareto_front(xs, ys, x_sense, y_sense)]
