#!/usr/bin/python3
"""Tools of the fluid-escape-pipe study (docs/models/hydromech-coupled.md, "Study"),
for snapshots too large to bring back from a GPU machine.

  pipe_study.py extract RUN OUT [--coarsen 2] [--every 1]
      The porosity of every snapshot of RUN (of the steps that --every divides), averaged over
      coarsen^3 blocks, as float16 arrays (enough to draw it) in
      OUT/porosity.npz (phi_STEP, time_STEP, spacing), and RUN's diagnostics.csv copied to OUT.
      Reads the NetCDF-4 files as HDF5 (h5py), so it runs where netCDF's Python bindings are not.
  pipe_study.py compare A.nc B.nc
      Every variable of two snapshots equal to the bit (exit 1 otherwise): a run split over ranks
      against one on a single rank.
  pipe_study.py plot DIR [--out PNG] [--low PHI --base Z] [--mark Z]
      The chimney's front height (and the porosity maximum's) against time from DIR/diagnostics.csv;
      with --low, also the front at that lower threshold in each snapshot of DIR/porosity.npz.
"""
import argparse
import glob
import os
import re
import shutil
import sys

import numpy as np


def open_h5(path):
    import h5py
    return h5py.File(path, "r")


def coarsened(a, c):
    """The mean over c x c x c blocks (the last block of an axis may be short)."""
    if c <= 1:
        return a
    pad = [(0, (-n) % c) for n in a.shape]
    b = np.pad(a, pad, mode="edge")
    shape = []
    for n in b.shape:
        shape += [n // c, c]
    return b.reshape(shape).mean(axis=tuple(range(1, 2 * a.ndim, 2)))


def extract(args):
    os.makedirs(args.out, exist_ok=True)
    arrays = {}
    for path in sorted(glob.glob(os.path.join(args.run, "*.nc"))):
        m = re.search(r"_(\d+)\.nc$", path)
        if not m or "diagnostics" in path:
            continue
        with open_h5(path) as f:
            phi = np.asarray(f["phi"][0], dtype=np.float64)
            step = m.group(1)
            if int(step) % args.every:
                continue
            arrays["phi_" + step] = coarsened(phi, args.coarsen).astype(np.float16)
            arrays["time_" + step] = np.float64(f["time"][0])
            if "spacing" not in arrays:
                arrays["spacing"] = np.array(
                    [float(f[a][1] - f[a][0]) * args.coarsen for a in ("x", "y", "z")
                     if a in f])
    np.savez_compressed(os.path.join(args.out, "porosity.npz"), **arrays)
    shutil.copy(os.path.join(args.run, "diagnostics.csv"), args.out)
    print(f"{len([k for k in arrays if k.startswith('phi_')])} snapshots into {args.out}")


def compare(args):
    with open_h5(args.a) as a, open_h5(args.b) as b:
        names = sorted(k for k in a.keys() if hasattr(a[k], "shape"))
        if names != sorted(k for k in b.keys() if hasattr(b[k], "shape")):
            print("variables differ")
            return 1
        differ = [n for n in names if not np.array_equal(a[n][()], b[n][()], equal_nan=True)]
    print(f"{len(names)} variables, {len(differ)} differ" + (": " + ", ".join(differ) if differ
                                                              else " (identical to the bit)"))
    return 1 if differ else 0


def front_of(planes, threshold, base, dz):
    """The chimney's front from the planes' maxima as staghorn's front_height finds it
    (models/hydromech/porosity_stats.cpp): the top of the first run of planes from base upwards
    holding the threshold; what is detached above it is not the chimney."""
    n = len(planes)
    k = min(max(int(np.floor(base / dz)), 0), n - 1)
    while k < n and not planes[k] >= threshold:
        k += 1
    if k == n:
        return base
    while k + 1 < n and planes[k + 1] >= threshold:
        k += 1
    z = (k + 0.5) * dz
    if k + 1 == n:
        return z
    return z + dz * (planes[k] - threshold) / (planes[k] - planes[k + 1])


def snapshot_fronts(arrays, threshold, base):
    """The front (front_of) in each snapshot of an extract's arrays (coarsened: from the coarse
    cells' planes)."""
    dz = float(arrays["spacing"][-1])
    times, fronts = [], []
    for key in sorted(k for k in arrays.files if k.startswith("phi_")):
        phi = arrays[key].astype(np.float64)
        planes = phi.reshape(phi.shape[0], -1).max(axis=1)
        times.append(float(arrays["time_" + key[4:]]))
        fronts.append(front_of(planes, threshold, base, dz))
    return times, fronts


def plot(args):
    import csv
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(os.path.join(args.dir, "diagnostics.csv")) as f:
        rows = [r for r in csv.DictReader(f)]
    t = np.array([float(r["time"]) for r in rows])
    front = np.array([float(r["front_height"]) for r in rows])
    peak = np.array([float(r["peak_height"]) for r in rows])
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.plot(t, front, label="front (phi >= the run's threshold)")
    ax.plot(t, peak, "--", label="porosity maximum")
    npz = os.path.join(args.dir, "porosity.npz")
    if args.low and os.path.exists(npz):
        times, fronts = snapshot_fronts(np.load(npz), args.low, args.base)
        ax.plot(times, fronts, "o", label=f"front (phi >= {args.low}), snapshots")
    if args.mark is not None:
        ax.axhline(args.mark, color="grey", lw=0.8, ls=":", label=f"z = {args.mark}")
    ax.set_xlabel("time (compaction times)")
    ax.set_ylabel("height (compaction lengths)")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("extract")
    e.add_argument("run")
    e.add_argument("out")
    e.add_argument("--coarsen", type=int, default=2)
    e.add_argument("--every", type=int, default=1)
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    g = sub.add_parser("plot")
    g.add_argument("dir")
    g.add_argument("--out", default="pipe_front.png")
    g.add_argument("--mark", type=float, default=None,
                   help="a horizontal line at this height (e.g. half the overburden)")
    g.add_argument("--low", type=float, default=0.0,
                   help="also the front at this lower threshold, from DIR/porosity.npz (3-D)")
    g.add_argument("--base", type=float, default=0.0, help="the chimney's base height")
    args = p.parse_args()
    return {"extract": extract, "compare": compare, "plot": plot}[args.command](args) or 0


if __name__ == "__main__":
    sys.exit(main())
