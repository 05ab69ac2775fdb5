#!/usr/bin/env python3
"""Iterations / n_x of the Stokes model on the multi-inclusion benchmark of Räss et al. (2022):
a 10 x 10 box, inclusions each covering 0.5% of the area, smoothed viscosity (10 passes), buoyancy (rho 1, inclusions 0.5, g = -1) or pure shear
(rate 1), stopping at 1e-5 on the momentum residual and 1e-3 on continuity in their measure
(stokes.residual_norm = rms_range). Weak inclusions (10^-1, 10^-5, 10^-9) and strong ones
(10^3, 10^6). Placement (--layout): lattice (their generator: 1 inclusion jittered by up to a
quarter of the box around its centre; 14 or 46 on a hexagonal lattice of spacing 3 radii in the
middle of the box, each jittered within its lattice cell, less so away from the centre; our random
numbers, fixed seed), the default for weak inclusions, where their table is the reference; or
uniform (stokes.materials' random_inclusions: anywhere in the box, a gap of half a radius), the
default for strong ones. Prints a markdown table. Every PT parameter is the model's default: the damping Re
tuned during the solve, r chosen at set-up (0.75 weak, 1 strong), the pseudo-steps' floor by the measure (half the
median with rms_range); --set overrides any key (e.g. stokes.Re=12.2434 for the fixed optimum).

  scripts/stokes_inclusion_table.py --staghorn build/bin/staghorn --n 2047 --kind weak
  scripts/stokes_inclusion_table.py --n 1023 --kind strong --launcher "orterun -np 1"
  scripts/stokes_inclusion_table.py --n 127 --ncheck 25 --backend cpu --counts 1,14 --modes shear
"""
import argparse
import json
import math
import os
import random
import shlex
import subprocess
import sys
import tempfile

LENGTH = 10.0
RADIUS = math.sqrt(LENGTH * LENGTH * 0.005 / math.pi)


LATTICE_ROWS = {1: 1, 14: 4, 46: 7}  # rows of the hexagonal lattice holding that many


def lattice_centres(count, seed):
    """Centres of Räss et al.'s (2022) layout: alternate rows of rows and rows - 1 inclusions."""
    rng = random.Random(seed)
    rows = LATTICE_ROWS[count]
    if rows == 1:
        return [tuple(LENGTH / 2 + 0.25 * LENGTH * (2 * rng.random() - 1) for _ in range(2))]
    width = min(3 * rows * RADIUS, LENGTH - 2.5 * RADIUS)
    dx = width / (rows - 1)
    dy = dx * math.sqrt(3) / 2
    centres = []
    for j in range(rows):
        for i in range(rows - j % 2):
            x = -width / 2 + i * dx + dx / 2 * (j % 2)
            y = -width / 2 * math.sqrt(3) / 2 + j * dy
            jx = 0.5 * (dx - 2 * RADIUS) * (2 * rng.random() - 1)
            jy = 0.5 * (dy - 2 * RADIUS) * (2 * rng.random() - 1)
            # Jitter away from the centre fades with the distance from it.
            if x * jx > 0:
                jx *= math.exp(-(x / 2) ** 2)
            if y * jy > 0:
                jy *= math.exp(-(y / 2) ** 2)
            centres.append((LENGTH / 2 + x + jx, LENGTH / 2 + y + jy))
    return centres


def phases(count, viscosity, density, layout):
    seed = 1855 + count
    if layout == "uniform":
        return [{"shape": "random_inclusions", "count": count, "radius_min": RADIUS,
                 "radius_max": RADIUS, "gap": 0.5 * RADIUS, "seed": seed,
                 "viscosity": viscosity, "density": density}]
    return [{"shape": "sphere", "center": [x, y, 0.5], "radius": RADIUS, "viscosity": viscosity,
             "density": density} for x, y in lattice_centres(count, seed)]


def config(n, count, viscosity, mode, backend, ncheck=200, layout="uniform"):
    buoyancy = mode == "buoyancy"
    return {
        "model": "stokes", "backend": backend,
        "grid": {"n": [n, n, 1], "length": [LENGTH, LENGTH, 1.0]},
        "time": {"dt": 1.0, "steps": 1},
        "solver": {"tol": 1e-5, "tol_mode": "absolute", "ncheck": ncheck, "max_iter": 100 * n},
        "output": {"every": 0, "final": False},
        "stokes": {"viscosity": 1.0, "density": 1.0 if buoyancy else 0.0,
                   "gravity": [0.0, -1.0 if buoyancy else 0.0, 0.0],
                   "pure_shear": 0.0 if buoyancy else 1.0, "smoothing": 10,
                   "residual_norm": "rms_range", "continuity_tol": 1e-3,
                   "materials": {"phases": phases(count, viscosity, 0.5 if buoyancy else 0.0,
                                                  layout)}},
    }


def override(cfg, assignment):
    """Sets one dotted key of cfg from 'path=value' (value: JSON, else a string)."""
    path, _, text = assignment.partition("=")
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = text
    keys = path.split(".")
    node = cfg
    for k in keys[:-1]:
        node = node.setdefault(k, {})
    node[keys[-1]] = value


def iterations(args, cfg):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "case.json")
        with open(path, "w") as f:
            json.dump(cfg, f)
        cmd = shlex.split(args.launcher) + [args.staghorn, "run", path, "--output",
                                            os.path.join(d, "out")]
        p = subprocess.run(cmd, capture_output=True, text=True)
        for line in p.stdout.splitlines():
            if line.startswith("{") and '"iterations"' in line:
                return json.loads(line)["iterations"]
        sys.stderr.write(p.stdout[-2000:] + p.stderr[-2000:])
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--staghorn", default="build/bin/staghorn")
    ap.add_argument("--launcher", default="")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--n", type=int, default=2047)
    ap.add_argument("--kind", choices=["weak", "strong"], default="weak")
    ap.add_argument("--counts", default="1,14,46")
    ap.add_argument("--modes", default="buoyancy,shear")
    ap.add_argument("--contrasts", default=None, help="comma-separated viscosity ratios")
    ap.add_argument("--layout", choices=["lattice", "uniform"], default=None,
                    help="placement of the inclusions (default: lattice for weak, uniform for "
                         "strong)")
    ap.add_argument("--ncheck", type=int, default=200,
                    help="iterations between residual checks (200 as their runs; ~n/10 keeps "
                         "the granularity of smaller grids)")
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                    help="override a config key, e.g. stokes.Re=9.18 (repeatable)")
    args = ap.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    contrasts = [1e-1, 1e-5, 1e-9] if args.kind == "weak" else [1e3, 1e6]
    if args.contrasts:
        contrasts = [float(c) for c in args.contrasts.split(",")]
    modes = args.modes.split(",")
    layout = args.layout or ("lattice" if args.kind == "weak" else "uniform")
    if layout == "lattice" and not set(counts) <= set(LATTICE_ROWS):
        ap.error(f"--layout lattice places {sorted(LATTICE_ROWS)} inclusions, not {counts}")
    title = {"buoyancy": "buoyancy", "shear": "pure shear"}
    print("| viscosity ratio | " + " | ".join(
        f"{title[m]}, {' / '.join(map(str, counts))} inclusions" for m in modes) + " |")
    print("| --- | " + " | ".join("---" for _ in modes) + " |")
    for mu in contrasts:
        cells = []
        for mode in modes:
            row = []
            for c in counts:
                cfg = config(args.n, c, mu, mode, args.backend, args.ncheck, layout)
                for assignment in args.set:
                    override(cfg, assignment)
                it = iterations(args, cfg)
                # Each case as it ends (stderr), so that a cut run keeps what it measured.
                print(f"{mode} {c} inclusions {mu:g}: {it} iterations", file=sys.stderr, flush=True)
                row.append("n/c" if it is None else f"{it / args.n:.1f}")
            cells.append(" / ".join(row))
        print(f"| {mu:g} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
