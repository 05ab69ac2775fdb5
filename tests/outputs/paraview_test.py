"""Opens 2-D and 3-D snapshot series of diffusion, Stokes and MHD in ParaView through the run's
XDMF index, as a user would (OpenDataFile on PREFIX.xmf, no setting changed), and asserts what
ParaView shows: the array names on each staggered grid, cell counts, bounds in physical
coordinates and the time values. Renders one PNG per model (the 2-D run at its last step).

Run with ParaView's Python (pvpython or pvbatch) under an X display (tests/outputs/with_xvfb.sh).
Usage: paraview_test.py --staghorn BIN --source REPO --work DIR [--png-dir DIR]
"""
import argparse
import os
import subprocess
import sys
from decimal import Decimal

from paraview import servermanager as sm
from paraview.simple import (ColorBy, CreateView, Delete, OpenDataFile, Render, ResetSession,
                             SaveScreenshot, Show, Threshold, UpdatePipeline, Xdmf3ReaderT)

# name, config, overrides, the field each grid must hold (by XDMF grid name), field to render
CASES = [
    ("diffusion2d", "models/diffusion/examples/diffusion2d_small.json",
     ["grid.n=[48,32,1]", "grid.length=[1.5,1.0,1.0]", "grid.origin=[-0.75,-0.5,0]"],
     {"cell": ["H"]}, ("cell", "H")),
    ("diffusion3d", "models/diffusion/examples/diffusion3d_gpu_512.json", ["grid.n=[16,12,8]"],
     {"cell": ["H"]}, None),
    ("stokes2d", "models/stokes/examples/stokes2d_sinking_small.json",
     ["grid.n=[32,32,1]", "solver.tol=1e-4"],
     {"cell": ["P", "tau_xx", "tau_yy", "mu", "rho"], "face_x": ["Vx"], "face_y": ["Vy"],
      "edge_xy": ["tau_xy"]}, ("face_y", "Vy")),
    ("stokes3d", "models/stokes/examples/stokes3d_sinking_gpu.json",
     ["grid.n=[12,12,12]", "solver.tol=1e-3"],
     {"cell": ["P", "tau_xx", "tau_yy", "tau_zz", "mu", "rho"], "face_x": ["Vx"], "face_y": ["Vy"],
      "face_z": ["Vz"],
      "edge_xy": ["tau_xy"], "edge_xz": ["tau_xz"], "edge_yz": ["tau_yz"]}, None),
    ("mhd2d", "models/mhd/examples/decay_small.json", ["grid.n=[32,32,1]"],
     {"cell": ["lnrho", "ux", "uy", "uz", "ax", "ay", "az", "ss"]}, ("cell", "ux")),
    ("mhd3d", "models/mhd/examples/decay_small.json", ["grid.n=[16,16,16]"],
     {"cell": ["lnrho", "ux", "uy", "uz", "ax", "ay", "az", "ss"]}, None),
]
STEPS = 2
failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(args, name, config, sets):
    out = os.path.join(args.work, name)
    cmd = [args.staghorn, "run", os.path.join(args.source, config), "--output", out,
           "--set", "backend=cpu", "--set", f"time.steps={STEPS}", "--set", "output.every=1",
           "--set", "output.initial=true", "--set", "metrics.copy_bandwidth=false"]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(["rm", "-rf", out], check=True)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return out


def resolved(out):
    """The run's grid and dt, from the stored config of its first snapshot."""
    import json
    import netCDF4
    with netCDF4.Dataset(os.path.join(out, "snapshot_000000.nc")) as ds:
        return json.loads(ds.getncattr("staghorn_config"))


def expected_grid(cfg, location):
    """Cells and bounds (xmin, xmax, ...) of the grid centred on a location's points."""
    g = cfg["grid"]
    cells, bounds = 1, []
    for a, axis in enumerate("xyz"):
        n, length, origin = g["n"][a], g["length"][a], g["origin"][a]
        if n == 1:
            bounds += [origin, origin]
            continue
        h = length / n
        face = axis in location.split("_")[-1] and location != "cell"
        points = n + (1 if face and not g["periodic"][a] else 0)
        low = origin + (-0.5 * h if face else 0.0)
        cells *= points
        bounds += [low, low + points * h]
    return cells, bounds


def leaves(dataset):
    """The datasets of a composite dataset, depth first, with their names (None: unnamed)."""
    out = []
    it = dataset.NewIterator()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        meta = it.GetCurrentMetaData() if it.HasCurrentMetaData() else None
        name = meta.Get(dataset.NAME()) if meta is not None and meta.Has(dataset.NAME()) else None
        out.append((name, it.GetCurrentDataObject()))
        it.GoToNextItem()
    return out


def cell_arrays(block):
    data = block.GetCellData()
    return sorted(data.GetArrayName(i) for i in range(data.GetNumberOfArrays()))


def blocks_of(dataset, grids):
    """The grids by location. Xdmf3ReaderS (what OpenDataFile picks) makes the grids of a step
    unnamed pieces, so each is known by its arrays; Xdmf3ReaderT names them ("face_x[1]")."""
    out = {}
    for name, block in leaves(dataset):
        arrays = cell_arrays(block)
        found = [g for g, want in grids.items() if sorted(want) == arrays]
        key = found[0] if found else f"unexpected grid {name} with {arrays}"
        if name is not None:
            expect(name.split("[")[0] == key, f"grid named {name} holds {arrays}")
        out[key] = block
    return out


def check_case(args, name, config, sets, grids, render):
    out = run(args, name, config, sets)
    cfg = resolved(out)
    path = os.path.join(out, "snapshot.xmf")
    dt = cfg["time"]["dt"]
    want_times = [float(Decimal(repr(dt)) * s) for s in range(STEPS + 1)]
    # What the user gets (OpenDataFile: Xdmf3ReaderS), and the reader that names the grids.
    for reader in (OpenDataFile(path), Xdmf3ReaderT(FileName=[path])):
        expect(reader is not None, f"{name}: ParaView has no reader for the .xmf")
        print(f"{name}: reader {reader.GetXMLName()}")
        check_reader(name, cfg, reader, grids, want_times)
    if render and args.png_dir:
        save_png(args, name, OpenDataFile(path), render, want_times[-1])
    ResetSession()


def check_reader(name, cfg, reader, grids, want_times):
    times = list(reader.TimestepValues)
    expect(times == want_times, f"{name}: times {times} != {want_times}")
    for t in want_times:
        UpdatePipeline(time=t, proxy=reader)
        data = sm.Fetch(reader)
        blocks = blocks_of(data, grids)
        expect(sorted(blocks) == sorted(grids), f"{name}: grids {sorted(blocks)} != {sorted(grids)}")
        for grid, arrays in grids.items():
            block = blocks.get(grid)
            if block is None:
                continue
            cells, bounds = expected_grid(cfg, grid)
            expect(block.GetNumberOfCells() == cells,
                   f"{name} {grid}: {block.GetNumberOfCells()} cells, want {cells}")
            got = list(block.GetBounds())
            expect(all(abs(a - b) <= 1e-9 * max(1.0, abs(b)) for a, b in zip(got, bounds)),
                   f"{name} {grid}: bounds {got} != {bounds}")
            for arr in arrays:
                values = block.GetCellData().GetArray(arr)
                expect(values is not None and values.GetNumberOfTuples() == cells,
                       f"{name} {grid}.{arr}: not {cells} values")


def save_png(args, name, reader, render, t):
    _, field = render
    view = CreateView("RenderView")
    view.ViewSize = [640, 480]
    view.ViewTime = t
    view.OrientationAxesVisibility = 0
    # Only the grid that holds the field: the others overlap it in 2-D, drawn in a solid colour.
    only = Threshold(Input=reader, Scalars=["CELLS", field], LowerThreshold=-1e300,
                     UpperThreshold=1e300)
    display = Show(only, view)
    display.SetRepresentationType("Surface")
    ColorBy(display, ("CELLS", field))
    display.RescaleTransferFunctionToDataRange(True, False)
    display.SetScalarBarVisibility(view, True)
    view.InteractionMode = "2D"
    view.ResetCamera()
    Render(view)
    os.makedirs(args.png_dir, exist_ok=True)
    path = os.path.join(args.png_dir, f"paraview_{name[:-2]}.png")
    SaveScreenshot(path, view, ImageResolution=[640, 480])
    Delete(view)
    expect(os.path.getsize(path) > 5000, f"{name}: {path} looks empty")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--staghorn", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--png-dir")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    for case in CASES:
        check_case(args, *case)
    print(f"{len(CASES)} series, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    # ParaView's teardown of the offscreen GL context can abort under Xvfb after all is done.
    os._exit(code)
