"""The example script runs end to end (fewer array sizes) and writes its figure."""
import subprocess
import sys
import unittest

from support import PYTHON_DIR, temp_dir

EXAMPLE = PYTHON_DIR / "examples" / "npu_array_pareto.py"


class Example(unittest.TestCase):
    def test_npu_array_pareto(self):
        tmp = temp_dir()
        figure = tmp / "front.png"
        proc = subprocess.run([sys.executable, str(EXAMPLE), str(figure), "--sizes", "8,32",
                               "--prompt-len", "64", "--sweep-dir", str(tmp / "sweep"), "--jobs", "2"],
                              capture_output=True, text=True, timeout=240)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(figure.read_bytes()[:8], b"\x89PNG\r\n\x1a\n")
        self.assertIn("8 points from", proc.stdout)  # 2 x 2 shapes x 2 quantizations
        self.assertIn("designs on the front", proc.stdout)
        self.assertTrue((tmp / "sweep" / "results.sqlite").is_file())
        self.assertTrue((tmp / "sweep" / "plots" / "pareto-latency_s-area_mm2.pdf").is_file())


if __name__ == "__main__":
    unittest.main()
