#!/usr/bin/python3
"""Draw porosity slices over time from a Staghorn output directory to one PNG.

Usage: scripts/plot_porosity.py OUTPUT_DIR [--field phi] [--panels 6] [--out FILE.png]
                                [--normal y] [--index N] [--dpi 80]

Picks up to --panels snapshots (evenly over the run, first and last included). 2-D runs are drawn
whole; 3-D runs as the slice through the centre normal to --normal (x or y: vertical, z:
horizontal), or through --index along it; 1-D runs as profiles on one axis. Needs matplotlib and
either xarray with netCDF4 or h5py (snapshots are netCDF-4, i.e. HDF5: a GPU machine without the
netCDF library reads them with h5py, only the slice drawn).
"""
import argparse
import glob
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def pick(paths, panels):
    if len(paths) <= panels:
        return paths
    idx = np.linspace(0, len(paths) - 1, panels).round().astype(int)
    return [paths[i] for i in sorted(set(idx))]


class Plane:
    """One snapshot's field: a 1-D profile or a 2-D slice (values[vertical, horizontal])."""

    def __init__(self, time, values, dims, coords):
        self.time, self.values, self.dims, self.coords = time, values, dims, coords


def cut(dims, shape, normal, index):
    """Index tuple selecting the plane: all of a 1-D/2-D field, 3-D cut normal to `normal`."""
    sel = [0] + [slice(None)] * (len(dims) - 1)  # time is the first dimension
    if "z" in dims:
        a = dims.index(normal)
        sel[a] = shape[a] // 2 if index is None else index
    return tuple(sel)


def read_xarray(path, field, normal, index):
    import xarray as xr

    with xr.open_dataset(path) as ds:
        if field not in ds:
            raise KeyError(f"{path}: no field '{field}' (has {list(ds.data_vars)})")
        v = ds[field]
        dims = list(v.dims)
        sel = cut(dims, v.shape, normal, index)
        kept = [d for d, s in zip(dims, sel) if isinstance(s, slice)]
        return Plane(float(ds["time"][0]), np.asarray(v[sel]), kept,
                     [np.asarray(ds[d]) for d in kept])


def read_h5py(path, field, normal, index):
    import h5py

    with h5py.File(path, "r") as f:
        if field not in f:
            raise KeyError(f"{path}: no field '{field}' (has {list(f.keys())})")
        v = f[field]
        # netCDF-4 attaches each dimension's scale (its coordinate variable) to the axis.
        dims = [d[0].name.lstrip("/") if len(d) else d.label for d in v.dims]
        sel = cut(dims, v.shape, normal, index)
        kept = [d for d, s in zip(dims, sel) if isinstance(s, slice)]
        return Plane(float(f["time"][0]), v[sel], kept, [f[d][()] for d in kept])


def read(path, field, normal, index):
    try:
        import netCDF4  # noqa: F401  (xarray's engine for netCDF-4)

        return read_xarray(path, field, normal, index)
    except ImportError:
        return read_h5py(path, field, normal, index)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("output_dir")
    p.add_argument("--field", default="phi")
    p.add_argument("--panels", type=int, default=6)
    p.add_argument("--out", default=None, help="PNG path (default: OUTPUT_DIR/FIELD.png)")
    p.add_argument("--normal", default="y", choices=["x", "y", "z"],
                   help="3-D: slice normal (z: a horizontal slice)")
    p.add_argument("--index", type=int, default=None, help="3-D: slice index along --normal")
    p.add_argument("--dpi", type=int, default=80)
    a = p.parse_args(argv)

    paths = [p for p in sorted(glob.glob(os.path.join(a.output_dir, "*.nc")))
             if not os.path.basename(p).startswith("diagnostics")]
    if not paths:
        print(f"no snapshots (*.nc) in {a.output_dir}", file=sys.stderr)
        return 1
    paths = pick(paths, a.panels)
    data = []
    for path in paths:
        try:
            data.append(read(path, a.field, a.normal, a.index))
        except KeyError as e:
            print(e.args[0], file=sys.stderr)
            return 1
        except OSError as e:  # e.g. the last snapshot of a run cut off while writing it
            print(f"{path}: skipped ({e})", file=sys.stderr)
    out = a.out or os.path.join(a.output_dir, f"{a.field}.png")

    first = data[0]
    if first.values.ndim == 1:  # 1-D: profiles
        fig, ax = plt.subplots(figsize=(7, 4))
        for d in data:
            ax.plot(d.coords[0], d.values, label=f"t = {d.time:.3g}")
        ax.set_xlabel(first.dims[0])
        ax.set_ylabel(a.field)
        ax.legend()
    else:
        lo = min(float(d.values.min()) for d in data)
        hi = max(float(d.values.max()) for d in data)
        vert, horiz = first.dims  # (y, x) in 2-D, (z, x|y) or (y, x) in 3-D
        aspect = first.values.shape[0] / first.values.shape[1]
        fig, axes = plt.subplots(1, len(data), figsize=(2.2 * len(data) + 0.8, 2.2 * aspect + 0.6),
                                 squeeze=False, constrained_layout=True)
        for ax, d in zip(axes[0], data):
            im = ax.pcolormesh(d.coords[1], d.coords[0], d.values, vmin=lo, vmax=hi,
                               cmap="viridis", shading="auto")
            ax.set_aspect("equal")
            ax.set_title(f"t = {d.time:.3g}", fontsize=9)
            ax.set_xlabel(horiz)
            ax.tick_params(labelsize=7)
        axes[0][0].set_ylabel(vert)
        fig.colorbar(im, ax=axes[0].tolist(), shrink=0.8, label=a.field)
    fig.savefig(out, dpi=a.dpi)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
