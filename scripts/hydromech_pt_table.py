#!/usr/bin/python3
"""The coupled hydromech variant's PT iterations per step over decompaction weakening R and
porosity phi0, with default solver settings (docs/models/hydromech-coupled.md, "Iterations per
step").

Runs CONFIG (default: the 3-D blob example) for every R in --R and phi0 in --phi0, each for
--steps steps of dt = 0.2 phi0 (0.2 compaction times, as the example), and prints a markdown
table of the iterations per step in units of n_z (the cells along the up axis): the largest and
the mean over the steps.

A case that runs out of --walltime seconds (run.walltime) says which step it did not finish.

Usage: hydromech_pt_table.py --staghorn BIN [--launcher "orterun -np 1"] [--config C]
           [--steps 5] [--R 1 10 100 1000] [--phi0 0.01 0.05 0.1] [--walltime 0]
           [--set KEY=VALUE ...]
"""
import argparse
import csv
import json
import os
import shlex
import subprocess
import sys
import tempfile


def run_case(args, R, phi0):
    with tempfile.TemporaryDirectory() as out:
        cmd = shlex.split(args.launcher) + [
            args.staghorn, "run", args.config, "--output", out,
            "--set", f"time.steps={args.steps}", "--set", f"time.dt={0.2 * phi0}",
            "--set", f"hydromech.phi0={phi0}",
            "--set", f"hydromech.bulk_viscosity.decompaction_weakening={R}",
            "--set", "output.every=0", "--set", "output.final=false", "--set", "log.interval=0",
            "--set", f"run.walltime={args.walltime}"]
        for s in args.set:
            cmd += ["--set", s]
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        stopped = done.returncode == 6  # the walltime ran out
        if done.returncode != 0 and not stopped:
            said = [l for l in done.stderr.splitlines() if l.startswith("staghorn:")]
            return None, said[-1:] or ["exit %d" % done.returncode]
        with open(os.path.join(out, "diagnostics.csv")) as f:
            its = [int(float(r["pt_iterations"])) for r in csv.DictReader(f)][1:]
        if stopped:  # the step it was in is unfinished
            return its, "stopped"
        with open(os.path.join(out, "metrics.jsonl")) as f:
            grid = json.loads(f.readlines()[-1])["grid"]
        return its, grid


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--staghorn", required=True)
    p.add_argument("--launcher", default="")
    p.add_argument("--config", default=os.path.join(
        os.path.dirname(__file__), "..", "models", "hydromech", "examples",
        "hydromech3d_coupled_blob_gpu.json"))
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--R", type=float, nargs="+", default=[1, 10, 100, 1000])
    p.add_argument("--phi0", type=float, nargs="+", default=[0.01, 0.05, 0.1])
    p.add_argument("--walltime", type=float, default=0, help="seconds per case (0: none)")
    p.add_argument("--set", action="append", default=[])
    args = p.parse_args()
    print("| R \\ phi0 | " + " | ".join(f"{x:g}" for x in args.phi0) + " |")
    print("| --- |" + " --- |" * len(args.phi0))
    worst = 0.0
    for R in args.R:
        cells = []
        for phi0 in args.phi0:
            its, grid = run_case(args, R, phi0)
            if its is None:
                cells.append("failed: " + " ".join(grid))
                worst = float("inf")
                continue
            if grid == "stopped":
                worst = float("inf")
                cells.append(f"step {len(its) + 1} unfinished after {args.walltime:g} s")
                continue
            nz = [n for n in grid if n > 1][-1]  # the up axis: the last active one
            per = [i / nz for i in its]
            worst = max(worst, max(per))
            cells.append(f"{max(per):.1f} (mean {sum(per) / len(per):.1f})")
        print(f"| {R:g} | " + " | ".join(cells) + " |", flush=True)
    print(f"\nlargest: {worst:.1f} n_z per step")
    return 0


if __name__ == "__main__":
    sys.exit(main())
