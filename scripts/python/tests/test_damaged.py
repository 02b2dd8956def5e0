"""Damaged results and interrupted calls: every damaged file is a StrataError with one line
naming it (docs/python.md), and a SIGTERM of the Python process reaches the `strata` child, which
is waited for (no orphan keeps writing)."""
import os
import signal
import sqlite3
import subprocess
import sys
import time
import unittest

from support import PYTHON_DIR, REPO, QUICKSTART, temp_dir, strata


def expect_one_line(case, call, path):
    with case.assertRaises(strata.StrataError) as cm:
        call()
    e = cm.exception
    case.assertEqual(e.exit_code, 2)
    case.assertNotIn("\n", e.message)
    case.assertIn(str(path), e.message)
    return e


class DamagedResults(unittest.TestCase):
    """A result directory that a failing disk, a hand edit or another tool left damaged."""

    def run_dir(self, summary: bytes, stats: bytes = b"{}"):
        d = temp_dir()
        (d / "summary.json").write_bytes(summary)
        (d / "stats.json").write_bytes(stats)
        return d

    def test_a_summary_that_is_not_an_object(self):
        for text in (b"[1, 2]", b"42", b'"complete"', b"null"):
            d = self.run_dir(text)
            e = expect_one_line(self, lambda: strata.Result(d), d / "summary.json")
            self.assertIn("expected a JSON object", e.message)
            expect_one_line(self, lambda: strata.load(d), d / "summary.json")

    def test_bytes_that_are_not_utf8(self):
        d = self.run_dir(b'{"experiment": "caf\xe9", "status": "complete"}')
        e = expect_one_line(self, lambda: strata.Result(d), d / "summary.json")
        self.assertIn("not UTF-8", e.message)
        d = self.run_dir(b'{"status": "complete"}', b'{"a": {"type": "scalar", "value": 1, "unit": "\xff"}}')
        expect_one_line(self, lambda: strata.Result(d).stats, d / "stats.json")
        expect_one_line(self, lambda: strata.load(d), d / "stats.json")

    def test_json_cut_short(self):
        d = self.run_dir(b'{"status": "complete", "latency_s": 1.5,')
        e = expect_one_line(self, lambda: strata.load(d), d / "summary.json")
        self.assertIn("not valid JSON", e.message)
        d = self.run_dir(b'{"status": "complete"}', b"[1, 2]")
        expect_one_line(self, lambda: strata.stats_frame(d), d / "stats.json")

    def test_a_corrupt_results_sqlite(self):
        d = temp_dir()
        (d / "results.sqlite").write_bytes(b"SQLite format 3\x00" + b"\x07" * 4096)
        e = expect_one_line(self, lambda: strata.load(d), d / "results.sqlite")
        self.assertIn("cannot read it", e.message)
        # A database without the table the store has.
        d = temp_dir()
        with sqlite3.connect(d / "results.sqlite") as db:
            db.execute("CREATE TABLE other (x)")
        expect_one_line(self, lambda: strata.load(d), d / "results.sqlite")

    def test_a_results_csv_that_is_not_utf8(self):
        d = temp_dir()
        (d / "results.csv").write_bytes(b"point,fidelity,status\n0,cycle,\xff\xfe\n")
        expect_one_line(self, lambda: strata.load(d), d / "results.csv")

    def test_a_sweep_json_that_is_not_an_object(self):
        d = temp_dir()
        (d / "results.csv").write_text("point,fidelity,status\n0,cycle,ok\n")
        (d / "sweep.json").write_text("[]")
        expect_one_line(self, lambda: strata.load(d), d / "sweep.json")


def strata_processes_naming(text):
    """Processes whose command line names `text` (the test's own folder)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if text.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


class Interrupted(unittest.TestCase):
    def test_sigterm_reaches_the_strata_child_which_is_waited_for(self):
        d = temp_dir()
        out = d / "run"
        script = (
            f"import sys; sys.path.insert(0, {str(PYTHON_DIR)!r}); import strata; "
            f"strata.run({str(REPO / 'configs/experiments/dram-ddr4-stream.yaml')!r}, "
            f"{{'workload.requests': 20000000}}, output={str(out)!r})"
        )
        py = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE)
        # Once the run writes (its staging folder is there), the Python process is stopped.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(p.name.startswith(".staging") for p in out.glob(".*")):
            time.sleep(0.02)
        self.assertTrue(out.is_dir(), "the run never began writing")
        py.send_signal(signal.SIGTERM)
        py.wait(timeout=60)
        # It ended by SIGTERM, as it would have without the package in between...
        self.assertEqual(py.returncode, -signal.SIGTERM, py.stderr.read().decode())
        # ...after its child had left the marker of an interrupted run and ended.
        self.assertEqual(strata_processes_naming(str(d)), [])
        self.assertEqual(sorted(p.name for p in out.iterdir()), ["interrupted.json"])


if __name__ == "__main__":
    unittest.main()
