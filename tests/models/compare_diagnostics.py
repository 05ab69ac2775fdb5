#!/usr/bin/python3
"""Asserts that two diagnostics.csv files hold the same values to the bit, column by column,
except the wall time of each step ("seconds"): diagnostics must not depend on the rank count.

usage: compare_diagnostics.py A.csv B.csv
"""
import csv
import sys


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    a, b = rows(sys.argv[1]), rows(sys.argv[2])
    if len(a) != len(b) or not a:
        print(f"row counts differ or are zero: {len(a)} vs {len(b)}")
        return 1
    differ = []
    for n, (x, y) in enumerate(zip(a, b)):
        for col in x:
            if col != "seconds" and x[col] != y.get(col):
                differ.append(f"row {n} {col}: {x[col]} vs {y.get(col)}")
    print("\n".join(differ[:20]) if differ else f"{len(a)} rows identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
