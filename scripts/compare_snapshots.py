#!/usr/bin/python3
"""Compare the fields of two Staghorn snapshots.

Usage: scripts/compare_snapshots.py A.nc B.nc [--tolerance REL | --tolerance-of-max REL]
Prints the largest absolute and relative difference per field. Exit code 0 when every field is
identical to the bit (or within REL relative difference at every point, or within REL of the
field's largest magnitude, when given), 1 otherwise. The last suits results that agree to rounding
(GPU against CPU), where points near zero have large relative differences.
"""
import argparse
import sys

import numpy as np
import xarray as xr


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--tolerance", type=float, default=None)
    g.add_argument("--tolerance-of-max", type=float, default=None)
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
        of_max = diff.max() / max(np.abs(x).max(), np.finfo(float).tiny)
        if args.tolerance is not None:
            same = bool((rel <= args.tolerance).all())
        elif args.tolerance_of_max is not None:
            same = bool(of_max <= args.tolerance_of_max)
        else:
            same = np.array_equal(x, y)
        ok = ok and same
        print(f"{name}: max abs diff {diff.max():.3e} ({of_max:.1e} of max |A|), max rel diff {rel.max():.3e}, "
              f"{'identical' if np.array_equal(x, y) else ('within tolerance' if same else 'DIFFERENT')}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
