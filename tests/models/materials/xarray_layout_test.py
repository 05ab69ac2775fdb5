#!/usr/bin/env python3
"""Material files as xarray writes them are read back at the cell centres: a 2-D permeability
(hydromech, dims (y, x)) and a 3-D viscosity (stokes, dims (z, y, x), z descending), both linear
in x, y, z (which linear interpolation reproduces exactly), on grids other than the model's.
The config names the file relative to its own directory, and the run starts elsewhere.

Usage: xarray_layout_test.py STAGHORN_BIN WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import xarray as xr
from netCDF4 import Dataset


def linear(*axes):
    return 1.0 + sum(c * a for c, a in zip((0.5, 0.25, 0.125), axes))


def run(staghorn, work, name, config):
    cfg_dir = os.path.join(work, name)
    with open(os.path.join(cfg_dir, "c.json"), "w") as f:
        json.dump(config, f)
    out = os.path.join(work, name + "-out")
    subprocess.run([staghorn, "run", os.path.join(cfg_dir, "c.json"), "--output", out,
                    "--set", "backend=cpu", "--set", "metrics.copy_bandwidth=false"],
                   check=True, cwd=work, stdout=subprocess.DEVNULL)
    return Dataset(os.path.join(out, "snapshot_000000.nc"))


def centres(n, length):
    return (np.arange(n) + 0.5) * length / n


def hydromech_2d(staghorn, work):
    os.makedirs(os.path.join(work, "hm"))
    x, y = np.linspace(0, 4, 9), np.linspace(-1, 9, 6)
    X, Y = np.meshgrid(x, y)
    xr.Dataset({"k": (("y", "x"), linear(X, Y))}, coords={"x": x, "y": y}).to_netcdf(
        os.path.join(work, "hm", "perm.nc"))
    ds = run(staghorn, work, "hm", {
        "model": "hydromech", "grid": {"n": [8, 16, 1], "length": [4.0, 8.0, 1.0]},
        "time": {"dt": 0.01, "steps": 1}, "output": {"initial": True},
        "hydromech": {"initial": {"type": "uniform"}, "phi0": 0.5,
                      "permeability": {"k0": 2.0, "exponent": 3},
                      "materials": {"file": "perm.nc", "variables": {"permeability": "k"}}}})
    Xc, Yc = np.meshgrid(centres(8, 4.0), centres(16, 8.0))
    want = 0.5 * (linear(Xc, Yc) / 2.0) ** (1 / 3)
    return np.max(np.abs(ds["phi"][0][:] - want))


def stokes_3d(staghorn, work):
    os.makedirs(os.path.join(work, "st"))
    x, y, z = np.linspace(0, 1, 5), np.linspace(0, 1, 4), np.linspace(1, 0, 3)  # z descends
    Z, Y, X = np.meshgrid(z, y, x, indexing="ij")
    xr.Dataset({"eta": (("z", "y", "x"), linear(X, Y, Z))},
               coords={"x": x, "y": y, "z": z}).to_netcdf(os.path.join(work, "st", "eta.nc"))
    ds = run(staghorn, work, "st", {
        "model": "stokes", "grid": {"n": [6, 5, 4]},
        "time": {"dt": 1.0, "steps": 1}, "output": {"initial": True},
        "solver": {"tol_mode": "absolute", "tol": 1e-3},
        "stokes": {"materials": {"file": "eta.nc", "variables": {"viscosity": "eta"}}}})
    Zc, Yc, Xc = np.meshgrid(centres(4, 1), centres(5, 1), centres(6, 1), indexing="ij")
    return np.max(np.abs(ds["mu"][0][:] - linear(Xc, Yc, Zc)))


def main():
    staghorn, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    errors = {"hydromech 2-D permeability": hydromech_2d(staghorn, work),
              "stokes 3-D viscosity": stokes_3d(staghorn, work)}
    for what, err in errors.items():
        print(f"{what}: largest difference {err:.3g}")
    return 0 if all(e < 1e-12 for e in errors.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
