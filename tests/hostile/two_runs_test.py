#!/usr/bin/python3
"""Two runs into one output directory: one is refused, and nothing is mixed.

A first run writes a snapshot every 50 steps of 150 into OUT; while it runs, a second run starts
into OUT in each of three ways: at the same instant with other physics, restarting from one of
the first run's snapshots (--restart), and with --overwrite. Asserted for each mode:

  * one run exits 0 and the other 1 with a message naming the conflict (the directory in use by
    another run, or another run's files in it);
  * every snapshot in OUT was written by the run that succeeded (its config, staghorn_config,
    names its physics), and the series is complete: steps 0 to 150 in fifties, listed by the
    index;
  * diagnostics.csv holds whole lines, one per step 0 to 150, in order; diagnostics.nc one
    record per step;
  * the lock file is gone.

usage: two_runs_test.py STAGHORN MPIEXEC WORKDIR   (stdlib only; ncdump)
"""
import os
import re
import shutil
import subprocess
import sys
import time

STAGHORN, MPIEXEC, WORK = os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3])
SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIFF = f"{SRC}/models/diffusion/examples/diffusion2d_small.json"
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMP_NUM_THREADS="1", OMPI_MCA_rmaps_base_oversubscribe="1")
TIMEOUT = 120
STEPS, EVERY = 600, 200  # with 128^2 cells a few seconds: the second run starts meanwhile


def sets(*pairs):
    return [a for p in pairs for a in ("--set", p)]


def command(out, d0, ranks=1, extra=()):
    argv = [STAGHORN, "run", DIFF] + sets(
        "backend=cpu", "metrics.copy_bandwidth=false", "log.interval=0", "grid.n=[128,128,1]",
        f"time.steps={STEPS}", f"output.every={EVERY}", f"diffusion.D0={d0}") + list(extra)
    argv += ["--output", out]
    if ranks > 1:
        argv = [MPIEXEC, "--oversubscribe", "-np", str(ranks)] + argv
    return argv


def start(argv):
    return subprocess.Popen(argv, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def wait_for(proc, marker):
    """Reads the run's output up to a line holding `marker`; returns what it read."""
    seen = ""
    for line in proc.stdout:
        seen += line
        if marker in line:
            return seen
    return seen


def finish(proc, seen=""):
    out, _ = proc.communicate(timeout=TIMEOUT)
    return proc.returncode, seen + out


def config_of(path):
    head = subprocess.run(["ncdump", "-h", path], capture_output=True, text=True).stdout
    m = re.search(r'D0\\?":\s*([0-9.e+-]+)', head)
    return float(m.group(1)) if m else None


def steps_of_csv(path):
    with open(path, "rb") as f:
        text = f.read().decode()
    if not text.endswith("\n"):
        return None
    return [int(float(line.split(",")[0])) for line in text.splitlines()[1:]]


def nc_steps(path):
    out = subprocess.run(["ncdump", "-v", "step", path], capture_output=True, text=True).stdout
    m = re.search(r"step = ([^;]*);", out.split("data:", 1)[-1])
    return [int(v) for v in m.group(1).replace("\n", " ").split(",")] if m else None


def check_unmixed(out, d0):
    """What a directory written by one run (of diffusion.D0 = d0) holds: (problems)."""
    problems = []
    snaps = sorted(f for f in os.listdir(out) if re.fullmatch(r"snapshot_\d+\.nc", f))
    want = [f"snapshot_{s:06d}.nc" for s in range(0, STEPS + 1, EVERY)]
    if snaps != want:
        problems.append(f"snapshots {snaps}, expected {want}")
    for s in snaps:
        if config_of(os.path.join(out, s)) != d0:
            problems.append(f"{s} was written by the other run")
    if steps_of_csv(os.path.join(out, "diagnostics.csv")) != list(range(STEPS + 1)):
        problems.append("diagnostics.csv is not one whole row per step 0.." + str(STEPS))
    if nc_steps(os.path.join(out, "diagnostics.nc")) != list(range(STEPS + 1)):
        problems.append("diagnostics.nc is not one record per step")
    with open(os.path.join(out, "snapshot.xmf")) as f:
        listed = re.findall(r"snapshot_\d+\.nc", f.read())
    if sorted(set(listed)) != want:
        problems.append(f"the index lists {sorted(set(listed))}")
    if os.path.exists(os.path.join(out, ".staghorn.lock")):
        problems.append("the lock file is left")
    return problems


REFUSED = r"is in use by another run|holds (snapshots|the diagnostics) of another run"


def judge(name, results, out):
    """results: [(d0, code, output)] of both runs."""
    problems = []
    winners = [r for r in results if r[1] == 0]
    losers = [r for r in results if r[1] != 0]
    if len(winners) != 1 or len(losers) != 1:
        problems.append("exit codes " + str([r[1] for r in results]) + ", expected one 0 and one 1")
    else:
        if losers[0][1] != 1:
            problems.append(f"the refused run exited {losers[0][1]}")
        if not re.search(REFUSED, losers[0][2]):
            problems.append("the refused run does not say why")
        problems += check_unmixed(out, winners[0][0])
    print(("FAIL " if problems else "ok   ") + name + ("" if not problems else ": " + "; ".join(problems)))
    if problems:
        for _, code, text in results:
            print(f"    | exit {code}: " + text.strip().replace("\n", "\n    | ")[-1500:])
    return not problems


def fresh(name):
    out = os.path.join(WORK, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    return out


def same_instant(ranks):
    out = fresh(f"same_instant_{ranks}")
    a, b = start(command(out, 1.0, ranks)), start(command(out, 2.0, ranks))
    (ca, ta), (cb, tb) = finish(a), finish(b)
    return judge(f"same_instant_{ranks}rank", [(1.0, ca, ta), (2.0, cb, tb)], out)


def while_running(name, extra_of, ranks=1):
    out = fresh(f"{name}_{ranks}")
    a = start(command(out, 1.0, ranks))
    seen = wait_for(a, "step 10/")
    b = start(command(out, 2.0, ranks, extra_of(out)))
    cb, tb = finish(b)
    ca, ta = finish(a, seen)
    return judge(f"{name}_{ranks}rank", [(1.0, ca, ta), (2.0, cb, tb)], out)


def main():
    start_time = time.time()
    ok = True
    for ranks in (1, 2):
        ok &= same_instant(ranks)
        ok &= while_running("restart", lambda out: ["--restart", f"{out}/snapshot_000000.nc"],
                            ranks)
        ok &= while_running("overwrite", lambda out: ["--overwrite"], ranks)
    print(f"{'all passed' if ok else 'failures'} in {time.time() - start_time:.0f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
