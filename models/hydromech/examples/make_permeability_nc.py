#!/usr/bin/env python3
"""Writes hydromech2d_permeability.nc, the permeability field that
hydromech2d_permeability_file.json reads (hydromech.materials.file), as an xarray user would:
a field indexed [y, x] on 1-D coordinates, written by to_netcdf.

The field (k / k0, lengths in compaction lengths on the example's 20 x 40 domain): a matrix of 1,
a tilted permeable band (10) above the porosity blob, and a tight cap (0.05) higher up with a
gap off-centre, smoothed over about one compaction length. The grid (41 x 81 points) is coarser
than the model's and the model interpolates it linearly.

Usage: make_permeability_nc.py [OUT]   (default: beside this script)
"""
import os
import sys

import numpy as np
import xarray as xr


def permeability(x, y):
    X, Y = np.meshgrid(x, y)  # indexed [y, x]
    logk = np.zeros_like(X)
    band = 14.0 + 0.2 * (X - 10.0)  # the band's centre line, rising to the right
    logk += 1.0 * np.exp(-(((Y - band) / 1.5) ** 2))
    cap = np.exp(-(((Y - 27.0) / 1.2) ** 2)) * (1 - np.exp(-(((X - 13.0) / 2.0) ** 2)))
    logk -= 1.3 * cap
    return 10.0 ** logk


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "hydromech2d_permeability.nc")
    x = np.linspace(0.0, 20.0, 41)
    y = np.linspace(0.0, 40.0, 81)
    ds = xr.Dataset({"k": (("y", "x"), permeability(x, y))}, coords={"x": x, "y": y})
    ds["k"].attrs = {"long_name": "permeability over fluid viscosity, in k0", "units": "1"}
    ds.to_netcdf(out)
    print(out)


if __name__ == "__main__":
    main()
