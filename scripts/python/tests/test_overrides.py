"""Overrides: Python values to the YAML text of `--set`, and the binary reading them back."""
import unittest

import numpy as np
from support import QUICKSTART, strata

from strata.overrides import set_args


class ToYaml(unittest.TestCase):
    def test_scalars(self):
        self.assertEqual(strata.to_yaml(16), "16")
        self.assertEqual(strata.to_yaml(0.5), "0.5")
        self.assertEqual(strata.to_yaml(True), "true")
        self.assertEqual(strata.to_yaml(None), "null")
        self.assertEqual(strata.to_yaml(float("inf")), ".inf")
        self.assertEqual(strata.to_yaml(np.int64(8)), "8")
        self.assertEqual(strata.to_yaml(np.float64(2.5)), "2.5")

    def test_texts_stay_plain_unless_yaml_would_misread_them(self):
        self.assertEqual(strata.to_yaml("1.6 GHz"), "1.6 GHz")
        self.assertEqual(strata.to_yaml("int8"), "int8")
        self.assertEqual(strata.to_yaml("-3 dB"), "-3 dB")
        self.assertEqual(strata.to_yaml("a: b"), '"a: b"')
        self.assertEqual(strata.to_yaml("x, y"), '"x, y"')
        self.assertEqual(strata.to_yaml("null"), '"null"')
        self.assertEqual(strata.to_yaml(""), '""')
        self.assertEqual(strata.to_yaml("*ref"), '"*ref"')
        self.assertEqual(strata.to_yaml('say "hi"\n'), '"say \\"hi\\"\\n"')

    def test_collections_are_flow_yaml(self):
        self.assertEqual(strata.to_yaml([8, 16, "32 KiB"]), "[8, 16, 32 KiB]")
        self.assertEqual(strata.to_yaml(np.array([1, 2])), "[1, 2]")
        self.assertEqual(strata.to_yaml({"weights": "int8", "bits": [4, 8]}), "{weights: int8, bits: [4, 8]}")
        self.assertEqual(strata.to_yaml(['dataset=="cora"']), '[dataset=="cora"]')

    def test_set_args(self):
        self.assertEqual(set_args({"hardware.clock": "1 GHz", "seed": 3}),
                         ["--set", "hardware.clock=1 GHz", "--set", "seed=3"])
        self.assertEqual(set_args(None), [])
        with self.assertRaises(strata.StrataError):
            set_args(["hardware.clock=1 GHz"])
        with self.assertRaises(strata.StrataError):
            set_args({"a=b": 1})
        with self.assertRaises(strata.StrataError):
            strata.to_yaml(object())


class BinaryReadsThem(unittest.TestCase):
    def test_values_reach_the_resolved_config(self):
        text = strata.config(QUICKSTART, {"hardware.clock": "1.2 GHz", "hardware.queue_depth": 8,
                                          "description": "a: text, with [brackets]"})
        self.assertIn("clock: 1.2 GHz", text)
        self.assertIn("queue_depth: 8", text)
        self.assertIn("a: text, with [brackets]", text)

    def test_a_mapping_replaces_a_subtree(self):
        npu = QUICKSTART.parent / "npu-gpt2-decode-edge.yaml"
        quant = {"weights": "fp16", "activations": "fp16", "kv_cache": "fp16", "accumulate": "fp32"}
        text = strata.config(npu, {"workload.quant": quant})
        self.assertIn("weights: fp16", text)
        self.assertNotIn("weights: int8", text)


if __name__ == "__main__":
    unittest.main()
