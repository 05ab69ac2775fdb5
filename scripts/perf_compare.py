#!/usr/bin/env python3
"""Compares a ledger run (scripts/gpu-bench.sh's ledger.jsonl) with the accepted figures.

Usage:
  perf_compare.py LEDGER [--baseline docs/performance-baseline.json] [--tolerance 0.05]
      Fails (exit 1) listing every figure more than TOLERANCE worse than its baseline on the
      same GPU kind, and every baseline figure the run did not produce. Figures the baseline
      does not hold yet are listed as new (not a failure). With --only PREFIX ..., just the
      figures whose names start with a PREFIX (a partial run: gpu-bench.sh's GPU_BENCH_ONLY).
  perf_compare.py LEDGER --accept [--only PREFIX ...] [--baseline ...]
      Writes the run's figures into the baseline under its GPU kind (only with a measured run:
      the baseline is never edited by hand). With --only, just the figures whose names start
      with a PREFIX replace theirs; every other figure of the kind keeps its accepted value (a
      model that got faster gets a baseline that guards it, without accepting another model's
      regression measured in the same run), and an accepted figure under a PREFIX that the run
      no longer gives (a renamed row) is dropped. With --keep PREFIX ..., the figures whose names
      start with a PREFIX keep their accepted values (a regression left on record, not accepted).

"Worse" follows each figure's direction: a T_eff fraction of copy that is lower, a time per
cell that is higher. Fractions of copy compare across machines of one kind because each is
divided by the copy bandwidth measured in the same run.
"""
import argparse
import json
import os
import re
import sys


def kind_of(device):
    """The GPU kind a device string belongs to (H100, H200, ...), or the string itself."""
    m = re.search(r"\b([A-Z]\d{2,4}[A-Z]?)\b", device or "")
    return m.group(1) if m else (device or "unknown")


def read_ledger(path):
    figures = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                fig = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"perf_compare: {path}:{n}: not JSON ({e})")
            figures[fig["name"]] = fig
    if not figures:
        sys.exit(f"perf_compare: {path} holds no figure")
    return figures


def run_kind(figures):
    kinds = {kind_of(f.get("device")) for f in figures.values() if f.get("device")}
    if len(kinds) != 1:
        sys.exit(f"perf_compare: the ledger mixes or lacks GPU kinds: {sorted(kinds)}")
    return kinds.pop()


def worse_by(fig, base):
    """How much worse fig is than base, as a fraction (negative: better)."""
    v, b = fig["value"], base["value"]
    if fig.get("better", base.get("better")) == "lower":
        return (v - b) / b
    return (b - v) / b


def compare(figures, baseline, tolerance):
    failures, lines = [], []
    for name in sorted(set(baseline) | set(figures)):
        base, fig = baseline.get(name), figures.get(name)
        if base is None:
            lines.append(f"  new       {name}: {fig['value']:.4g} {fig['unit']}")
            continue
        if fig is None:
            failures.append(f"  missing   {name} (baseline {base['value']:.4g} {base['unit']})")
            continue
        w = worse_by(fig, base)
        text = (f"{name}: {fig['value']:.4g} against {base['value']:.4g} {fig['unit']} "
                f"({-100 * w:+.1f}%)")
        if w > tolerance:
            failures.append(f"  WORSE     {text}")
        else:
            lines.append(f"  ok        {text}")
    return failures, lines


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("ledger")
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--baseline", default=os.path.join(here, "..", "docs",
                                                      "performance-baseline.json"))
    p.add_argument("--tolerance", type=float, default=0.05)
    p.add_argument("--accept", action="store_true")
    p.add_argument("--only", nargs="+", metavar="PREFIX",
                   help="the figures whose names start with a PREFIX only")
    p.add_argument("--keep", nargs="+", metavar="PREFIX", default=[],
                   help="with --accept: figures whose names start with a PREFIX keep their values")
    a = p.parse_args()

    figures = read_ledger(a.ledger)
    kind = run_kind(figures)
    try:
        with open(a.baseline, encoding="utf-8") as f:
            book = json.load(f)
    except FileNotFoundError:
        book = {}

    def selected(table):
        return {n: f for n, f in table.items() if not a.only or n.startswith(tuple(a.only))}

    if a.keep and not a.accept:
        sys.exit("perf_compare: --keep goes with --accept")
    if a.accept:
        keep = ("value", "unit", "better", "copy_gbs", "commit", "device")
        if a.only:
            figures = selected(figures)
            if not figures:
                sys.exit(f"perf_compare: no figure of the run starts with {' or '.join(a.only)}")
        before = book.get(kind, {})
        accepted = dict(before) if a.only else {}
        if a.only:  # the run covers its prefixes: a figure it no longer gives is gone
            for n in [n for n in accepted if n.startswith(tuple(a.only)) and n not in figures]:
                print(f"perf_compare: {n} dropped (not in the run)")
                del accepted[n]
        accepted.update({n: {k: f.get(k) for k in keep} for n, f in figures.items()})
        for n in list(accepted):
            if n.startswith(tuple(a.keep)):
                if n in before:
                    accepted[n] = before[n]
                else:
                    del accepted[n]
        figures = {n: f for n, f in figures.items() if not n.startswith(tuple(a.keep))}
        book[kind] = dict(sorted(accepted.items()))
        with open(a.baseline, "w", encoding="utf-8") as f:
            json.dump(book, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"perf_compare: {len(figures)} figures accepted as the {kind} baseline")
        return

    if kind not in book:
        sys.exit(f"perf_compare: the baseline holds no figures for {kind} (run with --accept "
                 f"once, from a measured run)")
    base = selected(book[kind])
    failures, lines = compare(selected(figures), base, a.tolerance)
    print(f"{kind}: {len(selected(figures))} figures against {len(base)} in the baseline"
          f"{' (' + ' '.join(a.only) + ')' if a.only else ''}, tolerance {100 * a.tolerance:.0f}%")
    print("\n".join(lines))
    if failures:
        print(f"{len(failures)} figure(s) more than {100 * a.tolerance:.0f}% worse or missing:")
        print("\n".join(failures))
        sys.exit(1)
    print("no figure more than the tolerance below its baseline")


if __name__ == "__main__":
    main()
