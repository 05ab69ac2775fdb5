#!/usr/bin/env python3
"""Draws a Stokes snapshot's viscosity, pressure and velocity to a PNG: log10(mu), P, and the
speed |v| with streamlines, side by side (3-D: the slice through the middle of z, or --index K).
Velocities live on faces; they are averaged to the cell centres for the speed and streamlines.

Usage: plot_fields.py SNAPSHOT.nc OUT.png [--index K] [--title TEXT]
Needs numpy, netCDF4 and matplotlib (Debian: python3-numpy python3-netcdf4 python3-matplotlib).
"""
import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from netCDF4 import Dataset  # noqa: E402


def field(ds, name, index):
    """The last time of a variable as a 2-D array [y, x] (3-D: z = index, the middle if None)."""
    v = np.asarray(ds[name][-1], dtype=float)
    if v.ndim == 3:
        v = v[v.shape[0] // 2 if index is None else index]
    return v


def centred_velocity(ds, index):
    vx, vy = field(ds, "Vx", index), field(ds, "Vy", index)
    ny, nx = field(ds, "P", index).shape
    # A bounded axis has one more face than cells, a periodic one as many (wrap around).
    vx = 0.5 * (vx[:, :nx] + (vx[:, 1:nx + 1] if vx.shape[1] > nx else np.roll(vx, -1, axis=1)))
    vy = 0.5 * (vy[:ny, :] + (vy[1:ny + 1, :] if vy.shape[0] > ny else np.roll(vy, -1, axis=0)))
    return vx, vy


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("snapshot")
    p.add_argument("out")
    p.add_argument("--index", type=int, help="3-D: the z index of the slice (default: middle)")
    p.add_argument("--title", default="")
    a = p.parse_args()
    with Dataset(a.snapshot) as ds:
        x, y = np.asarray(ds["x"][:]), np.asarray(ds["y"][:])
        mu, P = field(ds, "mu", a.index), field(ds, "P", a.index)
        vx, vy = centred_velocity(ds, a.index)
    extent = [x[0] - (x[1] - x[0]) / 2, x[-1] + (x[1] - x[0]) / 2,
              y[0] - (y[1] - y[0]) / 2, y[-1] + (y[1] - y[0]) / 2]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6), constrained_layout=True)
    panels = [(np.log10(mu), "log10 viscosity (Pa s)", "viridis"),
              (P, "pressure (Pa)", "RdBu_r"),
              (np.hypot(vx, vy), "speed (m/s), streamlines", "magma")]
    for ax, (data, label, cmap) in zip(axes, panels):
        kw = {}
        if cmap == "RdBu_r":  # symmetric about 0, clipped to the bulk (interfaces spike)
            lim = np.percentile(np.abs(data), 99)
            kw = {"vmin": -lim, "vmax": lim}
        im = ax.imshow(data, origin="lower", extent=extent, cmap=cmap, **kw)
        fig.colorbar(im, ax=ax, shrink=0.85)
        ax.set_title(label)
        ax.set_xlabel("x (m)")
        ax.set_aspect("equal")
    axes[0].set_ylabel("y (m)")
    axes[2].streamplot(x, y, vx, vy, color="w", linewidth=0.6, density=1.2, arrowsize=0.6)
    axes[2].set_xlim(extent[:2])
    axes[2].set_ylim(extent[2:])
    if a.title:
        fig.suptitle(a.title)
    fig.savefig(a.out, dpi=110)
    print(a.out)


if __name__ == "__main__":
    main()
