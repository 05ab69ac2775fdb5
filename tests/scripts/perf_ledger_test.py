#!/usr/bin/env python3
"""The performance ledger's tools: perf_collect.py reads each benchmark's output into figures,
perf_compare.py fails on a figure more than 5% worse than its baseline (in either direction of
"better"), on a figure the run lost, and passes on figures within the tolerance or new ones."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")

TABLE = """device: NVIDIA H100 80GB HBM3 (cuda)
grid 256^3, double; copy bandwidth 2990.1 GB/s (read + write)
variant                            ms/iteration   A_eff GB   T_eff GB/s T_eff/copy
stream (13 read, 10 write)               0.9000      3.087       3400.0     95.0%
residual check (all equations): 1.000 ms
tiled iteration + rigid body (not here: generic)     1.7900      3.087       1725.0     57.6%
"""
MHD = """device: NVIDIA H100 80GB HBM3 (cuda)
time per cell per RK3 step: 0.3630 ns (6.091 ms per step)
copy bandwidth 2990.0 GB/s -> memory bound 0.2140 ns/cell/step; achieved 1763.0 GB/s (59.0% of copy)
"""
METRICS = json.dumps({"time_per_iteration_s": 0.001839, "iterations": 21400,
                      "copy_bandwidth_GBs": 2980.0, "T_eff_fraction": 0.177}) + "\n"


def run(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True)


class Ledger(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = lambda name: os.path.join(self.dir.name, name)
        self.figures = []
        for kind, label, text in (("table", "stokes", TABLE), ("mhd", "mhd", MHD),
                                  ("metrics", "coupled", METRICS)):
            with open(self.path(label + ".txt"), "w") as f:
                f.write(text)
            r = run(os.path.join(SCRIPTS, "perf_collect.py"), kind, label, self.path(label + ".txt"),
                    "--commit", "abc1234", "--device", "NVIDIA H100 80GB HBM3")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.figures += [json.loads(l) for l in r.stdout.splitlines()]
        self.baseline = self.path("baseline.json")

    def tearDown(self):
        self.dir.cleanup()

    def write(self, figures):
        with open(self.path("ledger.jsonl"), "w") as f:
            f.writelines(json.dumps(x) + "\n" for x in figures)
        return self.path("ledger.jsonl")

    def compare(self, figures, *extra):
        return run(os.path.join(SCRIPTS, "perf_compare.py"), self.write(figures), "--baseline",
                   self.baseline, *extra)

    def test_collect_reads_every_figure_with_its_copy_bandwidth(self):
        by_name = {f["name"]: f for f in self.figures}
        self.assertEqual(sorted(by_name), ["coupled.teff", "mhd.ns_per_cell_step",
                                           "stokes.stream_13_read_10_write",
                                           "stokes.tiled_iteration_rigid_body_not_here_generic"])
        self.assertEqual(by_name["stokes.tiled_iteration_rigid_body_not_here_generic"]["value"], 57.6)
        self.assertEqual(by_name["stokes.stream_13_read_10_write"]["copy_gbs"], 2990.1)
        self.assertEqual(by_name["mhd.ns_per_cell_step"]["better"], "lower")
        self.assertAlmostEqual(by_name["coupled.teff"]["value"], 17.7)
        self.assertEqual(by_name["coupled.teff"]["copy_gbs"], 2980.0)

    def test_collect_fails_on_output_without_figures(self):
        with open(self.path("crash.txt"), "w") as f:
            f.write("Segmentation fault\n")
        r = run(os.path.join(SCRIPTS, "perf_collect.py"), "table", "x", self.path("crash.txt"))
        self.assertNotEqual(r.returncode, 0)

    def test_compare_passes_within_tolerance_and_fails_beyond_in_both_directions(self):
        self.assertEqual(self.compare(self.figures, "--accept").returncode, 0)
        self.assertEqual(self.compare(self.figures).returncode, 0)
        near = [dict(f, value=f["value"] * (0.96 if f["better"] == "higher" else 1.04))
                for f in self.figures]
        self.assertEqual(self.compare(near).returncode, 0)
        for name in ("coupled.teff", "mhd.ns_per_cell_step"):
            worse = [dict(f, value=f["value"] * (0.9 if f["better"] == "higher" else 1.1))
                     if f["name"] == name else f for f in self.figures]
            r = self.compare(worse)
            self.assertEqual(r.returncode, 1)
            self.assertIn("WORSE     " + name, r.stdout)

    def test_compare_fails_on_a_lost_figure_and_keeps_kinds_apart(self):
        self.compare(self.figures, "--accept")
        r = self.compare(self.figures[1:])
        self.assertEqual(r.returncode, 1)
        self.assertIn("missing   " + self.figures[0]["name"], r.stdout)
        h200 = [dict(f, device="NVIDIA H200") for f in self.figures]
        r = self.compare(h200)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no figures for H200", r.stderr)

    def test_accept_only_replaces_the_named_figures(self):
        self.compare(self.figures, "--accept")
        # stokes faster, mhd slower: accepting stokes alone keeps mhd's baseline, which still fails
        changed = [dict(f, value=f["value"] * (1.2 if f["name"].startswith("stokes.") else
                                               (1.1 if f["better"] == "lower" else 0.9)))
                   if f["name"].startswith(("stokes.", "mhd.")) else f for f in self.figures]
        r = self.compare(changed, "--accept", "--only", "stokes.")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.baseline) as f:
            book = json.load(f)["H100"]
        for fig in self.figures:
            now = next(c for c in changed if c["name"] == fig["name"])
            expected = now["value"] if fig["name"].startswith("stokes.") else fig["value"]
            self.assertEqual(book[fig["name"]]["value"], expected, fig["name"])
        r = self.compare(changed)
        self.assertEqual(r.returncode, 1)
        self.assertIn("WORSE     mhd.ns_per_cell_step", r.stdout)
        self.assertNotEqual(self.compare(changed, "--accept", "--only", "nothing.").returncode, 0)

    def test_accept_only_drops_a_figure_the_run_no_longer_gives(self):
        self.compare(self.figures, "--accept")
        stokes = [f for f in self.figures if f["name"].startswith("stokes.")]
        renamed = [dict(stokes[0], name=stokes[0]["name"] + "_renamed")] + stokes[1:]
        r = self.compare(renamed, "--accept", "--only", "stokes.")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"{stokes[0]['name']} dropped", r.stdout)
        with open(self.baseline) as f:
            book = json.load(f)["H100"]
        self.assertNotIn(stokes[0]["name"], book)
        self.assertIn(stokes[0]["name"] + "_renamed", book)
        others = [f["name"] for f in self.figures if not f["name"].startswith("stokes.")]
        self.assertTrue(others and all(n in book for n in others))
        self.assertEqual(self.compare(renamed, "--only", "stokes.").returncode, 0)

    def test_accept_keep_leaves_a_regression_on_record(self):
        self.compare(self.figures, "--accept")
        worse = [dict(f, value=f["value"] * (1.1 if f["better"] == "lower" else 0.9))
                 for f in self.figures]
        r = self.compare(worse, "--accept", "--keep", "mhd.")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.compare(worse)
        self.assertEqual(r.returncode, 1)
        self.assertIn("WORSE     mhd.ns_per_cell_step", r.stdout)
        self.assertEqual(r.stdout.count("WORSE"), 1, r.stdout)
        self.assertNotEqual(self.compare(worse, "--keep", "mhd.").returncode, 0)

    def test_compare_only_checks_a_partial_run_against_its_own_figures(self):
        self.compare(self.figures, "--accept")
        stokes = [f for f in self.figures if f["name"].startswith("stokes.")]
        r = self.compare(stokes, "--only", "stokes.")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertNotIn("missing", r.stdout)
        self.assertEqual(self.compare(stokes).returncode, 1)  # the others missing
        worse = [dict(f, value=f["value"] * 0.9) for f in stokes]
        r = self.compare(worse, "--only", "stokes.")
        self.assertEqual(r.returncode, 1)
        self.assertIn("WORSE     stokes.", r.stdout)
        r = self.compare(stokes[1:], "--only", "stokes.")
        self.assertEqual(r.returncode, 1)
        self.assertIn("missing   " + stokes[0]["name"], r.stdout)


if __name__ == "__main__":
    unittest.main()
