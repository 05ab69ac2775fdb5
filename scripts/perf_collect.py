#!/usr/bin/env python3
"""Turns the output of one benchmark program or one `staghorn run` into ledger lines.

Usage: perf_collect.py KIND LABEL FILE [--commit C] [--device D]
  KIND  table   a benchmark's table (bench_diffusion_kernels, bench_stokes_kernels,
                bench_hydromech_kernels): one figure per row, T_eff as a percentage of the copy
                bandwidth the program measured in the same run
        mhd     bench_mhd: ns per cell per RK3 step
        stage   bench_mhd_stage: ns per cell per step of each stage kernel
        metrics a run's metrics.jsonl (its last line): T_eff as a percentage of copy
  LABEL the prefix of every figure's name (e.g. stokes.256.3d)
Prints one JSON object per figure on standard output:
  {"name", "value", "unit", "better" ("higher" or "lower"), "copy_gbs", "commit", "device", ...}
A file that yields no figure is an error (exit 1): a benchmark that crashed must not pass as
"nothing to compare".
"""
import argparse
import json
import re
import sys

NUMBER = re.compile(r"^-?\d+(\.\d+)?(e[-+]?\d+)?$")


def slug(text):
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def copy_bandwidth(text):
    m = re.search(r"copy bandwidth ([\d.]+) GB/s", text)
    return float(m.group(1)) if m else None


def device_of(text):
    m = re.search(r"^device: (.*)$", text, re.M) or re.search(r"^(.*?), grid \d+\^3", text, re.M)
    return m.group(1).strip() if m else None


def table_rows(text):
    """Rows 'NAME  ms [A_eff]  T_eff  pct%' under a header that says whether A_eff is there; the
    name is what precedes those numbers (it may hold numbers of its own: 'chunk 16')."""
    count = 3 if re.search(r"^variant .*A_eff", text, re.M) else 2
    for line in text.splitlines():
        tokens = line.split()
        if len(tokens) < count + 2 or not tokens[-1].endswith("%"):
            continue
        numbers = tokens[-1 - count:-1]
        if not all(NUMBER.match(t) for t in numbers):
            continue
        name = " ".join(tokens[:-1 - count])
        yield name, float(numbers[0]), float(numbers[-1]), float(tokens[-1].rstrip("%"))


def collect_table(label, text):
    for name, ms, teff, pct in table_rows(text):
        yield {"name": f"{label}.{slug(name)}", "value": pct, "unit": "% of copy",
               "better": "higher", "ms": ms, "teff_gbs": teff}


def collect_mhd(label, text):
    m = re.search(r"time per cell per RK3 step: ([\d.]+) ns \(([\d.]+) ms per step\)", text)
    pct = re.search(r"achieved [\d.]+ GB/s \(([\d.]+)% of copy\)", text)
    if m:
        yield {"name": f"{label}.ns_per_cell_step", "value": float(m.group(1)),
               "unit": "ns/cell/RK3 step", "better": "lower", "ms_per_step": float(m.group(2)),
               "pct_of_copy": float(pct.group(1)) if pct else None}


def collect_stage(label, text):
    for m in re.finditer(r"^\s+(\w+)\s+([\d.]+) ms/stage\s+([\d.]+) ns/cell/step\s+\(([\d.]+)% of copy\)",
                         text, re.M):
        yield {"name": f"{label}.{m.group(1)}", "value": float(m.group(3)),
               "unit": "ns/cell/RK3 step", "better": "lower", "ms_per_stage": float(m.group(2)),
               "pct_of_copy": float(m.group(4))}


def collect_metrics(label, text):
    lines = [l for l in text.splitlines() if l.strip().startswith("{")]
    if not lines:
        return
    m = json.loads(lines[-1])
    frac = m.get("T_eff_fraction")
    per_it = m.get("time_per_iteration_s")
    yield {"name": f"{label}.teff", "value": 100.0 * frac if frac is not None else None,
           "unit": "% of copy", "better": "higher",
           "ms_per_iteration": per_it * 1e3 if isinstance(per_it, (int, float)) else None,
           "iterations": m.get("iterations"), "copy_gbs_metrics": m.get("copy_bandwidth_GBs")}


COLLECTORS = {"table": collect_table, "mhd": collect_mhd, "stage": collect_stage,
              "metrics": collect_metrics}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("kind", choices=sorted(COLLECTORS))
    p.add_argument("label")
    p.add_argument("file")
    p.add_argument("--commit", default=None)
    p.add_argument("--device", default=None)
    a = p.parse_args()
    with open(a.file, encoding="utf-8", errors="replace") as f:
        text = f.read()
    bw = copy_bandwidth(text)
    count = 0
    for fig in COLLECTORS[a.kind](a.label, text):
        if fig.get("value") is None:
            continue
        if fig.get("copy_gbs_metrics") is not None:
            bw = fig.pop("copy_gbs_metrics")
        fig.pop("copy_gbs_metrics", None)
        fig.update({"copy_gbs": bw, "commit": a.commit, "device": a.device or device_of(text)})
        print(json.dumps(fig))
        count += 1
    if count == 0:
        sys.exit(f"perf_collect: no figure found in {a.file} ({a.kind})")


if __name__ == "__main__":
    main()
