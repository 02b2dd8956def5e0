"""strata.plot runs the scripts behind `strata plot`; pareto_front is theirs too."""
import subprocess
import sys
import textwrap
import unittest

import matplotlib
import numpy as np
from support import PYTHON_DIR, smoke_sweep, temp_dir, strata

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class Plot(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir, cls.df = smoke_sweep()

    def test_pareto_png_and_pdf(self):
        base = temp_dir() / "pareto"
        before = matplotlib.rcParams["font.size"]
        paths = strata.plot("pareto", self.dir, output=base, x="latency_s", y="energy_j", label="quant")
        self.assertEqual([p.name for p in paths], ["pareto.png", "pareto.pdf"])
        self.assertEqual(paths[0].read_bytes()[:8], PNG_MAGIC)
        self.assertEqual(paths[1].read_bytes()[:5], b"%PDF-")
        self.assertEqual(matplotlib.rcParams["font.size"], before)  # the scripts' style stays theirs

    def test_caller_keeps_backend_and_figures(self):
        # In a fresh process, as a notebook would be: a figure is open on a non-Agg backend
        # before the first plot imports plot_common (which would switch to Agg, closing it).
        code = textwrap.dedent(f"""
            import sys
            sys.path.insert(0, {str(PYTHON_DIR)!r})
            import matplotlib
            matplotlib.use("svg")
            import matplotlib.pyplot as plt
            import strata
            fig = plt.figure()
            size = matplotlib.rcParams["font.size"]
            strata.plot("pareto", {str(self.dir)!r}, output={str(temp_dir() / "p")!r}, x="latency_s", y="area_mm2")
            assert matplotlib.get_backend() == "svg", matplotlib.get_backend()
            assert plt.fignum_exists(fig.number)
            assert matplotlib.rcParams["font.size"] == size
        """)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_default_output_and_list_options(self):
        paths = strata.plot("line", self.dir, x="hardware.core.engine.rows", y="latency_s", group="quant", logx=True)
        self.assertTrue(all(p.is_file() and p.parent == self.dir / "plots" for p in paths), paths)
        paths = strata.plot("breakdown", self.dir, output=temp_dir() / "b", what=["latency", "energy"])
        self.assertEqual(paths[0].read_bytes()[:8], PNG_MAGIC)

    def test_bad_input_raises(self):
        with self.assertRaises(strata.StrataError) as cm:
            strata.plot("pareto", self.dir, x="no_such_column", y="energy_j")
        self.assertEqual(cm.exception.exit_code, 2)
        self.assertIn("no_such_column", cm.exception.message)
        with self.assertRaises(strata.StrataError) as cm:
            strata.plot("pareto", self.dir, no_such_option=1)
        self.assertEqual(cm.exception.exit_code, 2)
        with self.assertRaises(strata.StrataError):
            strata.plot("pie", self.dir)
        self.assertIn("pareto", strata.plot_kinds())

    def test_pareto_front_matches_brute_force(self):
        df = self.df[self.df.fidelity == "analytic"]
        front = strata.pareto_front(df, "latency_s", "area_mm2")
        x, y = df.latency_s.to_numpy(), df.area_mm2.to_numpy()
        expected = {p for p, xi, yi in zip(df.point, x, y)
                    if not np.any((x <= xi) & (y <= yi) & ((x < xi) | (y < yi)))}
        self.assertEqual(set(front.point), expected)
        self.assertTrue(front.latency_s.is_monotonic_increasing)


if __name__ == "__main__":
    unittest.main()
