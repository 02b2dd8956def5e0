"""strata.sweep and load() of a sweep directory (results.sqlite), against the real binary."""
import csv
import json
import os
import unittest
import warnings
from unittest import mock

from support import NPU_SWEEP, smoke_overrides, smoke_sweep, temp_dir, strata


class Sweep(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir, cls.df = smoke_sweep()

    def test_one_row_per_point(self):
        planned = json.loads((self.dir / "sweep.json").read_text())["points"]
        with open(self.dir / "results.csv", newline="") as f:
            csv_rows = list(csv.DictReader(f))
        self.assertEqual(len(self.df), planned)
        self.assertEqual(len(self.df), len(csv_rows))
        self.assertFalse(self.df.duplicated(["point", "fidelity"]).any())
        self.assertEqual(set(self.df.fidelity), {"analytic", "cycle"})  # two-stage
        self.assertTrue((self.df.status == "ok").all())
        self.assertEqual(self.df.point.tolist(), [int(r["point"]) for r in csv_rows])

    def test_columns_are_typed(self):
        df = self.df
        self.assertEqual(str(df["hardware.core.engine.rows"].dtype), "int64")  # axis labels as numbers
        self.assertEqual(set(df.quant), {"W8A8", "FP8", "FP16"})  # label texts stay texts
        self.assertEqual(str(df["latency_s"].dtype), "float64")
        self.assertIn("wall_time_s", df.columns)  # the SQLite store's, not in results.csv
        self.assertEqual(df.attrs["axes"], ["hardware.core.engine.rows", "hardware.core.engine.cols", "quant"])
        self.assertEqual(df.attrs["sweep"]["objective.latency_s"], "min")
        self.assertEqual(df.attrs["sweep"]["output.edp"], "latency_s * energy_j")
        # Outputs computed by the store.
        row = df.iloc[0]
        self.assertAlmostEqual(row.edp, row.latency_s * row.energy_j, delta=1e-12 * row.edp)

    def test_load_again_and_a_point(self):
        again = strata.load(self.dir)
        self.assertEqual(again.drop(columns=["wall_time_s"]).to_dict(), self.df.drop(columns=["wall_time_s"]).to_dict())
        point = strata.load(self.df.path.iloc[0])
        self.assertEqual(len(point), 1)
        self.assertEqual(point.config_hash.iloc[0], self.df.hash.iloc[0])
        self.assertEqual(point.latency_s.iloc[0], self.df.latency_s.iloc[0])

    def test_stats_joined(self):
        df = strata.load(self.dir, stats=True)
        self.assertEqual(len(df), len(self.df))
        self.assertIn("totals.energy", df.columns)
        self.assertTrue(df["totals.energy"].notna().all())

    def test_rerun_does_no_work_and_collect(self):
        again = strata.sweep(NPU_SWEEP, smoke_overrides(NPU_SWEEP), output=self.dir, jobs=2, stats=True)
        self.assertEqual(again.hash.tolist(), self.df.hash.tolist())
        self.assertIn("totals.energy", again.columns)
        self.assertEqual(strata.collect(self.dir).hash.tolist(), self.df.hash.tolist())

    def test_sweep_overrides_and_errors(self):
        out = temp_dir() / "w8a8"
        df = strata.sweep(NPU_SWEEP, dict(smoke_overrides(NPU_SWEEP), **{"sim.fidelity": "analytic"}),
                          sweep_overrides={"constraints": ['quant=="W8A8"', "hardware.core.engine.rows <= 16"],
                                           "two_stage": {"top_k": 1}},
                          output=out, jobs=2)
        self.assertEqual(set(df.quant), {"W8A8"})
        self.assertEqual(sorted(df["hardware.core.engine.rows"][df.fidelity == "analytic"]), [8, 16])
        with self.assertRaises(strata.StrataError) as cm:
            strata.sweep(NPU_SWEEP, {"sweep.no_such_key": 1}, output=temp_dir() / "bad")
        self.assertEqual(cm.exception.exit_code, 2)
        self.assertIn("no_such_key", cm.exception.message)

    def test_failed_points_come_back_with_a_warning(self):
        # STRATA_EXECUTABLE replaces the program each point runs (docs/sweeps.md): here one that
        # fails at once, so the sweep ends with exit code 3 and every point recorded failed.
        with mock.patch.dict(os.environ, {"STRATA_EXECUTABLE": "/bin/false"}), \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            df = strata.sweep(NPU_SWEEP, smoke_overrides(NPU_SWEEP), output=temp_dir() / "failing", retries=0,
                              sweep_overrides={"constraints": ['quant=="W8A8"', "hardware.core.engine.rows <= 16"]})
        self.assertEqual(df.status.tolist(), ["failed", "failed"])
        self.assertTrue(df.error.str.len().gt(0).all())
        self.assertEqual([w.category for w in caught], [strata.StrataWarning])
        self.assertIn("2 failed", str(caught[0].message))


if __name__ == "__main__":
    unittest.main()
