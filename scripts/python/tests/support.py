"""What the tests share: the package on sys.path, the checkout, and one smoke sweep run once.

The tests run the real binary ($STRATA_BIN, as CTest sets it, else build/bin/strata)."""
import atexit
import functools
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[1]
REPO = PYTHON_DIR.parents[1]
if str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))  # `unittest discover -s scripts/python/tests` works as is

import strata  # noqa: E402

QUICKSTART = REPO / "configs" / "experiments" / "quickstart.yaml"
NPU_SWEEP = REPO / "configs" / "sweeps" / "npu-array-quant.yaml"


def temp_dir():
    """A folder removed when the test process exits (shared fixtures outlive one TestCase)."""
    d = tempfile.mkdtemp(prefix="strata-py-")
    atexit.register(shutil.rmtree, d, ignore_errors=True)
    return Path(d)


def smoke_overrides(sweep_file):
    """A shipped sweep's `# smoke:` line (--set key=value ...) as an overrides dict, the way
    scripts/cli_smoke makes every sweep run in seconds."""
    for line in Path(sweep_file).read_text().splitlines():
        if line.startswith("# smoke:"):
            words = shlex.split(line[len("# smoke:"):])
            sets = [w for prev, w in zip(words, words[1:]) if prev == "--set"]
            return dict(s.split("=", 1) for s in sets)
    raise AssertionError(f"{sweep_file} has no '# smoke:' line")


@functools.lru_cache(maxsize=None)
def smoke_sweep():
    """npu-array-quant at its smoke settings (two-stage: 12 analytic + ~7 cycle-level points,
    a few seconds), run once for every test that needs a sweep directory."""
    out = temp_dir() / "npu-array-quant"
    frame = strata.sweep(NPU_SWEEP, smoke_overrides(NPU_SWEEP), output=out, jobs=2)
    return out, frame
