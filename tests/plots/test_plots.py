"""Tests of the paper-figure scripts (scripts/plot_*.py).

Run from the repository root:  /usr/bin/python3 -m unittest discover -s tests/plots -v

The fixture sweep is synthetic: six points over two axes (one failed), each point's stats.json
being fixtures/stats.json (a trimmed `strata run` of npu-gpt2-decode-edge with 2 layers) with its
latency, energy and area scaled per point.
"""
import copy
import csv
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(ROOT, "scripts")
FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "stats.json")
sys.path.insert(0, SCRIPTS)
import plot_common as pc  # noqa: E402

AXES = ["hardware.core.engine.rows", "workload.quant.weights"]
SUMMARY = ["simulated_time_s", "energy_j", "area_mm2", "avg_power_w", "latency_s", "flops", "dram_bandwidth_gbps"]
FAILED_POINT = 5


def scaled_stats(tree, latency, energy, area):
    """The fixture with every latency, energy and area leaf scaled, as another design would give."""
    tree = copy.deepcopy(tree)

    def walk(node, path):
        if isinstance(node, dict) and "value" in node and "type" in node:
            unit = node.get("unit")
            if unit == "J":
                node["value"] *= energy
            elif unit == "mm2":
                node["value"] *= area
            elif unit == "s":
                node["value"] *= latency
            return
        for k, v in node.items():
            walk(v, path + [k])

    walk(tree, [])
    return tree


def write_sweep(directory, points, objectives=(("latency_s", "min"), ("energy_j", "min"))):
    """results.csv, pareto.csv and sweep.json in the sweep engine's layout.

    points: [(axis values, status, path, summary dict)] in expansion order."""
    outputs = ["edp"]
    header = ["point"] + AXES + ["fidelity", "status", "hash"] + SUMMARY + outputs + ["path", "error"]
    rows = []
    for i, (values, status, path, summary) in enumerate(points):
        row = {"point": i, "fidelity": "cycle", "status": status, "hash": f"{i:032x}", "path": path,
               "error": "" if status == "ok" else "simulation failed: out of scratchpad"}
        row.update(dict(zip(AXES, values)))
        if status == "ok":
            row.update({k: repr(summary[k]) for k in SUMMARY})
            row["edp"] = repr(summary["energy_j"] * summary["latency_s"])
        rows.append(row)
    ok = [r for r in rows if r["status"] == "ok"]
    front = pc.pareto_front([float(r["latency_s"]) for r in ok], [float(r["energy_j"]) for r in ok])
    for name, subset in (("results.csv", rows), ("pareto.csv", [ok[i] for i in front])):
        with open(os.path.join(directory, name), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=header)
            w.writeheader()
            w.writerows(subset)
    with open(os.path.join(directory, "sweep.json"), "w") as f:
        json.dump({"name": "fixture", "axes": AXES, "outputs": outputs, "points": len(rows),
                   "objectives": [{"key": k, "sense": s} for k, s in objectives]}, f)


def make_fixture_sweep(directory):
    with open(FIXTURE) as f:
        base = json.load(f)
    flat = pc.load_stats(os.path.dirname(FIXTURE))
    points = []
    i = 0
    for rows in (16, 32, 64):
        for weights in ("int8", "int4"):
            # Bigger arrays: faster, more area, a little more energy; int4 halves the traffic.
            lat = (16 / rows) ** 0.5 * (0.6 if weights == "int4" else 1.0)
            energy = (rows / 16) ** 0.3 * (0.7 if weights == "int4" else 1.0)
            area = (rows / 16) ** 1.2
            path = f"points/{i:04d}"
            status = "failed" if i == FAILED_POINT else "ok"
            summary = {
                "simulated_time_s": pc.stat(flat, "totals.simulated_time") * lat,
                "latency_s": pc.stat(flat, "hardware.latency") * lat,
                "energy_j": pc.stat(flat, "totals.energy") * energy,
                "area_mm2": pc.stat(flat, "totals.area") * area,
                "flops": pc.stat(flat, "hardware.flops"),
                "dram_bandwidth_gbps": 23.7 / lat,
            }
            summary["avg_power_w"] = summary["energy_j"] / summary["simulated_time_s"]
            if status == "ok":
                os.makedirs(os.path.join(directory, path))
                with open(os.path.join(directory, path, "stats.json"), "w") as f:
                    json.dump(scaled_stats(base, lat, energy, area), f)
                with open(os.path.join(directory, path, "summary.json"), "w") as f:
                    json.dump(dict(summary, status="complete"), f)
            points.append(((rows, weights), status, path, summary))
            i += 1
    write_sweep(directory, points)


def run_script(kind, *args):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, f"plot_{kind}.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def png_dpi(path):
    """Horizontal dots per inch from the PNG's pHYs chunk (None if there is none)."""
    with open(path, "rb") as f:
        data = f.read()
    k = data.find(b"pHYs")
    if k < 0:
        return None
    ppm_x, _, unit = struct.unpack(">IIB", data[k + 4: k + 13])
    return ppm_x * 0.0254 if unit == 1 else None


def pdf_has_raster(path):
    """Image XObjects are how a bitmap lands in a PDF; matplotlib writes object headers uncompressed."""
    with open(path, "rb") as f:
        data = f.read()
    return b"/Subtype /Image" in data or b"/Subtype/Image" in data


class ParetoTest(unittest.TestCase):
    def brute(self, xs, ys, xsense, ysense):
        sx = 1 if xsense == "min" else -1
        sy = 1 if ysense == "min" else -1
        out = []
        for i in range(len(xs)):
            if math.isnan(xs[i]) or math.isnan(ys[i]):
                continue
            dominated = any(
                sx * xs[j] <= sx * xs[i] and sy * ys[j] <= sy * ys[i] and (xs[j], ys[j]) != (xs[i], ys[i])
                for j in range(len(xs)) if not (math.isnan(xs[j]) or math.isnan(ys[j])))
            if not dominated:
                out.append(i)
        return sorted(out)

    def test_min_min(self):
        xs = [1, 2, 3, 4, 5]
        ys = [5, 3, 4, 1, 5]
        self.assertEqual(pc.pareto_front(xs, ys), [0, 1, 3])

    def test_order_is_by_x(self):
        self.assertEqual(pc.pareto_front([4, 1, 2], [1, 5, 3]), [1, 2, 0])

    def test_ties(self):
        # Exact duplicates are both kept; equal x with worse y, or equal y with worse x, is not.
        self.assertEqual(pc.pareto_front([1, 1, 2], [1, 1, 0.5]), [0, 1, 2])
        self.assertEqual(pc.pareto_front([1, 1], [2, 1]), [1])
        self.assertEqual(pc.pareto_front([2, 1], [1, 1]), [1])
        self.assertEqual(pc.pareto_front([3, 3, 3], [7, 7, 7]), [0, 1, 2])

    def test_maximise(self):
        xs = [1, 2, 3, 4]
        ys = [1, 3, 2, 5]
        self.assertEqual(pc.pareto_front(xs, ys, "min", "max"), [0, 1, 3])
        self.assertEqual(pc.pareto_front(xs, ys, "max", "max"), [3])
        self.assertEqual(pc.pareto_front(xs, ys, "max", "min"), [0, 2, 3])

    def test_nan_and_empty(self):
        self.assertEqual(pc.pareto_front([], []), [])
        self.assertEqual(pc.pareto_front([float("nan"), 2], [0, 1]), [1])
        with self.assertRaises(ValueError):
            pc.pareto_front([1], [1], "least")

    def test_matches_brute_force(self):
        rng = random.Random(7)
        for trial in range(200):
            n = rng.randint(1, 25)
            # Few distinct values, so that ties are common.
            xs = [float(rng.randint(0, 6)) for _ in range(n)]
            ys = [float(rng.randint(0, 6)) for _ in range(n)]
            for xsense in ("min", "max"):
                for ysense in ("min", "max"):
                    self.assertEqual(sorted(pc.pareto_front(xs, ys, xsense, ysense)),
                                     self.brute(xs, ys, xsense, ysense), (xs, ys, xsense, ysense))


class HelpersTest(unittest.TestCase):
    def test_units(self):
        self.assertEqual(pc.unit_scale("latency_s", [2e-3, 5e-3]), ("latency (ms)", 1e3))
        label, f = pc.unit_scale("energy_j", [3e-6, 9e-6])
        self.assertEqual(label, "energy (µJ)")
        self.assertAlmostEqual(f, 1e6)
        self.assertEqual(pc.unit_scale("energy_j", [2.0, 30.0]), ("energy (J)", 1.0))
        self.assertEqual(pc.unit_scale("area_mm2", [4.2]), ("area (mm²)", 1.0))
        self.assertEqual(pc.unit_scale("dram_bandwidth_gbps", [23.7]), ("DRAM bandwidth (GB/s)", 1.0))
        self.assertEqual(pc.unit_scale("dram_bandwidth_gbps", [1200.0])[0], "DRAM bandwidth (TB/s)")
        label, f = pc.unit_scale("edp", [5.7e-6])
        self.assertEqual(label, "energy-delay product (µJ·s)")
        self.assertAlmostEqual(f, 1e6)
        label, f = pc.unit_scale("dram_read_latency_ns", [100.0])
        self.assertEqual(label, "DRAM read latency (ns)")
        self.assertAlmostEqual(f, 1.0)
        self.assertEqual(pc.unit_scale("simulated_time_s", [3.0, 5000.0]), ("simulated time (s)", 1.0))
        self.assertEqual(pc.unit_scale("row_hit_rate", [0.9]), ("row hit rate", 1.0))

    def test_axis_values(self):
        a = pc.AxisValues("hardware.core.clock", ["1.6 GHz", "1 GHz", "2 GHz"])
        self.assertTrue(a.numeric)
        self.assertEqual(a.order, [1.0, 1.6, 2.0])
        self.assertEqual(a.label(), "core clock (GHz)")
        b = pc.AxisValues("hardware.core.scratchpad.capacity", ["4 MiB", "512 KiB", "1 MiB"])
        self.assertFalse(b.numeric)
        self.assertEqual(b.order, ["512 KiB", "1 MiB", "4 MiB"])
        c = pc.AxisValues("workload.quant.weights", ["int8", "int4", "int8"])
        self.assertEqual(c.order, ["int8", "int4"])
        self.assertAlmostEqual(pc.parse_si("2.05 TFLOP/s", "--peak-flops"), 2.05e12, delta=1)
        self.assertAlmostEqual(pc.parse_si("25.6e9", "--peak-bandwidth"), 25.6e9, delta=1)
        self.assertAlmostEqual(pc.parse_si("2T", "--peak-flops"), 2e12, delta=1)

    def test_op_classes(self):
        cases = {"s0.l0.q_proj": "GEMM", "s0.l0.ffn.down": "GEMM", "s0.lm_head": "GEMM", "s0.l3.attn": "attention",
                 "s0.l0.k_append": "attention", "s0.l0.norm1": "norm", "s0.norm_final": "norm",
                 "s0.l0.ffn.gelu": "element-wise", "s0.l1.add2": "element-wise", "s0.embed": "embedding",
                 "router.top_k": "routing", "moe.experts.combine": "routing", "moe.experts.up": "GEMM",
                 "l0.aggregate": "sparse", "l0.combine": "GEMM", "l0.mystery": "other"}
        for name, cls in cases.items():
            self.assertEqual(pc.op_class(name), cls, name)

    def test_components_add_up_to_totals(self):
        flat = pc.load_stats(os.path.dirname(FIXTURE))
        for what in ("energy", "area"):
            parts = pc.by_component(flat, what)
            self.assertAlmostEqual(sum(parts.values()), pc.stat(flat, f"totals.{what}"), delta=1e-9 * sum(parts.values()))
        self.assertEqual(set(pc.by_component(flat, "energy")), {"engine", "vector", "scratchpad", "dma", "noc", "memory"})
        ops = pc.operators(flat)
        self.assertIn("s0.l0.attn", ops)
        self.assertGreater(ops["s0.lm_head"]["flops"], 0)

    def test_stat_units(self):
        flat = {"a": {"type": "scalar", "unit": "GB/s", "value": 25.6}}
        self.assertAlmostEqual(pc.stat(flat, "a", "B/s"), 25.6e9)
        self.assertIsNone(pc.stat(flat, "b"))

    def test_raster_detector_detects_rasters(self):
        # Guards the vector checks below: an imshow figure must be flagged.
        with tempfile.TemporaryDirectory() as d:
            fig, ax = pc.plt.subplots()
            ax.imshow([[0, 1], [1, 0]])
            with open(os.devnull, "w") as null:
                old, sys.stdout = sys.stdout, null
                try:
                    pc.save(fig, os.path.join(d, "img"))
                finally:
                    sys.stdout = old
            self.assertTrue(pdf_has_raster(os.path.join(d, "img.pdf")))


class ScriptsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="strata-plots-")
        cls.sweep = os.path.join(cls.tmp, "sweep")
        os.makedirs(cls.sweep)
        make_fixture_sweep(cls.sweep)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def check_outputs(self, proc, base):
        self.assertEqual(proc.returncode, 0, proc.stderr)
        printed = proc.stdout.split()
        for ext in ("png", "pdf"):
            path = f"{base}.{ext}"
            self.assertIn(path, printed)
            self.assertTrue(os.path.isfile(path), path)
            self.assertGreater(os.path.getsize(path), 1000, path)
        with open(f"{base}.png", "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertAlmostEqual(png_dpi(f"{base}.png"), 300, delta=1)
        with open(f"{base}.pdf", "rb") as f:
            pdf = f.read()
        self.assertTrue(pdf.startswith(b"%PDF"))
        self.assertFalse(pdf_has_raster(f"{base}.pdf"), f"{base}.pdf embeds a bitmap")
        self.assertNotIn(b"/Type3", pdf, "fonts must be embedded TrueType (pdf.fonttype 42)")
        self.assertIn(b"/FontFile2", pdf, "fonts must be embedded TrueType (pdf.fonttype 42)")

    def plots(self, name):
        return os.path.join(self.sweep, "plots", name)

    def test_pareto_defaults(self):
        p = run_script("pareto", self.sweep)
        self.check_outputs(p, self.plots("pareto-latency_s-energy_j"))
        self.assertIn("on the front", p.stderr)

    def test_pareto_options(self):
        base = os.path.join(self.tmp, "custom", "pareto")
        p = run_script("pareto", self.sweep, "--x", "area_mm2", "--y", "dram_bandwidth_gbps", "--y-sense", "max",
                       "--label", AXES[1], "--color", AXES[0], "--logx", "-o", base)
        self.check_outputs(p, base)

    def test_breakdown_default_pareto_points(self):
        p = run_script("breakdown", self.sweep)
        self.check_outputs(p, self.plots("breakdown-latency-energy-area"))
        self.assertNotIn("warning", p.stderr)

    def test_breakdown_by_axis_and_points(self):
        p = run_script("breakdown", self.sweep, "--by", AXES[0], "--what", "energy,latency")
        self.check_outputs(p, self.plots("breakdown-energy-latency"))
        self.assertIn("holding weights=int8", p.stderr)
        base = os.path.join(self.tmp, "bd-points")
        p = run_script("breakdown", self.sweep, "--points", "0,3", "--what", "latency", "--op-groups", "name", "-o", base)
        self.check_outputs(p, base)
        p = run_script("breakdown", self.sweep, "--points", f"0,{FAILED_POINT}")
        self.assertEqual(p.returncode, 2)
        self.assertIn(str(FAILED_POINT), p.stderr)

    def test_roofline_from_sweep_with_options(self):
        p = run_script("roofline", self.sweep, "--point", 2, "--peak-flops", "2.048 TFLOP/s", "--annotate", 2)
        self.check_outputs(p, self.plots("roofline-p2"))
        self.assertIn("not shown", p.stderr)  # the embedding and KV appends have no FLOPs

    def test_roofline_from_stats(self):
        point = os.path.join(self.tmp, "point")
        os.makedirs(point, exist_ok=True)
        with open(FIXTURE) as f:
            tree = json.load(f)
        tree["hardware"]["peak_flops"] = {"type": "scalar", "unit": "FLOP/s", "value": 2.048e12}
        tree["hardware"]["peak_bandwidth"] = {"type": "scalar", "unit": "B/s", "value": 25.6e9}
        with open(os.path.join(point, "stats.json"), "w") as f:
            json.dump(tree, f)
        p = run_script("roofline", point)
        self.check_outputs(p, os.path.join(point, "plots", "roofline-point"))

    def test_roofline_without_peak_is_an_error(self):
        p = run_script("roofline", self.sweep, "--point", 0)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--peak-flops", p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)

    def test_heatmap(self):
        p = run_script("heatmap", self.sweep, "--x", AXES[0], "--y", AXES[1], "--z", "energy_j")
        self.check_outputs(p, self.plots("heatmap-energy_j-rows-weights"))
        p = run_script("heatmap", self.sweep, "--x", AXES[1], "--y", AXES[0], "--z", "edp", "--agg", "mean",
                       "--no-annotate", "-o", os.path.join(self.tmp, "hm"))
        self.check_outputs(p, os.path.join(self.tmp, "hm"))

    def test_line(self):
        p = run_script("line", self.sweep, "--x", AXES[0], "--y", "latency_s", "--group", AXES[1], "--logx", "--logy")
        self.check_outputs(p, self.plots("line-latency_s-rows-weights"))
        p = run_script("line", self.sweep, "--x", AXES[1], "--y", "avg_power_w", "-o", os.path.join(self.tmp, "ln"))
        self.check_outputs(p, os.path.join(self.tmp, "ln"))
        self.assertIn("reduce over hardware.core.engine.rows", p.stderr)

    def test_normalized(self):
        # Each design (array rows) over the rows=16 design at the same weights: latency as speed-up
        # (16 / rows)^-0.5, energy (rows / 16)^0.3; the failed point (64 rows, int4) has no bar.
        base = os.path.join(self.tmp, "norm")
        p = run_script("normalized", self.sweep, "--baseline", f"{AXES[0]}=16", "--x", AXES[1],
                       "--y", "latency_s,energy_j", "-o", base)
        self.check_outputs(p, base)
        with open(base + ".csv", newline="") as f:
            table = {(r["column"], r["group"], r[AXES[0]]): float(r["normalized"]) for r in csv.DictReader(f)}
        self.assertAlmostEqual(table[("latency_s", "int8", "32")], 2 ** 0.5, places=4)
        self.assertAlmostEqual(table[("latency_s", "int4", "16")], 1.0, places=6)
        self.assertAlmostEqual(table[("energy_j", "int8", "64")], 4 ** 0.3, places=4)
        self.assertNotIn(("energy_j", "int4", "64"), table)
        p = run_script("normalized", self.sweep, "--baseline", f"{AXES[0]}=12", "--x", AXES[1])
        self.assertEqual(p.returncode, 2)
        self.assertIn("no value '12'", p.stderr)

    def test_help(self):
        for kind in ("pareto", "breakdown", "roofline", "heatmap", "line", "normalized"):
            p = run_script(kind, "--help")
            self.assertEqual(p.returncode, 0, kind)
            self.assertIn("usage", p.stdout)

    def test_unknown_column_exits_2_naming_it(self):
        for kind, args in (("pareto", ["--x", "no_such_col", "--y", "energy_j"]),
                           ("heatmap", ["--x", AXES[0], "--y", AXES[1], "--z", "no_such_col"]),
                           ("line", ["--x", AXES[0], "--y", "latency_s", "--group", "no_such_col"]),
                           ("breakdown", ["--by", "no_such_col"])):
            p = run_script(kind, self.sweep, *args)
            self.assertEqual(p.returncode, 2, (kind, p.stderr))
            lines = p.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertIn("'no_such_col'", lines[0])
            self.assertIn("energy_j", lines[0], "the message lists the available columns")

    def test_bad_inputs_exit_2(self):
        p = run_script("pareto", os.path.join(self.tmp, "nowhere"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("no such directory", p.stderr)
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty, exist_ok=True)
        p = run_script("line", empty, "--x", AXES[0], "--y", "latency_s")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no results.csv", p.stderr)
        failed = os.path.join(self.tmp, "allfailed")
        os.makedirs(failed, exist_ok=True)
        write_sweep(failed, [((16, "int8"), "failed", "points/0000", {})])
        p = run_script("heatmap", failed, "--x", AXES[0], "--y", AXES[1], "--z", "energy_j")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no ok points", p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)


if __name__ == "__main__":
    unittest.main()
