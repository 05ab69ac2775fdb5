#!/usr/bin/env python3
"""campaign.py end to end: asserts the rows of results.csv, the PNGs of the report, and that an
impossible run is recorded as failed (exit code, stderr) while the campaign goes on."""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def campaign(args, *cmd):
    r = subprocess.run([sys.executable, args.campaign_py, *cmd], capture_output=True, text=True)
    print(r.stdout, r.stderr, sep="\n")
    assert r.returncode == 0, f"campaign.py {cmd[0]} exited {r.returncode}"
    return r.stdout


def run(args, campaign_file, out):
    # 4 ranks on CI's 2 cores: allowed here, the runs only need to finish.
    return campaign(args, "run", campaign_file, "--output", out, "--launcher", args.launcher,
                    "--staghorn", args.staghorn, "--allow-oversubscribe")


def oversubscription_refused(args):
    """More ranks than cores: refused before any run, unless --allow-oversubscribe."""
    cores = len(os.sched_getaffinity(0))
    with open(args.example) as f:
        c = json.load(f)
    c["ranks"] = [1, 4 * cores]
    path = os.path.join(args.work, "oversubscribed.json")
    with open(path, "w") as f:
        json.dump(c, f)
    out = os.path.join(args.work, "oversubscribed")
    r = subprocess.run([sys.executable, args.campaign_py, "run", path, "--output", out,
                        "--launcher", args.launcher, "--staghorn", args.staghorn],
                       capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert f"{4 * cores} ranks x 1 thread(s) on {cores} cores" in r.stderr, r.stderr
    assert "--allow-oversubscribe" in r.stderr and not os.path.exists(out), r.stderr


def log_axis_where_values_span_decades(args):
    """The report's plots switch to a log axis when values span a decade or more."""
    sys.path.insert(0, os.path.dirname(args.campaign_py))
    import campaign as cp
    rows = [{"status": "ok", "ranks": n, "t": t, "p": None} for n, t in ((1, 1e-3), (2, 2e-3))]
    png = os.path.join(args.work, "axis.png")
    same = cp.plot(png, rows, "t", lambda v, n: v, "s", "close", "p", lambda v, n: v)
    rows.append({"status": "ok", "ranks": 4, "t": 1.0, "p": None})
    spread = cp.plot(png, rows, "t", lambda v, n: v, "s", "spread", "p", lambda v, n: v)
    assert (same, spread) == ("linear", "log"), (same, spread)


def rows_of(out):
    with open(os.path.join(out, "results.csv")) as f:
        return list(csv.DictReader(f))


def check_report(args, out):
    campaign(args, "report", out)
    for name in ("efficiency.png", "time_per_cell.png"):
        path = os.path.join(out, name)
        with open(path, "rb") as f:
            assert f.read(8) == PNG_MAGIC, f"{path} is not a PNG"
        assert os.path.getsize(path) > 1000, f"{path} is empty"


def weak(args):
    out = os.path.join(args.work, "weak")
    stdout = run(args, args.example, out)
    assert stdout.count("[") >= 3, "a progress line per run"
    rows = rows_of(out)
    assert [int(r["ranks"]) for r in rows] == [1, 2, 4], rows
    assert [r["grid"] for r in rows] == ["16x16x16", "16x16x32", "16x32x32"], rows
    assert [r["process_grid"] for r in rows] == ["1x1x1", "1x1x2", "1x2x2"], rows
    for r in rows:
        assert r["status"] == "ok" and r["exit_code"] == "0", r
        assert float(r["cells_per_rank"]) == 16 ** 3
        t, p = float(r["time_per_iteration_s"]), float(r["predicted_time_per_iteration_s"])
        assert t > 0 and p > 0, r
        assert abs(float(r["cell_updates_per_s"]) * t - 16 ** 3 * int(r["ranks"])) < 1e-6 * 16 ** 3
        assert abs(float(r["measured_over_predicted"]) - t / p) < 1e-9 * t / p
        assert r["transport"].startswith("mpi"), r
        assert float(r["T_eff_GBs"]) > 0
        assert "compute" in json.loads(r["phases_ms_per_iteration"]), "kept metrics, as JSON"
    assert float(rows[0]["efficiency"]) == 1.0
    t1 = float(rows[0]["time_per_iteration_s"])
    for r in rows[1:]:  # weak: t_1 / t_n
        assert abs(float(r["efficiency"]) - t1 / float(r["time_per_iteration_s"])) < 1e-9
    with open(os.path.join(out, "results.json")) as f:
        assert len(json.load(f)["rows"]) == 3
    for r in rows:  # timing runs write no fields
        assert not [f for f in os.listdir(r["run_dir"]) if f.endswith(".nc")], r["run_dir"]
    check_report(args, out)


def strong_with_a_failure(args):
    out = os.path.join(args.work, "strong")
    with open(args.example) as f:
        c = json.load(f)
    for key in ("cells_per_rank", "weak_axes"):
        del c[key]
    # 4 ranks along 3 cells of z leave a block of no cell: a process grid that cannot run.
    c.update(name="strong with an impossible process grid", mode="strong", grid=[16, 16, 3],
             ranks=[1, 2, 4], dims={"2": [1, 1, 2], "4": [1, 1, 4]})
    path = os.path.join(args.work, "strong.json")
    with open(path, "w") as f:
        json.dump(c, f)
    run(args, path, out)
    rows = rows_of(out)
    assert [(r["ranks"], r["status"]) for r in rows] == [("1", "ok"), ("2", "ok"),
                                                         ("4", "failed")], rows
    assert rows[1]["process_grid"] == "1x1x2", "dims fixes the process grid of 2 ranks"
    t1, t2 = float(rows[0]["time_per_iteration_s"]), float(rows[1]["time_per_iteration_s"])
    assert abs(float(rows[1]["efficiency"]) - t1 / (2 * t2)) < 1e-9, "strong: t_1 / (n t_n)"
    assert rows[2]["exit_code"] == "1", rows[2]
    assert "decomposition" in rows[2]["error"], rows[2]["error"]
    check_report(args, out)
    with open(os.path.join(out, "report.md")) as f:
        assert "strong-n4-r1" in f.read(), "the report lists the failed run"


def dry_run_prediction(args):
    """`staghorn run --dry-run` on 2 ranks with pi and beta given: the printed prediction is
    W / pi + Q / beta with W = 16^3 cells per rank and Q = 16^2 halo cells of one field (the CPU
    does not hide communication by default), max(W / pi, Q / beta) when it is hidden."""
    cmd = args.launcher.format(n=2).split() + [
        args.staghorn, "run", os.path.join(args.work, "weak", "runs", "weak-n1-r1", "config.json"),
        "--dry-run", "--set", "grid.n=[16,16,32]", "--set", "performance.cell_rate=1e6",
        "--set", "performance.link_bandwidth=1e-6", "--set", "performance.sequential_time=0.5"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    print(r.stdout[-600:], r.stderr[-600:])
    assert r.returncode == 0, r.stderr
    q = 16 * 16 * 8  # bounded z split in two: one face of the busiest rank, 8 bytes a cell
    expected = 16 ** 3 / 1e6 + q / 1e3 + 0.5
    line = [l for l in r.stdout.splitlines() if l.startswith("predicted time per iteration")][0]
    assert abs(float(line.split()[4]) - expected) < 1e-5 * expected, (line, expected)
    hidden = subprocess.run(cmd + ["--set", "exchange.hide_communication=true"],
                            capture_output=True, text=True)
    assert hidden.returncode == 0, hidden.stderr
    expected = max(16 ** 3 / 1e6, q / 1e3) + 0.5
    line = [l for l in hidden.stdout.splitlines()
            if l.startswith("predicted time per iteration")][0]
    assert abs(float(line.split()[4]) - expected) < 1e-5 * expected, (line, expected)
    # No pi given: measured on the spot by a one-rank copy of the model on each rank's block.
    r = subprocess.run(cmd[:-6] + ["--set", "performance.measure_steps=1"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert "pi = " in r.stdout and "(measured (performance.measure_steps))" in r.stdout, r.stdout
    line = [l for l in r.stdout.splitlines() if l.startswith("predicted time per iteration")][0]
    assert float(line.split()[4]) > 0, line


def main():
    p = argparse.ArgumentParser()
    for a in ("--campaign-py", "--example", "--staghorn", "--launcher", "--work"):
        p.add_argument(a, required=True)
    args = p.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    oversubscription_refused(args)
    log_axis_where_values_span_decades(args)
    weak(args)
    dry_run_prediction(args)
    strong_with_a_failure(args)
    print("campaign_test: all assertions passed")


if __name__ == "__main__":
    main()
