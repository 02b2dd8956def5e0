"""Where the binary and the plotting scripts are, for a source tree or an installed package."""
import os
import shutil
from pathlib import Path

from .errors import StrataError

# scripts/python/strata/locate.py: the checkout is three folders up. `pip install -e` keeps the
# package in place, so this holds for editable installs too.
REPO = Path(__file__).resolve().parents[3]


def find_binary():
    """The `strata` executable: $STRATA_BIN, else <repo>/build/bin/strata, else `strata` on PATH."""
    env = os.environ.get("STRATA_BIN")
    if env:
        # An explicit choice that is wrong is an error, not a reason to run some other build.
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise StrataError(f"STRATA_BIN={env} is not an executable file")
        return env
    built = REPO / "build" / "bin" / "strata"
    if built.is_file() and os.access(built, os.X_OK):
        return str(built)
    found = shutil.which("strata")
    if found:
        return found
    raise StrataError(f"cannot find the strata binary: set STRATA_BIN, build {built}, or put strata on PATH")


def scripts_dir():
    """The folder with plot_*.py: $STRATA_SCRIPTS (as `strata plot` reads it), else <repo>/scripts."""
    env = os.environ.get("STRATA_SCRIPTS")
    folder = Path(env) if env else REPO / "scripts"
    if not (folder / "plot_common.py").is_file():
        raise StrataError(f"no plot scripts in {folder} (set STRATA_SCRIPTS to the folder with plot_common.py)")
    return folder
