"""Strata from Python: run experiments and sweeps through the `strata` binary, load their
results into pandas DataFrames, and draw figures with the code behind `strata plot`.

    import strata
    r = strata.run("configs/experiments/quickstart.yaml", {"hardware.queue_depth": 16})
    r.summary["latency_s"], r.stats.loc["hardware.bandwidth", "value"]
    df = strata.sweep("configs/sweeps/npu-array-quant.yaml", output="/tmp/naq", jobs=2)
    strata.plot("pareto", "/tmp/naq", x="latency_s", y="energy_j", label="quant")
    checks = strata.validate("dram", quick=True)  # the reference checks, one row each

See docs/python.md.
"""
from .errors import StrataError, StrataWarning
from .load import load
from .locate import find_binary
from .overrides import to_yaml
from .plots import kinds as plot_kinds
from .plots import pareto_front, plot
from .runs import Result, config, config_hash, run
from .stats import stats_frame
from .sweeps import collect, sweep
from .validation import validate

__all__ = [
    "StrataError", "StrataWarning", "Result", "run", "config", "config_hash", "sweep", "collect",
    "load", "stats_frame", "plot", "plot_kinds", "pareto_front", "find_binary", "to_yaml", "validate",
]
__version__ = "0.1.0"
