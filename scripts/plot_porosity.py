#!/usr/bin/python3
"""Draw porosity slices over time from a Staghorn output directory to one PNG.

Usage: scripts/plot_porosity.py OUTPUT_DIR [--field phi] [--panels 6] [--out FILE.png]
                                [--normal y] [--index N] [--dpi 80]

Picks up to --panels snapshots (evenly over the run, first and last included). 2-D runs are drawn
whole; 3-D runs as the vertical slice through the centre normal to --normal (x or y), or through
--index along it; 1-D runs as profiles on one axis. Needs matplotlib and xarray (netCDF4).
"""
import argparse
import glob
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402


def pick(paths, panels):
    if len(paths) <= panels:
        return paths
    idx = np.linspace(0, len(paths) - 1, panels).round().astype(int)
    return [paths[i] for i in sorted(set(idx))]


def plane(var, normal, index):
    """The 2-D (vertical, horizontal) array of one snapshot's field, and its axis names."""
    v = var.isel(time=0)
    if "z" in v.dims:  # 3-D: cut normal to x or y
        n = v.sizes[normal]
        v = v.isel({normal: n // 2 if index is None else index})
    return v


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("output_dir")
    p.add_argument("--field", default="phi")
    p.add_argument("--panels", type=int, default=6)
    p.add_argument("--out", default=None, help="PNG path (default: OUTPUT_DIR/FIELD.png)")
    p.add_argument("--normal", default="y", choices=["x", "y"], help="3-D: slice normal")
    p.add_argument("--index", type=int, default=None, help="3-D: slice index along --normal")
    p.add_argument("--dpi", type=int, default=80)
    a = p.parse_args(argv)

    paths = sorted(glob.glob(os.path.join(a.output_dir, "*.nc")))
    if not paths:
        print(f"no snapshots (*.nc) in {a.output_dir}", file=sys.stderr)
        return 1
    paths = pick(paths, a.panels)
    data = []
    for path in paths:
        with xr.open_dataset(path) as ds:
            if a.field not in ds:
                print(f"{path}: no field '{a.field}' (has {list(ds.data_vars)})", file=sys.stderr)
                return 1
            data.append((float(ds["time"][0]), plane(ds[a.field], a.normal, a.index).load()))
    out = a.out or os.path.join(a.output_dir, f"{a.field}.png")

    first = data[0][1]
    if first.ndim == 1:  # 1-D: profiles
        fig, ax = plt.subplots(figsize=(7, 4))
        for t, v in data:
            ax.plot(v[v.dims[0]], v, label=f"t = {t:.3g}")
        ax.set_xlabel(v.dims[0])
        ax.set_ylabel(a.field)
        ax.legend()
    else:
        lo = min(float(v.min()) for _, v in data)
        hi = max(float(v.max()) for _, v in data)
        vert, horiz = first.dims  # (y, x) in 2-D, (z, x|y) in 3-D
        aspect = first.sizes[vert] / first.sizes[horiz]
        fig, axes = plt.subplots(1, len(data), figsize=(2.2 * len(data) + 0.8, 2.2 * aspect + 0.6),
                                 squeeze=False, constrained_layout=True)
        for ax, (t, v) in zip(axes[0], data):
            im = ax.pcolormesh(v[horiz], v[vert], v, vmin=lo, vmax=hi, cmap="viridis",
                               shading="auto")
            ax.set_aspect("equal")
            ax.set_title(f"t = {t:.3g}", fontsize=9)
            ax.set_xlabel(horiz)
            ax.tick_params(labelsize=7)
        axes[0][0].set_ylabel(vert)
        fig.colorbar(im, ax=axes[0].tolist(), shrink=0.8, label=a.field)
    fig.savefig(out, dpi=a.dpi)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
