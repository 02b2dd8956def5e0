"""One experiment: `strata run` and `strata config` with overrides given as a dict."""
import re
from functools import cached_property
from pathlib import Path

from .errors import StrataError
from .invoke import call
from .load import load_run
from .overrides import set_args
from .stats import read_json, stats_frame


class Result:
    """A finished run's directory: `summary` (dict), `stats` (DataFrame), `frame()` (one row).

    Result(dir) opens an existing result directory, so results written by the CLI can be
    inspected the same way as ones run from Python."""

    def __init__(self, directory):
        self.dir = Path(directory).resolve()
        self.summary = read_json(self.dir / "summary.json")

    @property
    def config_hash(self):
        return self.summary.get("config_hash")

    @cached_property
    def stats(self):
        """One row per statistic (see stats.stats_frame); read on first use, as it can be large."""
        return stats_frame(self.dir)

    def frame(self):
        """The run as load(dir) gives it: one row of summary figures and flattened statistics."""
        return load_run(self.dir)

    def __getitem__(self, key):
        return self.summary[key]

    def __repr__(self):
        return f"Result({str(self.dir)!r}, {self.summary.get('experiment')}, {self.summary.get('status')})"


def run(experiment, overrides=None, output=None, timeline=False, cwd=None):
    """Runs one experiment file and returns its Result.

    `overrides` maps dotted config keys to values ({"hardware.clock": "1.6 GHz"}); `output` is
    the result directory (default: the binary's results/<name>/<hash16>/ under `cwd`)."""
    args = ["run", experiment, "--quiet", "--no-progress"] + set_args(overrides)
    if output is not None:
        args += ["--output", output]
    if timeline:
        args.append("--timeline")
    proc = call(args, cwd=cwd)
    # --quiet leaves one line, "results: DIR", relative to the binary's working directory.
    m = re.search(r"^results: (.+)$", proc.stdout, re.MULTILINE)
    if not m:
        raise StrataError(f"strata run did not report its directory (output: {proc.stdout.strip()[-200:]!r})")
    return Result(Path(cwd or ".") / m.group(1))


def config(experiment, overrides=None, cwd=None):
    """The resolved configuration as YAML text (what the run would write to config.yaml)."""
    return call(["config", experiment] + set_args(overrides), cwd=cwd).stdout


def config_hash(experiment, overrides=None, cwd=None):
    """The 32-digit hash naming the resolved configuration (its first 16 name result folders)."""
    return call(["config", experiment, "--hash"] + set_args(overrides), cwd=cwd).stdout.strip()
