#!/usr/bin/env python3
"""Checks one run's output directory as CF-1.8, xarray and XDMF readers need it.

CF-1.8 (what the CF checker tests on these files, asserted here since the checker is not
packaged): Conventions, units on every variable (UDUNITS syntax), coordinate variables monotonic,
`axis` on every spatial coordinate and `c_grid_axis_shift` on face coordinates (SGRID/xgcm), and a
time coordinate that is either a CF time axis (axis T with "UNIT since DATE" and a calendar) or
none at all. Units follow the model's unit system (global `staghorn_units`): SI lengths in m, scaled
ones "1" with the scaling in long_name.

xarray: `open_mfdataset` over the snapshot series gives the steps and times, the times exactly the
decimal t0 + step * dt rounded once.

diagnostics.csv: a start row (step and time of the first snapshot, no iterations), then numbers
written as the shortest decimal that reads back to the same double (as Python's repr).

XDMF: `PREFIX.xmf` lists every snapshot with its exact time, and every field as cell data of a
grid whose cells are centred on the field's points, read in place from the NetCDF-4 file.

Usage: check_outputs.py DIR [--prefix snapshot]
"""
import argparse
import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from decimal import Decimal

import netCDF4
import numpy as np

UNIT = re.compile(r"^(1|[A-Za-z]+(-?[0-9]+)?( [A-Za-z]+(-?[0-9]+)?)*)$")
failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)


def exact_time(dt, step):
    """t0 + step * dt in decimal (t0 = 0), rounded once: what the run must store."""
    return float(Decimal(repr(dt)) * step)


def check_variable(path, ds, name, var, units_system, series):
    where = f"{os.path.basename(path)}:{name}"
    units = getattr(var, "units", None)
    expect(isinstance(units, str) and UNIT.match(units), f"{where}: units {units!r} not UDUNITS")
    expect(getattr(var, "long_name", ""), f"{where}: no long_name")
    dimensional = units_system == "SI"
    # Snapshot quantities say their scaling; diagnostics.nc's columns (counts, norms) need not.
    if units == "1" and not dimensional and name != "step" and (not series or name == "time"):
        expect("dimensionless:" in var.long_name, f"{where}: scaled quantity without its scaling")
    for d in var.dimensions:
        expect(d in ds.variables, f"{where}: dimension {d} has no coordinate variable")


def check_coordinate(path, ds, name, var, units_system):
    where = f"{os.path.basename(path)}:{name}"
    values = var[:]
    if len(values) > 1:
        expect(np.all(np.diff(values) > 0), f"{where}: not strictly increasing")
    axis = getattr(var, "axis", None)
    if name == "time":
        if axis is not None:  # a CF time axis needs a reference date and a calendar
            expect(axis == "T" and " since " in var.units and hasattr(var, "calendar"),
                   f"{where}: axis {axis} with units {var.units!r} and no calendar")
        expect(var.units == ("s" if units_system == "SI" else "1"), f"{where}: units {var.units}")
        return
    base = name.split("_")[0]
    expect(axis == base.upper(), f"{where}: axis {axis!r}, want {base.upper()!r}")
    if name.endswith("_face"):
        expect(getattr(var, "c_grid_axis_shift", None) == -0.5, f"{where}: no c_grid_axis_shift")
        centres = ds.variables.get(base)
        if centres is not None:
            expect(centres.units == var.units, f"{where}: units differ from {base}")
    want = "m" if units_system == "SI" else None
    if want:
        expect(var.units == want, f"{where}: units {var.units}, the SI model's lengths are m")


def check_file(path):
    with netCDF4.Dataset(path) as ds:
        expect(ds.getncattr("Conventions") == "CF-1.8", f"{path}: Conventions")
        for att in ("title", "source"):
            expect(att in ds.ncattrs(), f"{path}: no global {att}")
        units_system = ds.getncattr("staghorn_units") if "staghorn_units" in ds.ncattrs() else ""
        expect(units_system, f"{path}: no global staghorn_units")
        for name, var in ds.variables.items():
            check_variable(path, ds, name, var, units_system, "staghorn_config" not in ds.ncattrs())
            if var.dimensions == (name,):
                check_coordinate(path, ds, name, var, units_system)
        expect("step" in ds.variables and ds["step"].dimensions == ("time",),
               f"{path}: no step(time)")
        return json.loads(ds.getncattr("staghorn_config")) if "staghorn_config" in ds.ncattrs() else None


def snapshot_series(directory, prefix):
    return sorted(glob.glob(os.path.join(directory, f"{prefix}_*.nc")))


def check_xarray(files, dt):
    import xarray as xr
    ds = xr.open_mfdataset(files, combine="by_coords")
    steps = [int(re.search(r"_(\d+)\.nc$", f).group(1)) for f in files]
    expect(list(ds["step"].values) == steps, f"xarray steps {list(ds['step'].values)} != {steps}")
    want = [exact_time(dt, s) for s in steps]
    got = [float(t) for t in ds["time"].values]
    expect(got == want, f"xarray times {got} != exact {want}")
    ds.close()


def significant_digits(text):
    mantissa = text.lower().split("e")[0].lstrip("-").replace(".", "")
    return len(mantissa.lstrip("0").rstrip("0")) or 1


def check_csv(directory, first_step, first_time):
    import csv
    with open(os.path.join(directory, "diagnostics.csv")) as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    start = dict(zip(header, body[0])) if body else {}
    expect(start and int(start["step"]) == first_step and float(start["time"]) == first_time
           and float(start["iterations"]) == 0, f"diagnostics.csv: no start row: {start}")
    for row in body:
        for text in row:
            shortest = repr(float(text))
            mantissa = text.lower().split("e")[0]
            expect(text in ("nan", "inf", "-inf") or
                   (significant_digits(text) == significant_digits(shortest) and
                    not ("." in mantissa and mantissa.endswith("0"))),
                   f"diagnostics.csv: {text} is not the shortest form ({shortest})")


def cell_grid(grid):
    """Cells, first node and spacing (x, y, z) of an XDMF CoRectMesh grid element."""
    dims = [int(v) for v in grid.find("Topology").get("Dimensions").split()][::-1]
    items = grid.find("Geometry").findall("DataItem")
    origin = [float(v) for v in items[0].text.split()][::-1]
    spacing = [float(v) for v in items[1].text.split()][::-1]
    return [d - 1 for d in dims], origin, spacing


def check_xdmf(directory, prefix, files, dt):
    path = os.path.join(directory, prefix + ".xmf")
    expect(os.path.exists(path), f"{path} missing")
    if not os.path.exists(path):
        return
    steps = ET.parse(path).getroot().find("Domain/Grid")
    expect(steps.get("CollectionType") == "Temporal", "xmf: not a temporal collection")
    listed = steps.findall("Grid")
    expect(len(listed) == len(files), f"xmf lists {len(listed)} snapshots, {len(files)} on disk")
    for snap, path_nc in zip(listed, files):
        with netCDF4.Dataset(path_nc) as ds:
            step = int(ds["step"][0])
            expect(float(snap.find("Time").get("Value")) == exact_time(dt, step),
                   f"xmf time of step {step}")
            for grid in snap.findall("Grid"):
                cells, origin, spacing = cell_grid(grid)
                for att in grid.findall("Attribute"):
                    name = att.get("Name")
                    expect(att.get("Center") == "Cell", f"xmf {name}: not cell data")
                    item = att.find("DataItem")
                    file, _, var = item.text.strip().partition(":/")
                    expect(file == os.path.basename(path_nc), f"xmf {name}: points to {file}")
                    expect(var in ds.variables, f"xmf {name}: no variable {var}")
                    v = ds[var]
                    shape = [int(n) for n in item.get("Dimensions").split()]
                    expect(list(v.shape) == shape, f"xmf {name}: dims {shape} != {v.shape}")
                    # Cell centres of the grid are the field's coordinates, axis by axis.
                    for a, dim in enumerate(reversed(v.dimensions[1:])):
                        coord = ds[dim][:]
                        centres = origin[a] + (np.arange(cells[a]) + 0.5) * spacing[a]
                        expect(len(coord) == cells[a] and np.allclose(coord, centres, rtol=0,
                                                                     atol=1e-12 * spacing[a]),
                               f"xmf {name}: cells along {dim} are not centred on its points")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("directory")
    p.add_argument("--prefix", default="snapshot")
    p.add_argument("--no-xarray", action="store_true", help="skip open_mfdataset (no dask)")
    args = p.parse_args()
    files = snapshot_series(args.directory, args.prefix)
    expect(files, f"no snapshots in {args.directory}")
    config = None
    for f in files + [os.path.join(args.directory, "diagnostics.nc")]:
        config = check_file(f) or config
    dt = config["time"]["dt"]
    if not args.no_xarray:
        check_xarray(files, dt)
    check_xdmf(args.directory, args.prefix, files, dt)
    with netCDF4.Dataset(files[0]) as first:
        # The start row is the run's first state, which the first snapshot holds when the run
        # wrote its initial state (output.initial).
        if config["output"]["initial"]:
            check_csv(args.directory, int(first["step"][0]), float(first["time"][0]))
    for f in failures:
        print("FAIL:", f)
    print(f"{args.directory}: {len(files)} snapshots, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
