"""Sweeps: `strata sweep` and `strata collect`, returning the results as a DataFrame."""
import re
import warnings
from pathlib import Path

from .errors import StrataError, StrataWarning
from .invoke import call
from .load import load_sweep
from .overrides import set_args

# Exit status of a sweep that finished with some points failed: the rest are valid results.
_SOME_FAILED = 3


def sweep(sweep_file, overrides=None, output=None, jobs=None, sweep_overrides=None, resume=False,
          timeout=None, retries=None, args=(), cwd=None, stats=False):
    """Runs a sweep file and returns load(DIR) of its sweep directory: one row per point.

    `overrides` set keys of the swept experiment (or of the sweep section, for keys starting
    with "sweep."); `sweep_overrides` is the same for keys given without that prefix
    ({"constraints": [...]}). `output` is the sweep directory (default results/<name>/ under
    `cwd`). `args` passes further `strata sweep` options (the Slurm ones, say) as they are.
    Points that failed come back as rows with status "failed" and a StrataWarning."""
    cmd = ["sweep", sweep_file, "--no-progress"] + set_args(overrides)
    cmd += set_args({f"sweep.{k}": v for k, v in (sweep_overrides or {}).items()})
    if output is not None:
        cmd += ["--output", output]
    if jobs is not None:
        cmd += ["--jobs", str(jobs)]
    if resume:
        cmd.append("--resume")
    if timeout is not None:
        cmd += ["--timeout", str(timeout)]
    if retries is not None:
        cmd += ["--retries", str(retries)]
    cmd += list(args)
    proc = call(cmd, cwd=cwd, ok=(0, _SOME_FAILED))
    directory = Path(output) if output is not None else _reported_dir(proc.stdout)
    if not directory.is_absolute() and cwd is not None:
        directory = Path(cwd) / directory
    if proc.returncode == _SOME_FAILED:
        warnings.warn(f"sweep {directory}: {_summary_line(proc.stdout)}", StrataWarning, stacklevel=2)
    return load_sweep(directory, stats=stats)


def collect(directory, cwd=None):
    """Rebuilds a sweep's results store from its points (after a Slurm run, say) and loads it."""
    call(["collect", directory], cwd=cwd)
    return load_sweep(Path(cwd or ".") / directory)


def _reported_dir(stdout):
    # The driver's last line is "results: DIR/results.csv".
    m = re.search(r"^results: (.*)/results\.csv$", stdout, re.MULTILINE)
    if not m:
        raise StrataError(f"strata sweep did not report its directory (output: {stdout.strip()[-200:]!r})")
    return Path(m.group(1))


def _summary_line(stdout):
    m = re.search(r"^\d+ ok, \d+ failed.*$", stdout, re.MULTILINE)
    return m.group(0) if m else "some points failed"
