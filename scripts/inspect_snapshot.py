#!/usr/bin/python3
"""Summarise Staghorn snapshots and check that every field is finite.

Usage: scripts/inspect_snapshot.py FILE.nc [FILE.nc ...]
Exit code 1 if a file cannot be read or a field holds NaN or Inf.
"""
import json
import sys

import numpy as np
import xarray as xr


def inspect(path):
    ds = xr.open_dataset(path)
    config = json.loads(ds.attrs.get("staghorn_config", "{}"))
    print(f"{path}: model {ds.attrs.get('model')}, step {ds.attrs.get('staghorn_step')}, "
          f"time {ds.attrs.get('staghorn_time')}, grid {config.get('grid', {}).get('n')}")
    ok = True
    for name, var in ds.data_vars.items():
        values = var.values
        finite = bool(np.isfinite(values).all())
        ok = ok and finite
        print(f"  {name} {var.dims} [{var.attrs.get('staghorn_location')}]: "
              f"min {np.nanmin(values):.6g}, max {np.nanmax(values):.6g}, "
              f"{'finite' if finite else 'NOT FINITE'}")
    return ok


def main(paths):
    if not paths:
        print(__doc__)
        return 2
    ok = True
    for p in paths:
        try:
            ok = inspect(p) and ok
        except (OSError, ValueError) as e:
            print(f"{p}: cannot read: {e}", file=sys.stderr)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
