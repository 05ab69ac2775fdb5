#!/usr/bin/python3
"""Projects weak and strong scaling to large GPU counts from measured 1-, 2- and 4-GPU runs.

  project_scaling.py CALIBRATION.json --output DIR [--tool PATH]

Runs the projection (build/bin/project_scaling, core/projection.hpp: each rank's block, boundary
shell and halo messages on the process grid the model finds fastest, costs calibrated on the
measured runs of CALIBRATION.json) and writes DIR/projection.md (the calibrated costs, the model
against every measured run, the projected tables), DIR/projection.json and one plot per case and
mode, DIR/<case>_<mode>.png: efficiency against GPUs per network class, the measured runs beside
it, and for weak scaling the published PT references. docs/campaigns.md, "Projection".
"""
import argparse
import json
import os
import re
import subprocess
import sys

# Published weak scaling of GPU pseudo-transient solvers, as (GPUs, efficiency, label).
WEAK_REFERENCES = [
    (2197, 0.975, "Räss et al. 2022: 97-98% on 2197 P100"),
    (5120, 0.98, "2019 talk: 2% drop on 5120 P100"),
]


def default_tool():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "..", "build", "bin", "project_scaling")


def slug(text):
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def plot(path, case, mode, rows, checks):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, net in enumerate(sorted({r["network"] for r in rows})):
        mine = sorted((r["ranks"], r["efficiency"]) for r in rows if r["network"] == net)
        ax.plot([n for n, _ in mine], [e for _, e in mine], "-o", ms=3, color=f"C{i}",
                label=f"projected, {net} between nodes")
    for j, c in enumerate(checks):
        n = c["dims"][0] * c["dims"][1] * c["dims"][2]
        ax.plot([n], [c["measured"]], "kx", ms=7, label="measured (H100, one node)" if j == 0 else None)
    if mode == "weak":
        for k, (n, e, label) in enumerate(WEAK_REFERENCES):
            ax.plot([n], [e], "^", color=f"C{3 + k}", label=label)
    ax.axhline(1.0, color="gray", lw=0.8, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("parallel efficiency")
    ax.set_title(f"{case}: {mode} scaling")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("calibration")
    p.add_argument("--output", required=True)
    p.add_argument("--tool", default=default_tool(), help="the project_scaling executable")
    args = p.parse_args(argv)
    os.makedirs(args.output, exist_ok=True)
    data = os.path.join(args.output, "projection.json")
    done = subprocess.run([args.tool, args.calibration, "--json", data], capture_output=True,
                          text=True)
    if done.returncode != 0:
        print(done.stderr, end="", file=sys.stderr)
        return done.returncode
    with open(os.path.join(args.output, "projection.md"), "w") as f:
        f.write(done.stdout)
    with open(data) as f:
        result = json.load(f)
    written = []
    for case in sorted({r["case"] for r in result["projection"]}):
        for mode in ("weak", "strong"):
            rows = [r for r in result["projection"] if r["case"] == case and r["mode"] == mode]
            checks = [c for c in result["checks"] if c["case"] == case and c["mode"] == mode]
            path = os.path.join(args.output, f"{slug(case)}_{mode}.png")
            plot(path, case, mode, rows, checks)
            written.append(path)
    print(done.stdout, end="")
    print("wrote " + ", ".join([data, os.path.join(args.output, "projection.md")] + written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
