"""`strata validate` from Python: the reference checks' table as a DataFrame."""
from pathlib import Path

import pandas as pd

from .invoke import call
from .stats import reading

# Exit status when some checks are outside their tolerance: the report is written all the same.
_SOME_FAILED = 3


def validate(suites=None, quick=False, output="results/validation", jobs=None, plots=True, cwd=None):
    """Runs the reference checks of configs/validation/ and returns validation.csv as a DataFrame.

    `suites` is a name or a list ("dram", ["npu", "gpu"]; default all). One row per check:
    suite, id, what, model, reference, unit, error, tolerance_below, tolerance_above, status
    (pass, fail, reported, error), source, test. `frame.attrs["passed"]` is False when a
    check failed (the binary's exit status 3 does not raise); `frame.attrs["directory"]` is the
    report's directory (report.md, validation.json, plots/)."""
    cmd = ["validate", "-o", output]
    if suites:
        cmd += ["--suite", ",".join([suites] if isinstance(suites, str) else suites)]
    if quick:
        cmd.append("--quick")
    if jobs is not None:
        cmd += ["--jobs", str(jobs)]
    if not plots:
        cmd.append("--no-plots")
    proc = call(cmd, cwd=cwd, ok=(0, _SOME_FAILED))
    directory = Path(output)
    if not directory.is_absolute() and cwd is not None:
        directory = Path(cwd) / directory
    with reading(directory / "validation.csv"):
        frame = pd.read_csv(directory / "validation.csv", keep_default_na=False, na_values=[""], encoding="utf-8")
    frame.attrs["passed"] = proc.returncode == 0
    frame.attrs["directory"] = str(directory)
    return frame
