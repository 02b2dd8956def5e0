"""strata.validate: the reference checks' table, against the real binary."""
import unittest

from support import temp_dir, strata


class Validate(unittest.TestCase):
    def test_a_suite_as_a_frame(self):
        out = temp_dir() / "validation"
        frame = strata.validate("pim", output=out, plots=False)
        self.assertEqual(list(frame.columns), ["suite", "id", "what", "model", "reference", "unit", "error",
                                               "tolerance_below", "tolerance_above", "status", "source", "test"])
        self.assertEqual(set(frame["suite"]), {"pim"})
        self.assertEqual(set(frame["status"]), {"pass"})
        self.assertTrue(frame.attrs["passed"])
        row = frame.set_index("id").loc["hbm-pim-gemv-4096"]
        self.assertAlmostEqual(row["error"], (row["model"] - row["reference"]) / row["reference"], places=5)
        self.assertLessEqual(abs(row["error"]), row["tolerance_below"])
        self.assertTrue((out / "report.md").is_file())

    def test_an_unknown_suite_raises_with_the_binarys_line(self):
        with self.assertRaises(strata.StrataError) as cm:
            strata.validate("drm", output=temp_dir() / "v")
        self.assertEqual(cm.exception.exit_code, 2)
        self.assertIn('no suite "drm"', str(cm.exception))


if __name__ == "__main__":
    unittest.main()
