#!/usr/bin/python3
"""Asserts that a run's metrics line (the last of OUT/metrics.jsonl) is consistent with itself
and with the run's own measurements, so that a wall time read before the device finished its work
cannot pass:

- wall_time_s is no less than the time its own phases took (phases_ms_per_iteration x iterations:
  run it with exchange.hide_communication=false, where the phases follow one another);
- time_per_iteration_s, cell_updates_per_s and T_eff_GBs follow from wall_time_s;
- the steps' times in diagnostics.csv add up to no more than wall_time_s (to it on one rank);
- T_eff_fraction (T_eff per rank over the copy bandwidth) is at most 1.05: a kernel cannot move
  its arrays faster than a copy does. On the CPU only where an iteration's bytes exceed four times
  the last-level cache: arrays the cache holds are read faster than the copy's, from memory.

usage: check_metrics.py OUT
"""
import csv
import json
import math
import os
import sys

MAX_FRACTION = 1.05
ROUNDING = 1e-9  # relative: figures that must agree, up to the rounding of their arithmetic


def last_metrics(out):
    with open(os.path.join(out, "metrics.jsonl")) as f:
        return json.loads(f.read().strip().splitlines()[-1])


def step_seconds(out):
    """Seconds of each step in diagnostics.csv (the start row took no step)."""
    with open(os.path.join(out, "diagnostics.csv"), newline="") as f:
        return [float(r["seconds"]) for r in csv.DictReader(f) if float(r["iterations"]) > 0]


def problems(m, steps):
    found = []
    wall, its = m["wall_time_s"], m["iterations"]
    cells = math.prod(m["grid"])
    if not (wall > 0 and its > 0):
        return [f"no time measured: wall_time_s {wall}, iterations {its}"]
    phases_s = sum(m["phases_ms_per_iteration"].values()) * its / 1e3
    if phases_s > wall * (1 + ROUNDING):
        found.append(f"wall_time_s {wall:.6g} s is below its phases' sum {phases_s:.6g} s "
                     f"({m['phases_ms_per_iteration']} ms per iteration x {its})")
    t_it = m["time_per_iteration_s"]
    derived = {"time_per_iteration_s": (t_it, wall / its),
               "cell_updates_per_s": (m["cell_updates_per_s"], cells / t_it),
               "T_eff_GBs": (m["T_eff_GBs"], m["bytes_per_cell_iteration"] * cells / t_it / 1e9)}
    for key, (got, want) in derived.items():
        if not math.isclose(got, want, rel_tol=ROUNDING):
            found.append(f"{key} {got:.9g} does not follow from wall_time_s ({want:.9g})")
    total = sum(steps)
    if total > wall * (1 + ROUNDING) or (m["ranks"] == 1 and
                                         not math.isclose(total, wall, rel_tol=1e-6)):
        found.append(f"the steps in diagnostics.csv took {total:.6g} s, wall_time_s {wall:.6g} s")
    fraction = m.get("T_eff_fraction")
    cache_mib = m.get("last_level_cache_MiB")  # CPU runs only
    if fraction is None:
        found.append("no T_eff_fraction (run with metrics.copy_bandwidth=true)")
    elif cache_mib and m["bytes_per_cell_iteration"] * cells < 4 * cache_mib * 2**20:
        print(f"T_eff_fraction {fraction:.3f} not checked: an iteration's "
              f"{m['bytes_per_cell_iteration'] * cells / 2**20:.3g} MiB fit in 4 x the "
              f"{cache_mib} MiB cache")
    elif fraction > MAX_FRACTION:
        found.append(f"T_eff_fraction {fraction:.3f} exceeds {MAX_FRACTION}: T_eff "
                     f"{m['T_eff_per_rank_GBs']:.4g} GB/s per rank against a copy of "
                     f"{m['copy_bandwidth_GBs']:.4g} GB/s")
    return found


def main():
    out = sys.argv[1]
    m = last_metrics(out)
    found = problems(m, step_seconds(out))
    print("\n".join(found) if found else
          f"{m['model']}: wall {m['wall_time_s']:.4g} s over {m['iterations']} iterations, "
          f"phases {m['phases_ms_per_iteration']} ms/iteration, "
          f"T_eff {m.get('T_eff_fraction', 0):.3f} of copy: consistent")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
