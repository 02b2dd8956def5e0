"""strata.run and load() of a run directory, against the real binary."""
import os
import unittest
from unittest import mock

from support import QUICKSTART, temp_dir, strata


class Run(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = temp_dir()
        cls.base = strata.run(QUICKSTART, output=cls.tmp / "base")
        # A shallower queue: same requests and bytes, shorter queueing latency.
        cls.shallow = strata.run(QUICKSTART, {"hardware.queue_depth": 16}, output=cls.tmp / "shallow")

    def test_summary(self):
        s = self.shallow.summary
        self.assertEqual(s["experiment"], "quickstart")
        self.assertEqual(s["status"], "complete")
        self.assertEqual(s["requests"], 4096)
        self.assertEqual(s["bytes"], 262144)
        self.assertEqual(self.shallow["area_mm2"], 3.0)
        self.assertEqual(self.shallow.dir, (self.tmp / "shallow").resolve())

    def test_override_changes_the_config_and_its_hash(self):
        self.assertNotEqual(self.base.config_hash, self.shallow.config_hash)
        self.assertEqual(self.shallow.config_hash, strata.config_hash(QUICKSTART, {"hardware.queue_depth": 16}))
        self.assertEqual(self.base.config_hash, strata.config_hash(QUICKSTART))
        self.assertIn("queue_depth: 16", (self.shallow.dir / "config.yaml").read_text())
        self.assertLess(self.shallow["p99_latency_ns"], self.base["p99_latency_ns"])

    def test_stats_frame(self):
        st = self.shallow.stats
        self.assertEqual(st.index.name, "stat")
        self.assertEqual(st.loc["hardware.bytes", "value"], 262144)
        self.assertEqual(st.loc["hardware.area.total", "unit"], "mm2")
        series = st.loc["hardware.bandwidth_over_time", "values"]
        self.assertIsInstance(series, list)
        self.assertGreater(len(series), 10)

    def test_load_run_dir_is_one_row(self):
        df = strata.load(self.shallow.dir)
        self.assertEqual(len(df), 1)
        row = df.iloc[0]
        for key, value in self.shallow.summary.items():
            self.assertEqual(row[key], value, key)
        self.assertEqual(row["hardware.bytes"], 262144)  # flattened statistics
        self.assertIn("hardware.service_latency.p99", df.columns)  # a distribution's percentiles
        self.assertEqual(row["path"], str(self.shallow.dir))
        self.assertEqual(list(self.shallow.frame().columns), list(df.columns))
        self.assertNotIn("hardware.bytes", strata.load(self.shallow.dir, stats=False).columns)

    def test_result_of_an_existing_dir(self):
        again = strata.Result(self.base.dir)
        self.assertEqual(again.summary, self.base.summary)

    def test_default_output_is_under_cwd(self):
        cwd = temp_dir()
        r = strata.run(QUICKSTART, {"hardware.queue_depth": 8}, cwd=cwd)
        self.assertEqual(r.dir, (cwd / "results" / "quickstart" / r.config_hash[:16]).resolve())


class Errors(unittest.TestCase):
    def test_bad_override_raises_with_exit_code_2(self):
        with self.assertRaises(strata.StrataError) as cm:
            strata.run(QUICKSTART, {"workload.requests": 256}, output=temp_dir() / "x")
        e = cm.exception
        self.assertEqual(e.exit_code, 2)
        self.assertIn("workload.requests", e.message)
        self.assertIn("unknown key", e.message)
        self.assertNotIn("\n", e.message)
        self.assertIn("(exit code 2)", str(e))

    def test_bad_value_and_missing_file(self):
        with self.assertRaises(strata.StrataError) as cm:
            strata.run(QUICKSTART, {"hardware.clock": 1.6e9}, output=temp_dir() / "x")
        self.assertEqual(cm.exception.exit_code, 2)
        self.assertIn("has no unit", cm.exception.message)
        with self.assertRaises(strata.StrataError) as cm:
            strata.run(QUICKSTART.parent / "no-such-experiment.yaml")
        self.assertEqual(cm.exception.exit_code, 2)

    def test_load_of_a_folder_without_results(self):
        with self.assertRaises(strata.StrataError):
            strata.load(temp_dir())
        with self.assertRaises(strata.StrataError):
            strata.load(temp_dir() / "missing")

    def test_binary_lookup(self):
        with mock.patch.dict(os.environ, {"STRATA_BIN": "/nonexistent/strata"}):
            with self.assertRaises(strata.StrataError) as cm:
                strata.run(QUICKSTART)
            self.assertIn("STRATA_BIN", cm.exception.message)
        env = {k: v for k, v in os.environ.items() if k != "STRATA_BIN"}
        with mock.patch.dict(os.environ, env, clear=True):
            self.assertTrue(os.access(strata.find_binary(), os.X_OK))


if __name__ == "__main__":
    unittest.main()
