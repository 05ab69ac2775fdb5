#!/usr/bin/python3
"""Compare the fields of two Staghorn snapshots.

Usage: scripts/compare_snapshots.py A.nc B.nc [--tolerance REL]
Prints the largest absolute and relative difference per field. Exit code 0 when every field is
identical to the bit (or within REL relative difference when given), 1 otherwise.
"""
import argparse
import sys

import numpy as np
import xarray as xr


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--tolerance", type=float, default=None)
    args = p.parse_args()
    a, b = xr.open_dataset(args.a), xr.open_dataset(args.b)
    ok = set(a.data_vars) == set(b.data_vars)
    if not ok:
        print(f"fields differ: {sorted(a.data_vars)} vs {sorted(b.data_vars)}")
    for name in sorted(set(a.data_vars) & set(b.data_vars)):
        x, y = a[name].values, b[name].values
        if x.shape != y.shape:
            print(f"{name}: shapes differ {x.shape} vs {y.shape}")
            ok = False
            continue
        diff = np.abs(x - y)
        rel = diff / np.maximum(np.abs(x), np.finfo(float).tiny)
        same = np.array_equal(x, y) if args.tolerance is None else bool((rel <= args.tolerance).all())
        ok = ok and same
        print(f"{name}: max abs diff {diff.max():.3e}, max rel diff {rel.max():.3e}, "
              f"{'identical' if np.array_equal(x, y) else ('within tolerance' if same else 'DIFFERENT')}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
