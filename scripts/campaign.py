#!/usr/bin/python3
"""Weak- and strong-scaling campaigns of staghorn: run them, then report them.

  campaign.py run CAMPAIGN.json --output DIR [--launcher "mpirun -np {n}"] [--staghorn PATH]
                [--allow-oversubscribe]
  campaign.py report DIR

`run` runs the model of CAMPAIGN.json on each rank count (smallest first), each `repetitions`
times, and writes DIR/results.csv and DIR/results.json, one row per run, failed runs included.
`run` refuses rank counts whose ranks x threads exceed this machine's cores (CPU backend) or GPUs
(GPU backend): oversubscribed runs measure waiting, not the code. --allow-oversubscribe runs them
anyway with a warning (tests on small machines, or a launcher that spreads ranks over nodes).
`report` draws DIR/efficiency.png and DIR/time_per_cell.png (measurements beside the performance
model's curve; a log axis where values span a decade or more) and writes DIR/report.md (the
table). docs/campaigns.md describes the campaign file.
"""
import argparse
import csv
import json
import math
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time

AXES = {"x": 0, "y": 1, "z": 2}
COLUMNS = [
    "name", "mode", "ranks", "repetition", "status", "exit_code", "grid", "cells_per_rank",
    "process_grid", "transport", "backend", "device", "steps", "iterations",
    "time_per_iteration_s", "time_per_step_s", "cell_updates_per_s", "cell_updates_per_s_per_rank",
    "T_eff_GBs", "efficiency", "predicted_time_per_iteration_s", "measured_over_predicted",
    "wall_s", "run_dir", "error",
]
# Keys of a campaign file and their defaults (None: required for the mode that uses it).
DEFAULTS = {
    "name": "campaign", "config": None, "set": {}, "mode": None, "ranks": None,
    "cells_per_rank": None, "weak_axes": ["z", "y", "x"], "grid": None, "repetitions": 1,
    "warmup_steps": 1, "steps": 3, "keep": [], "timeout_s": 0, "keep_snapshots": False,
    "dims": {},
}


class CampaignError(Exception):
    """Bad campaign file: the message names the key."""


# ---------------------------------------------------------------- campaign file


def load_campaign(path):
    with open(path) as f:
        try:
            c = json.load(f)
        except json.JSONDecodeError as e:
            raise CampaignError(f"{path}: not JSON: {e}")
    unknown = sorted(set(c) - set(DEFAULTS))
    if unknown:
        raise CampaignError(f"{unknown[0]}: unknown key (known: {', '.join(sorted(DEFAULTS))})")
    c = {**DEFAULTS, **c}
    if c["mode"] not in ("weak", "strong"):
        raise CampaignError(f"mode: expected \"weak\" or \"strong\", got {c['mode']!r}")
    ranks = c["ranks"]
    if not isinstance(ranks, list) or not ranks or not all(isinstance(n, int) and n > 0
                                                          for n in ranks):
        raise CampaignError(f"ranks: expected a list of positive integers, got {ranks!r}")
    c["ranks"] = sorted(set(ranks))
    grid_key = "cells_per_rank" if c["mode"] == "weak" else "grid"
    g = c[grid_key]
    if not (isinstance(g, list) and len(g) == 3 and all(isinstance(v, int) and v > 0 for v in g)):
        raise CampaignError(f"{grid_key}: expected three positive integers for a {c['mode']} "
                            f"campaign, got {g!r}")
    for key in ("repetitions", "steps"):
        if not isinstance(c[key], int) or c[key] < 1:
            raise CampaignError(f"{key}: expected a positive integer, got {c[key]!r}")
    if not isinstance(c["warmup_steps"], int) or c["warmup_steps"] < 0:
        raise CampaignError(f"warmup_steps: expected an integer >= 0, got {c['warmup_steps']!r}")
    if c["mode"] == "weak":
        axes = c["weak_axes"]
        if not axes or any(a not in AXES for a in axes):
            raise CampaignError(f"weak_axes: expected axes among x, y, z, got {axes!r}")
        if any(g[AXES[a]] == 1 for a in axes):
            raise CampaignError("weak_axes: an axis with one cell per rank (inactive) cannot grow")
    dims = c["dims"]
    if not isinstance(dims, dict) or not all(
            k.isdigit() and isinstance(v, list) and len(v) == 3 for k, v in dims.items()):
        raise CampaignError("dims: expected an object of rank counts and process grids, "
                            "e.g. {\"4\": [1, 2, 2]}")
    if not isinstance(c["set"], dict):
        raise CampaignError("set: expected an object of config paths and values")
    c["config"] = load_config(c["config"], os.path.dirname(os.path.abspath(path)))
    return c


def load_config(config, base):
    """The model config: inline, or a file relative to the campaign file (or the working dir)."""
    if isinstance(config, dict):
        return config
    if not isinstance(config, str):
        raise CampaignError("config: expected a model config object or the path of one")
    for candidate in (os.path.join(base, config), config):
        if os.path.isfile(candidate):
            with open(candidate) as f:
                return json.load(f)
    raise CampaignError(f"config: file '{config}' not found (relative to the campaign file)")


def get_path(config, path, default):
    node = config
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return default
        node = node[key]
    return node


def set_path(config, path, value):
    node = config
    keys = path.split(".")
    for k in keys[:-1]:
        node = node.setdefault(k, {})
    node[keys[-1]] = value


def has_path(config, path):
    node = config
    for k in path.split("."):
        if not isinstance(node, dict) or k not in node:
            return False
        node = node[k]
    return True


def prime_factors(n):
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return sorted(out, reverse=True)


def global_grid(c, ranks):
    """Weak: cells per rank times the rank count's prime factors, dealt to weak_axes in turn
    (largest factor first); strong: the fixed grid."""
    if c["mode"] == "strong":
        return list(c["grid"])
    g = list(c["cells_per_rank"])
    for i, f in enumerate(prime_factors(ranks)):
        g[AXES[c["weak_axes"][i % len(c["weak_axes"])]]] *= f
    return g


# ---------------------------------------------------------------- one run


def tail(path, lines=8):
    """The last lines of a run's stderr, staghorn's own messages first (a launcher's notices can
    bury them)."""
    try:
        with open(path, errors="replace") as f:
            text = f.read().splitlines()
    except OSError:
        return ""
    own = [line for line in text if line.startswith("staghorn")]
    return "\n".join(own[-3:] + [line for line in text[-lines:] if line not in own]).strip()


def timed_rows(path, warmup):
    """Iterations and seconds of the steps after the warm-up, from diagnostics.csv."""
    with open(path) as f:
        # The start row (no step taken: 0 seconds) is not a step.
        rows = [r for r in csv.DictReader(f) if float(r["seconds"]) > 0][warmup:]
    if not rows:
        raise ValueError("diagnostics.csv holds no step after the warm-up")
    iterations = sum(float(r["iterations"]) for r in rows)
    seconds = sum(float(r["seconds"]) for r in rows)
    return len(rows), iterations, seconds


def run_one(c, args, ranks, rep, pi):
    name = f"{c['mode']}-n{ranks}-r{rep}"
    run_dir = os.path.join(args.output, "runs", name)
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(run_dir)
    grid = global_grid(c, ranks)
    config = json.loads(json.dumps(c["config"]))
    for path, value in c["set"].items():
        set_path(config, path, value)
    set_path(config, "grid.n", grid)
    if c["mode"] == "weak":
        # The domain grows with the grid: the spacing, hence the time-step limits and the work
        # of a step per cell, stay those of the one-rank run.
        length = get_path(config, "grid.length", [1.0, 1.0, 1.0])
        set_path(config, "grid.length",
                 [length[a] * grid[a] / c["cells_per_rank"][a] for a in range(3)])
    if str(ranks) in c["dims"]:
        set_path(config, "decomposition.dims", c["dims"][str(ranks)])
    set_path(config, "time.steps", c["warmup_steps"] + c["steps"])
    # Steps are timed from diagnostics.csv, which has rows only where diagnostics are computed.
    # They are computed outside a step's time, so every step's row costs the timing nothing.
    set_path(config, "output.diagnostics_every", 1)
    set_path(config, "output.initial", False)
    if not c["keep_snapshots"]:
        set_path(config, "output.final", False)
    if pi and not has_path(config, "performance.cell_rate") and \
            not has_path(config, "performance.reference_metrics"):
        set_path(config, "performance.cell_rate", pi)
    config_path = os.path.join(run_dir, "config.json")
    with open(config_path, "w") as f:
        json.dump(config, f, indent=2)
    cmd = shlex.split(args.launcher.format(n=ranks)) + [args.staghorn, "run", config_path,
                                                         "--output", run_dir]
    row = {k: None for k in COLUMNS}
    row.update(name=name, mode=c["mode"], ranks=ranks, repetition=rep, run_dir=run_dir,
               grid="x".join(map(str, grid)))
    cells = grid[0] * grid[1] * grid[2]
    row["cells_per_rank"] = cells / ranks
    start = time.time()
    with open(os.path.join(run_dir, "stdout.txt"), "w") as out, \
            open(os.path.join(run_dir, "stderr.txt"), "w") as err:
        try:
            code = subprocess.run(cmd, stdout=out, stderr=err,
                                  timeout=c["timeout_s"] or None).returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
        except OSError as e:
            code, row["error"] = "not started", str(e)
    row["wall_s"] = round(time.time() - start, 3)
    row["exit_code"] = code
    if code != 0:
        row["status"] = "failed"
        row["error"] = row["error"] or tail(os.path.join(run_dir, "stderr.txt")) or \
            tail(os.path.join(run_dir, "stdout.txt"))
        return row
    try:
        with open(os.path.join(run_dir, "metrics.jsonl")) as f:
            m = json.loads(f.read().strip().splitlines()[-1])
        steps, iterations, seconds = timed_rows(os.path.join(run_dir, "diagnostics.csv"),
                                                c["warmup_steps"])
    except (OSError, ValueError, IndexError, KeyError) as e:
        row.update(status="failed", error=f"unreadable output: {e}")
        return row
    if not c["keep_snapshots"]:  # the last step's snapshot: GBs per run at GPU sizes
        for f in os.listdir(run_dir):
            if f.endswith(".nc"):
                os.remove(os.path.join(run_dir, f))
    t_it = seconds / iterations if iterations else float("nan")
    row.update(status="ok", process_grid="x".join(map(str, m.get("process_grid", []))),
               transport=m.get("transport"), backend=m.get("backend"), device=m.get("device"),
               steps=steps, iterations=iterations, time_per_iteration_s=t_it,
               time_per_step_s=seconds / steps, cell_updates_per_s=cells / t_it,
               cell_updates_per_s_per_rank=cells / t_it / ranks,
               T_eff_GBs=m.get("bytes_per_cell_iteration", 0) * cells / t_it / 1e9,
               predicted_time_per_iteration_s=m.get("predicted_time_per_iteration_s"))
    for key in c["keep"]:
        row[key] = m.get(key)
    return row


# ---------------------------------------------------------------- campaign


def efficiency(mode, t_ref, n_ref, t, n):
    """Weak: same work per rank, so t_ref / t; strong: same total work, so t_ref n_ref / (t n)."""
    if not t_ref or not t:
        return None
    return t_ref / t if mode == "weak" else t_ref * n_ref / (t * n)


def finish_rows(c, rows):
    """Efficiency against the median of the smallest rank count's runs, the prediction of those
    runs (pi comes from them: their W / pi), and measured over predicted."""
    n_ref = c["ranks"][0]
    ref = [r["time_per_iteration_s"] for r in rows if r["ranks"] == n_ref and r["status"] == "ok"]
    t_ref = statistics.median(ref) if ref else None
    for r in rows:
        if r["status"] != "ok":
            continue
        r["efficiency"] = efficiency(c["mode"], t_ref, n_ref, r["time_per_iteration_s"],
                                     r["ranks"])
        if r["ranks"] == n_ref and n_ref == 1 and t_ref:
            r["predicted_time_per_iteration_s"] = t_ref
        p = r["predicted_time_per_iteration_s"]
        r["measured_over_predicted"] = r["time_per_iteration_s"] / p if p else None
    return t_ref


def cell(v):
    """A CSV cell: empty for None, JSON for kept metrics that are objects or lists."""
    if v is None:
        return ""
    return json.dumps(v) if isinstance(v, (dict, list)) else v


def write_results(out_dir, c, rows, t_ref):
    keep = [k for k in c["keep"] if k not in COLUMNS]
    with open(os.path.join(out_dir, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS + keep, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: cell(v) for k, v in r.items()})
    campaign = {k: v for k, v in c.items()}
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump({"campaign": campaign, "reference_ranks": c["ranks"][0],
                   "reference_time_per_iteration_s": t_ref, "rows": rows}, f, indent=1)


def fmt(v, spec):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def progress(i, total, r):
    if r["status"] == "ok":
        msg = (f"{fmt(r['time_per_iteration_s'], '.4g')} s/iteration, "
               f"{fmt(r['cell_updates_per_s'], '.3g')} cells/s, "
               f"efficiency {fmt(r['efficiency'] and 100 * r['efficiency'], '.1f')}%, "
               f"predicted {fmt(r['predicted_time_per_iteration_s'], '.4g')} s")
    else:
        first = (r["error"] or "").splitlines()[:1] or [""]
        msg = f"FAILED (exit {r['exit_code']}): {first[0]}"
    print(f"[{i}/{total}] {r['mode']} {r['ranks']} rank(s) grid {r['grid']} "
          f"rep {r['repetition']}: {msg}", flush=True)


def local_gpus():
    """GPUs this process may use: CUDA_VISIBLE_DEVICES when set, else what nvidia-smi lists."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([d for d in visible.split(",") if d.strip() and d.strip() != "-1"])
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return sum(line.startswith("GPU ") for line in out.stdout.splitlines())


def oversubscribed(c, ranks):
    """Why `ranks` ranks would oversubscribe this machine, or None. Threads per rank:
    OMP_NUM_THREADS when set (staghorn otherwise shares the cores out, one thread at least)."""
    backend = c["set"].get("backend", get_path(c["config"], "backend", "auto"))
    gpus = local_gpus()
    if backend == "cuda" or (backend == "auto" and gpus > 0):
        return None if ranks <= gpus else f"{ranks} ranks on {gpus} GPU(s)"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    threads = int(os.environ.get("OMP_NUM_THREADS") or 1)
    if ranks * threads <= cores:
        return None
    return f"{ranks} ranks x {threads} thread(s) on {cores} cores"


def check_oversubscription(c, allow):
    """Refuses (or, when allowed, warns about) rank counts that oversubscribe the machine."""
    over = [why for why in (oversubscribed(c, n) for n in c["ranks"]) if why]
    if not over:
        return
    what = "; ".join(over)
    if not allow:
        raise CampaignError(f"ranks: {what}: oversubscribed runs time the waiting, not the code "
                            "(use fewer ranks, or --allow-oversubscribe to run them anyway)")
    print(f"campaign.py: warning: oversubscribed: {what}; their times and efficiencies do not "
          "measure the code", file=sys.stderr)


def cmd_run(args):
    c = load_campaign(args.campaign)
    staghorn = args.staghorn or shutil.which("staghorn")
    if not staghorn:
        raise CampaignError("no staghorn on PATH: give --staghorn PATH")
    args.staghorn = os.path.abspath(staghorn) if os.path.exists(staghorn) else staghorn
    check_oversubscription(c, args.allow_oversubscribe)
    os.makedirs(args.output, exist_ok=True)
    rows, pi = [], None
    total = len(c["ranks"]) * c["repetitions"]
    for n in c["ranks"]:
        for rep in range(1, c["repetitions"] + 1):
            row = run_one(c, args, n, rep, pi)
            rows.append(row)
            t_ref = finish_rows(c, rows)
            progress(len(rows), total, row)
            write_results(args.output, c, rows, t_ref)  # a killed campaign keeps its rows
        if pi is None and t_ref:
            # pi of the model: the reference runs' cells per rank over their time per iteration.
            pi = rows[-1]["cells_per_rank"] / t_ref
    failed = sum(r["status"] != "ok" for r in rows)
    print(f"{len(rows)} run(s), {failed} failed; results in {args.output}/results.csv")
    return 0


# ---------------------------------------------------------------- report


def by_ranks(rows, key):
    groups = {}
    for r in rows:
        if r["status"] == "ok" and r.get(key) is not None:
            groups.setdefault(r["ranks"], []).append(r[key])
    return {n: groups[n] for n in sorted(groups)}


def plot(path, rows, key, scale, ylabel, title, model_key, model_scale, ideal=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    meas = by_ranks(rows, key)
    for n, vs in meas.items():
        ax.plot([n] * len(vs), [scale(v, n) for v in vs], "o", color="C0", alpha=0.4, ms=4)
    if meas:
        ax.plot(list(meas), [scale(statistics.median(v), n) for n, v in meas.items()], "-o",
                color="C0", label="measured (median)")
    model = by_ranks(rows, model_key)
    if model:
        ax.plot(list(model), [model_scale(statistics.median(v), n) for n, v in model.items()],
                "--s", color="C1", label="performance model")
    shown = [scale(v, n) for n, vs in meas.items() for v in vs]
    shown += [model_scale(v, n) for n, vs in model.items() for v in vs if v]
    # Values over a decade or more (e.g. an oversubscribed run 1000 times slower): a log axis
    # keeps the others readable.
    spans_decades = bool(shown) and min(shown) > 0 and max(shown) >= 10 * min(shown)
    if spans_decades:
        ax.set_yscale("log")
    if ideal is not None:
        ax.axhline(ideal, color="gray", lw=0.8, ls=":", label="ideal")
        if not spans_decades:
            ax.set_ylim(bottom=0)
    failed = sorted({r["ranks"] for r in rows} - set(meas))
    for i, n in enumerate(failed):  # no point to draw: say why
        ax.axvline(n, color="C3", ls=":", lw=1, label="failed runs" if i == 0 else None)
    ranks = sorted({r["ranks"] for r in rows})
    ax.set_xscale("log", base=2)
    ax.set_xticks(ranks)
    ax.set_xticklabels([str(n) for n in ranks])
    ax.set_xlabel("ranks (devices)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return ax.get_yscale()


def cmd_report(args):
    with open(os.path.join(args.dir, "results.json")) as f:
        res = json.load(f)
    c, rows = res["campaign"], res["rows"]
    mode, n_ref, t_ref = c["mode"], res["reference_ranks"], res["reference_time_per_iteration_s"]
    cells = {r["ranks"]: r["cells_per_rank"] for r in rows}
    title = f"{c['name']}: {mode} scaling"

    def model_eff(p, n):
        return efficiency(mode, t_ref, n_ref, p, n)

    plot(os.path.join(args.dir, "efficiency.png"), rows, "efficiency", lambda v, n: v,
         "parallel efficiency", title, "predicted_time_per_iteration_s", model_eff, ideal=1.0)
    plot(os.path.join(args.dir, "time_per_cell.png"), rows, "time_per_iteration_s",
         lambda v, n: 1e9 * v / cells[n], "ns per cell update per rank", title,
         "predicted_time_per_iteration_s", lambda p, n: 1e9 * p / cells[n])
    lines = [f"# {title}", "",
             "| ranks | grid | process grid | transport | s/iteration (median) | cells/s | "
             "T_eff GB/s | efficiency | predicted s | measured/predicted |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for n in sorted(cells):
        ok = [r for r in rows if r["ranks"] == n and r["status"] == "ok"]
        if not ok:
            continue
        med = lambda k: statistics.median([r[k] for r in ok]) if all(
            r[k] is not None for r in ok) else None
        r0 = ok[0]
        lines.append(f"| {n} | {r0['grid']} | {r0['process_grid']} | {r0['transport']} | "
                     f"{fmt(med('time_per_iteration_s'), '.4g')} | "
                     f"{fmt(med('cell_updates_per_s'), '.3g')} | {fmt(med('T_eff_GBs'), '.3g')} | "
                     f"{fmt(med('efficiency') and 100 * med('efficiency'), '.1f')}% | "
                     f"{fmt(med('predicted_time_per_iteration_s'), '.4g')} | "
                     f"{fmt(med('measured_over_predicted'), '.3f')} |")
    failed = [r for r in rows if r["status"] != "ok"]
    if failed:
        lines += ["", "Failed runs:", ""]
        lines += [f"- {r['name']} (grid {r['grid']}): exit {r['exit_code']}: "
                  f"{((r['error'] or '').splitlines() or [''])[0]}" for r in failed]
    with open(os.path.join(args.dir, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {args.dir}/efficiency.png, {args.dir}/time_per_cell.png, {args.dir}/report.md")
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run a campaign file")
    r.add_argument("campaign")
    r.add_argument("--output", required=True, help="directory for results and run folders")
    r.add_argument("--launcher", default="mpirun -np {n}",
                   help="command template, {n} the rank count (default: %(default)s)")
    r.add_argument("--staghorn", help="the staghorn executable (default: the one on PATH)")
    r.add_argument("--allow-oversubscribe", action="store_true",
                   help="run rank counts whose ranks x threads exceed the cores or GPUs (warns)")
    rep = sub.add_parser("report", help="plots and table of a campaign's results")
    rep.add_argument("dir")
    args = p.parse_args(argv)
    try:
        return cmd_run(args) if args.command == "run" else cmd_report(args)
    except CampaignError as e:
        print(f"campaign.py: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
