#!/usr/bin/python3
"""Hostile-input suite: bad configs, --set and command lines, output directories, restart files,
numerical failures of every model (explicit and implicit), MPI faults on 1, 2 and 4 ranks, and
stop signals. Each case of the table below is asserted on:

  * the exit code (and that no case dies by a signal it was not sent, nor hangs: 60 s each);
  * a regular expression the message must match (the key, file or rank at fault);
  * refused at start (`untouched`): its working directory (configs, the output directory and
    whatever it held) is byte-identical after the run;
  * every snapshot the run names as last good ("the last good snapshot is '...'") or as restart
    ("restart snapshot '...'") exists and holds only finite values (ncdump shows no NaN/Infinity);
  * a run that succeeds writes only finite diagnostics (diagnostics.csv);
  * what docs/user/exit-codes.md's exit-code table promises for the case's code (PROMISES; the suite refuses
    to run when the table's last column and PROMISES differ);
  * an optional extra check (a function of the case's directory and output).

Every run case has a companion check_NAME: `staghorn check` on the same command line, which must
refuse what the run refuses before writing (the same code and message) and accept the rest.

usage: hostile_suite.py STAGHORN MPIEXEC WORKDIR [NAME_REGEX]   (stdlib only; ncdump and ncgen)
Without NAME_REGEX every case runs but those named retry512_* (the 512^2 retry restarts, about
three minutes of runs: CTest's retry_restart_512 selects them with "^retry512_").
Cases run HOSTILE_JOBS (default 2) at a time; the disk-full cases need to mount a tmpfs (root).
"""
import concurrent.futures
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time

STAGHORN, MPIEXEC, WORK = (os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3]))
ONLY = re.compile(sys.argv[4]) if len(sys.argv) > 4 else None
SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX = os.path.join(SRC, "models")
DIFF = f"{EX}/diffusion/examples/diffusion2d_small.json"
MHD = f"{EX}/mhd/examples/decay_small.json"
STOKES = f"{EX}/stokes/examples/stokes2d_sinking_small.json"
HYDRO = f"{EX}/hydromech/examples/hydromech2d_blob_small.json"
COUPLED = f"{EX}/hydromech/examples/hydromech2d_coupled_blob.json"
TIMEOUT = 60
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMP_NUM_THREADS="1", OMPI_MCA_rmaps_base_oversubscribe="1")


def sets(*pairs):
    out = []
    for p in pairs:
        out += ["--set", p]
    return out


BASE = sets("backend=cpu", "metrics.copy_bandwidth=false", "log.interval=100000")
SMALL_DIFF = [DIFF] + BASE + sets("grid.n=[32,32,1]", "time.steps=2")
SMALL_MHD = [MHD] + BASE + sets("grid.n=[16,16,16]", "time.steps=2")
SMALL_STOKES = [STOKES] + BASE + sets("grid.n=[16,16,1]", "time.steps=1")
SMALL_HYDRO = [HYDRO] + BASE + sets("grid.n=[16,32,1]", "time.steps=2")
SMALL_COUPLED = [COUPLED] + BASE + sets("grid.n=[16,32,1]", "time.steps=1")
PIPE = f"{EX}/hydromech/examples/hydromech2d_pipe_small.json"  # the two-phase physics
SMALL_PIPE = [PIPE] + BASE + sets("grid.n=[16,32,1]", "time.steps=1")


class Case:
    """One run of staghorn and what it must do. `teardown(d)` ends what `setup` started;
    `file_limit`: (marker, bytes): once the output shows `marker`, the ranks' RLIMIT_FSIZE (set
    after MPI's start-up, whose shared-memory files would not fit); `agree`: whether `check` on the same command
    line must agree with it (a companion case check_NAME; not where the refusal comes from
    another process, not from the config)."""
    def __init__(self, name, argv, code, message, ranks=1, untouched=False, setup=None,
                 check=None, verb="run", signal_after=None, output=True, teardown=None,
                 file_limit=None, agree=True):
        self.name, self.argv, self.code, self.message = name, argv, code, message
        self.ranks, self.untouched, self.setup, self.check = ranks, untouched, setup, check
        self.verb, self.signal_after, self.output = verb, signal_after, output
        self.teardown, self.file_limit, self.agree = teardown, file_limit, agree


# ---- helpers for setups and checks ----------------------------------------------------------

def write(path, text, mode=None):
    with open(path, "w") as f:
        f.write(text)
    if mode is not None:
        os.chmod(path, mode)


def tree_digest(root):
    """Names, kinds, modes and contents of everything under root."""
    h = hashlib.sha256()
    for d, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for n in sorted(dirs + files):
            p = os.path.join(d, n)
            st = os.lstat(p)
            h.update(os.fsencode(os.path.relpath(p, root)) + f" {st.st_mode}\n".encode())
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


def finite(path):
    """Whether every value of the snapshot is finite (ncdump prints NaN and Infinity)."""
    out = subprocess.run(["ncdump", path], capture_output=True, text=True)
    if out.returncode != 0:
        return False
    data = out.stdout.split("\ndata:", 1)[-1]
    return re.search(r"\b(NaN|nan|-?Infinity|-?inf)\b", data) is None


FIXTURES = {}


def fixture(name, argv):
    """A clean run's output, made once and copied by the cases that need it."""
    path = os.path.join(WORK, "_fixtures", name)
    if name not in FIXTURES:
        shutil.rmtree(path, ignore_errors=True)
        r = subprocess.run([STAGHORN, "run"] + argv + ["--output", path], env=ENV,
                           capture_output=True, text=True, timeout=TIMEOUT)
        if r.returncode != 0:
            raise RuntimeError(f"fixture {name} failed: {r.stderr}")
        FIXTURES[name] = path
    return path


def restart_copy(d, damage=None):
    """d/restart.nc: a copy of the diffusion fixture's step-2 snapshot, damaged by `damage`."""
    src = os.path.join(fixture("diff", SMALL_DIFF), "snapshot_000002.nc")
    dst = os.path.join(d, "restart.nc")
    shutil.copy(src, dst)
    if damage:
        damage(dst)
    return dst


def overwrite_middle(byte_or_random):
    """Overwrites 2 KiB in the middle of the file (inside the field H's data)."""
    def damage(path):
        size = os.path.getsize(path)
        with open(path, "r+b") as f:
            f.seek(size // 2)
            f.write(os.urandom(2048) if byte_or_random == "random" else bytes([0xff]) * 2048)
    return damage


def nan_inside_valid_file(path):
    """A NaN written through the netCDF library itself: checksums match, the value is broken."""
    cdl = subprocess.run(["ncdump", path], capture_output=True, text=True, check=True).stdout
    head, data = cdl.split("\ndata:", 1)
    m = re.search(r"(\n H =\s*\n?\s*)([-0-9.e+]+)", data)
    data = data[:m.start(2)] + "NaN" + data[m.end(2):]
    cdl_path = path + ".cdl"
    write(cdl_path, head + "\ndata:" + data)
    os.remove(path)
    subprocess.run(["ncgen", "-k", "nc4", "-o", path, cdl_path], check=True)
    os.remove(cdl_path)


def files_exist(*names):
    def check(d, out):
        missing = [n for n in names if not os.path.exists(os.path.join(d, n))]
        return f"missing {missing}" if missing else None
    return check


def files_absent(*patterns):
    def check(d, out):
        for root, _, files in os.walk(d):
            for f in files:
                for p in patterns:
                    if re.fullmatch(p, f):
                        return f"unexpected file {os.path.join(root, f)}"
        return None
    return check


def grep(pattern):
    def check(d, out):
        return None if re.search(pattern, out) else f"output lacks {pattern!r}"
    return check


def all_of(*checks):
    def check(d, out):
        for c in checks:
            why = c(d, out)
            if why:
                return why
        return None
    return check


def previous_run(d):
    """out/ holds another run's snapshot and a stale .tmp of a killed write."""
    os.makedirs(os.path.join(d, "out"))
    shutil.copy(os.path.join(fixture("diff", SMALL_DIFF), "snapshot_000002.nc"),
                os.path.join(d, "out", "snapshot_000007.nc"))


def stale_tmp(d):
    os.makedirs(os.path.join(d, "out"))
    write(os.path.join(d, "out", "snapshot_000001.nc.tmp"), "half a file")


def populated_out(d):
    """Refused runs must leave an existing output directory as it was."""
    os.makedirs(os.path.join(d, "out"))
    write(os.path.join(d, "out", "notes.txt"), "the user's own file\n")


def config(text):
    def setup(d):
        populated_out(d)
        write(os.path.join(d, "c.json"), text)
    return setup


def then(*setups):
    def setup(d):
        for s in setups:
            s(d)
    return setup


# ---- the cases ----------------------------------------------------------------------------------

C = []
add = C.append
LAST_GOOD = r"the last good snapshot is '.*snapshot_0000\d\d\.nc'"

# Configuration files (exit 1, named, nothing written).
add(Case("json_duplicate_key", ["c.json"] + BASE, 1, r"time\.dt: duplicate key in config file",
         untouched=True, setup=config('{"time": {"dt": 1e-3, "dt": 2e-3}}')))
add(Case("json_duplicate_nested_key", ["c.json"] + BASE, 1,
         r"grid\.n: duplicate key in config file", untouched=True,
         setup=config('{"grid": {"n": [8,8,1], "length": [1,1,1], "n": [16,16,1]}}')))
add(Case("json_duplicate_top_key", ["c.json"] + BASE, 1, r"model: duplicate key", untouched=True,
         setup=config('{"model": "diffusion", "model": "mhd"}')))
add(Case("json_number_overflow", ["c.json"] + BASE, 1,
         r"config file 'c\.json'.*number overflow parsing '1e999'", untouched=True,
         setup=config('{"time": {"dt": 1e999}}')))
add(Case("json_malformed", ["c.json"] + BASE, 1, r"c\.json': malformed JSON at line 2",
         untouched=True, setup=config('{"time":\n {"dt": }}')))
add(Case("json_empty_file", ["c.json"] + BASE, 1, r"c\.json': malformed JSON", untouched=True,
         setup=config("")))
add(Case("json_top_level_array", ["c.json"] + BASE, 1, r"top level must be an object",
         untouched=True, setup=config("[1, 2]")))
add(Case("config_is_directory", ["."] + BASE, 1, r"config file '\.': is a directory",
         untouched=True, setup=populated_out))
add(Case("config_missing", ["nope.json"] + BASE, 1, r"config file 'nope\.json': cannot be opened",
         untouched=True, setup=populated_out))
add(Case("model_unknown", ["c.json"] + BASE, 1, r"model: unknown model", untouched=True,
         setup=config('{"model": "plasma"}')))
add(Case("model_not_string", ["c.json"] + BASE, 1, r"model: expected a string", untouched=True,
         setup=config('{"model": 7}')))
add(Case("unknown_key", ["c.json"] + BASE, 1, r"diffusion\.D1", untouched=True,
         setup=config('{"diffusion": {"D1": 2}}')))
add(Case("dt_string", [DIFF] + BASE + sets("time.dt=fast"), 1, r"time\.dt", untouched=True,
         setup=populated_out))
add(Case("dt_negative", [DIFF] + BASE + sets("time.dt=-1"), 1, r"time\.dt", untouched=True,
         setup=populated_out))
add(Case("dt_overflow_set", [DIFF] + BASE + sets("time.dt=1e999"), 1, r"time\.dt",
         untouched=True, setup=populated_out))
add(Case("steps_negative", [DIFF] + BASE + sets("time.steps=-3"), 1, r"time\.steps",
         untouched=True, setup=populated_out))
add(Case("output_every_float", [DIFF] + BASE + sets("output.every=1.5"), 1, r"output\.every",
         untouched=True, setup=populated_out))
add(Case("timeout_negative", [DIFF] + BASE + sets("exchange.timeout_s=-1"), 1,
         r"exchange\.timeout_s", untouched=True, setup=populated_out))
add(Case("walltime_negative", [DIFF] + BASE + sets("run.walltime=-5"), 1, r"run\.walltime",
         untouched=True, setup=populated_out))
add(Case("backend_bogus", [DIFF] + BASE + sets("backend=fpga"), 1, r"backend", untouched=True,
         setup=populated_out))
add(Case("mhd_order_odd", SMALL_MHD + sets("mhd.order=3"), 1, r"mhd\.order", untouched=True,
         setup=populated_out))
add(Case("mhd_bounded_axis", SMALL_MHD + sets("grid.periodic=[false,true,true]"), 1,
         r"grid\.periodic\[0\]: the mhd model supports periodic axes only", untouched=True,
         setup=populated_out))
# The coupled two-phase physics' parameters (refused before anything is written, by key).
add(Case("coupled_phi0_one", SMALL_PIPE + sets("hydromech.phi0=1"), 1, r"hydromech\.phi0",
         untouched=True, setup=populated_out))
add(Case("coupled_power_law_negative", SMALL_PIPE + sets("hydromech.coupled.power_law.n=-2"), 1,
         r"hydromech\.coupled\.power_law\.n", untouched=True, setup=populated_out))
add(Case("coupled_caps_reversed", SMALL_PIPE + sets("hydromech.coupled.power_law.eta_min=20"), 1,
         r"hydromech\.coupled\.power_law\.eta_max", untouched=True, setup=populated_out))
add(Case("coupled_reservoir_outside", SMALL_PIPE + sets(
    'hydromech.materials.phases=[{"shape": "layer", "normal": [0, 1, 0], "from": 30, "to": 40, '
    '"porosity": 0.06}]'), 1, r"hydromech\.materials\.phases\[0\]", untouched=True,
    setup=populated_out))
add(Case("stokes_relative_tol", SMALL_STOKES + sets("solver.tol_mode=relative"), 1,
         r"solver\.tol_mode", untouched=True, setup=populated_out))
add(Case("stokes_1d", SMALL_STOKES + sets("grid.n=[16,1,1]"), 1, r"grid\.n", untouched=True,
         setup=populated_out))

# Materials (stokes.materials, hydromech.materials): geometry and files, named by key, file and
# variable; refused before anything is written.
def phases(*items):
    return sets("stokes.materials.phases=[" + ",".join(items) + "]")


def nc_file(name, x="0, 5, 10, 15, 20", y="0, 10, 20, 30, 40", k=None):
    """A small (y, x) NetCDF file of a variable k, as xarray lays it out (ncgen from CDL)."""
    def setup(d):
        nx, ny = len(x.split(",")), len(y.split(","))
        values = k or ", ".join(["1"] * (nx * ny))
        cdl = (f"netcdf m {{ dimensions: y = {ny}; x = {nx}; variables: double x(x); double y(y); "
               f"double k(y, x); data: x = {x}; y = {y}; k = {values}; }}")
        write(os.path.join(d, "m.cdl"), cdl)
        subprocess.run(["ncgen", "-k", "nc4", "-o", os.path.join(d, name), os.path.join(d, "m.cdl")],
                       check=True)
    return setup


HYDRO_FILE = json.dumps({
    "model": "hydromech", "grid": {"n": [8, 16, 1], "length": [20.0, 40.0, 1.0]},
    "time": {"dt": 0.1, "steps": 1},
    "hydromech": {"materials": {"file": "m.nc", "variables": {"permeability": "k"}}}})
add(Case("materials_outside_domain", SMALL_STOKES + phases(
    '{"shape":"circle","radius":0.1,"center":[3,0.5,0]}'), 1,
    r"stokes\.materials\.phases\[0\]: the shape lies outside the domain", untouched=True,
    setup=populated_out))
add(Case("materials_unknown_key", SMALL_STOKES + phases('{"shape":"circle","radiuss":0.1}'), 1,
         r"stokes\.materials\.phases\[0\]\.radiuss: unknown key \(did you mean "
         r"stokes\.materials\.phases\[0\]\.radius\?\)", untouched=True, setup=populated_out))
add(Case("materials_random_overlap", SMALL_STOKES + phases(
    '{"shape":"random_inclusions","count":25,"radius_min":0.1,"gap":0.01}'), 1,
    r"stokes\.materials\.phases\[0\]\.count: placed only \d+ of 25 non-overlapping",
    untouched=True, setup=populated_out))
add(Case("materials_file_missing", ["c.json"] + BASE, 1,
         r"hydromech\.materials\.file: '.*m\.nc' does not exist", untouched=True,
         setup=config(HYDRO_FILE)))
add(Case("materials_file_no_variable", ["c.json"] + BASE + sets(
    "hydromech.materials.variables.permeability=perm"), 1,
    r"hydromech\.materials\.variables\.permeability: file '.*m\.nc' has no variable 'perm'",
    untouched=True, setup=then(config(HYDRO_FILE), nc_file("m.nc"))))
add(Case("materials_file_nan", ["c.json"] + BASE, 1,
         r"file '.*m\.nc', variable 'k': value 7 is missing or not finite", untouched=True,
         setup=then(config(HYDRO_FILE), nc_file("m.nc", k="1, " * 7 + "NaN" + ", 1" * 17))))
add(Case("materials_file_not_positive", ["c.json"] + BASE, 1,
         r"variable 'k': value 3 is -2\.0+, must be > 0", untouched=True,
         setup=then(config(HYDRO_FILE), nc_file("m.nc", k="1, " * 3 + "-2" + ", 1" * 21))))
add(Case("materials_file_short", ["c.json"] + BASE, 1,
         r"variable 'k': coordinate 'x' spans \[0, 15\], which does not cover", untouched=True,
         setup=then(config(HYDRO_FILE), nc_file("m.nc", x="0, 5, 10, 15"))))
add(Case("materials_file_not_monotonic", ["c.json"] + BASE, 1,
         r"variable 'k': coordinate 'y' is not finite and strictly monotonic", untouched=True,
         setup=then(config(HYDRO_FILE), nc_file("m.nc", y="0, 20, 10, 30, 40"))))
add(Case("fault_rank_outside", SMALL_DIFF + sets("debug.fault.kind=nan", "debug.fault.rank=3"),
         1, r"debug\.fault\.rank: 3 is not a rank of this 1-rank job", untouched=True,
         setup=populated_out))
add(Case("decomposition_inactive_axis", SMALL_DIFF + sets("grid.n=[33,32,1]",
                                                          "decomposition.dims=[1,1,2]"),
         1, r"decomposition: grid\.n\[2\] = 1: an inactive axis cannot be split", ranks=2,
         untouched=True, setup=populated_out))

# Grid sizes: 64-bit counts, memory refused before anything is allocated or written.
for verb, extra in (("check", []), ("run", ["--dry-run"]), ("run", [])):
    tag = verb + ("_dry" if extra else "")
    add(Case(f"grid_2e9_{tag}", [DIFF] + BASE + sets("grid.n=[2147483648,1,1]") + extra, 1,
             r"grid\.n\[0\]: must be <= 1073741824, got 2147483648", untouched=True, setup=populated_out,
             verb=verb))
    add(Case(f"grid_int64_max_{tag}", [DIFF] + BASE + sets("grid.n=[9223372036854775807,2,1]")
             + extra, 1, r"grid\.n\[0\]", untouched=True, setup=populated_out, verb=verb))
    add(Case(f"grid_memory_{tag}", [DIFF] + BASE + sets("grid.n=[100000,100000,100000]") + extra,
             1, r"grid\.n: \[100000, 100000, 100000\] needs \d+ bytes .* but \d+ bytes .* of "
             r"host memory are available", untouched=True, setup=populated_out, verb=verb))
add(Case("grid_memory_stokes_2ranks", SMALL_STOKES + sets("grid.n=[1048576,1048576,1]"), 1,
         r"grid\.n: .* needs \d+ bytes \(.*\) per rank .* available per rank", ranks=2, untouched=True,
         setup=populated_out))
add(Case("grid_zero", [DIFF] + BASE + sets("grid.n=[0,8,1]"), 1, r"grid\.n\[0\]: must be >= 1",
         untouched=True, setup=populated_out, verb="check"))

# output.prefix and the output directory (exit 1 naming the key or path, nothing written).
add(Case("prefix_empty", SMALL_DIFF + sets("output.prefix="), 1,
         r"output\.prefix: must not be empty", untouched=True, setup=populated_out))
add(Case("prefix_long", SMALL_DIFF + sets("output.prefix=" + "p" * 250), 1,
         r"output\.prefix: is 250 bytes long", untouched=True, setup=populated_out))
add(Case("prefix_nul", SMALL_DIFF + sets('output.prefix="a\\u0000b"'), 1,
         r"output\.prefix: contains a NUL", untouched=True, setup=populated_out))
add(Case("prefix_parent", SMALL_DIFF + sets("output.prefix=../../x"), 1,
         r"output\.prefix: '\.\./\.\./x' contains '/'", untouched=True, setup=populated_out))
add(Case("prefix_dotdot", SMALL_DIFF + sets("output.prefix=.."), 1,
         r"output\.prefix: '\.\.' is not a file name", untouched=True, setup=populated_out))
add(Case("prefix_newline", SMALL_DIFF + sets('output.prefix="a\\nb"'), 1,
         r"output\.prefix: contains a NUL or control", untouched=True, setup=populated_out))
add(Case("output_is_file", SMALL_DIFF, 1, r"'file\.txt' is a file, not a directory",
         untouched=True, setup=lambda d: write(os.path.join(d, "file.txt"), "x"),
         output="file.txt"))
add(Case("output_under_file", SMALL_DIFF, 1, r"'file\.txt/sub' cannot be created: 'file\.txt' is "
         r"a file", untouched=True, setup=lambda d: write(os.path.join(d, "file.txt"), "x"),
         output="file.txt/sub"))
add(Case("output_long_component", SMALL_DIFF, 1, r"has a component of 300 bytes", untouched=True,
         setup=populated_out, output="o" * 300))
add(Case("output_proc_parent", SMALL_DIFF, 1, r"output\.dir.*'/proc/staghorn-out'",
         untouched=True, setup=populated_out, output="/proc/staghorn-out"))
add(Case("output_previous_run", SMALL_DIFF, 1,
         r"'out' holds snapshots of another run \(out/snapshot_000007\.nc\).*--overwrite",
         untouched=True, setup=previous_run))
add(Case("output_previous_run_2ranks", SMALL_DIFF, 1, r"holds snapshots of another run",
         ranks=2, untouched=True, setup=previous_run))
add(Case("output_overwrite", SMALL_DIFF + ["--overwrite"], 0, r"",
         setup=previous_run, check=all_of(files_exist("out/snapshot_000002.nc"),
                                          files_absent(r"snapshot_000007\.nc"))))
add(Case("output_stale_tmp_removed", SMALL_DIFF, 0, r"", setup=stale_tmp,
         check=all_of(files_exist("out/snapshot_000002.nc"), files_absent(r".*\.nc\.tmp"))))
add(Case("output_empty_string", SMALL_DIFF, 1, r"output\.dir.*is empty", untouched=True,
         setup=populated_out, output=""))

# Keys that cannot apply: warned, the run goes on.
add(Case("boundary_on_periodic_axis", SMALL_DIFF + sets("grid.periodic=[true,false,false]"), 0,
         r"warning: diffusion\.boundary\.x_lo is ignored: grid\.periodic\[0\] is true"))
add(Case("boundary_z_on_2d", SMALL_DIFF + sets("diffusion.boundary.z_lo.type=dirichlet"), 0,
         r"warning: diffusion\.boundary\.z_lo is ignored: grid\.n\[2\] = 1"))
add(Case("kernel_3d_on_2d", SMALL_DIFF + sets("diffusion.kernel=marching"), 0,
         r"warning: diffusion\.kernel = \"marching\" is ignored: it is a 3-D kernel",
         verb="check"))
add(Case("mhd_tiled_on_2d", [MHD] + BASE + sets("grid.n=[16,16,1]", "time.steps=1",
                                                "mhd.kernel=tiled"), 0,
         r"warning: mhd\.kernel = \"tiled\" is ignored"))

# The command line (exit 2).
add(Case("set_without_equals", [DIFF, "--set", "time.dt"], 2, r"--set time\.dt: expected "
         r"path=value", untouched=True, setup=populated_out))
add(Case("set_empty_key", [DIFF, "--set", "=5"], 2, r"--set =5: expected path=value",
         untouched=True, setup=populated_out))
add(Case("set_no_value", [DIFF, "--set"], 2, r"--set needs a value", untouched=True,
         setup=populated_out, output=None))
add(Case("set_check_without_equals", [DIFF, "--set", "grid.n"], 2, r"--set grid\.n: expected",
         untouched=True, setup=populated_out, verb="check"))
add(Case("option_unknown", [DIFF, "--frobnicate"], 2, r"unknown option --frobnicate",
         untouched=True, setup=populated_out))
add(Case("run_without_config", ["--set", "time.dt=1"], 2, r"run needs a CONFIG file",
         untouched=True, setup=populated_out))
add(Case("two_configs", [DIFF, DIFF], 2, r"unexpected argument", untouched=True,
         setup=populated_out))
add(Case("output_without_value", [DIFF, "--output"], 2, r"--output needs a value",
         untouched=True, setup=populated_out, output=None))
add(Case("verb_unknown", [DIFF], 2, r"unknown command launch", untouched=True,
         setup=populated_out, verb="launch"))
add(Case("set_bad_index", [DIFF] + BASE + sets("grid.n[x]=4"), 1, r"bad array index",
         untouched=True, setup=populated_out))

# Restart files (exit 1 before anything is written).
add(Case("restart_missing", SMALL_DIFF + ["--restart", "none.nc"], 1,
         r"restart: snapshot 'none\.nc' does not exist", untouched=True, setup=populated_out))
add(Case("restart_is_directory", SMALL_DIFF + ["--restart", "out"], 1, r"restart.*'out'",
         untouched=True, setup=populated_out))
add(Case("restart_text_file", SMALL_DIFF + ["--restart", "c.json"], 1,
         r"cannot open snapshot 'c\.json'", untouched=True, setup=config("{}")))
add(Case("restart_random_bytes", SMALL_DIFF + sets("time.steps=4") + ["--restart", "restart.nc"],
         1, r"restart\.nc.*(\(H\)|'H')", untouched=True,
         setup=then(populated_out, lambda d: restart_copy(d, overwrite_middle("random")))))
add(Case("restart_ff_bytes", SMALL_DIFF + sets("time.steps=4") + ["--restart", "restart.nc"], 1,
         r"restart\.nc.*(\(H\)|'H')", untouched=True,
         setup=then(populated_out, lambda d: restart_copy(d, overwrite_middle("ff")))))
add(Case("restart_nan_valid_checksum", SMALL_DIFF + sets("time.steps=4") +
         ["--restart", "restart.nc"], 1, r"restart: 'restart\.nc': variable 'H' is not finite",
         untouched=True, setup=then(populated_out,
                                    lambda d: restart_copy(d, nan_inside_valid_file))))
add(Case("restart_truncated", SMALL_DIFF + sets("time.steps=4") + ["--restart", "restart.nc"], 1,
         r"restart\.nc", untouched=True,
         setup=then(populated_out, lambda d: restart_copy(d, lambda p: os.truncate(p, 4000)))))
add(Case("restart_other_model", SMALL_MHD + ["--restart", "restart.nc"], 1,
         r"restart\.nc|has no variable", untouched=True,
         setup=then(populated_out, lambda d: restart_copy(d))))
add(Case("restart_other_grid", SMALL_DIFF + sets("grid.n=[16,16,1]", "time.steps=4") +
         ["--restart", "restart.nc"], 1, r"variable 'H' has dims", untouched=True,
         setup=then(populated_out, lambda d: restart_copy(d))))
add(Case("restart_steps_before", SMALL_DIFF + sets("time.steps=1") +
         ["--restart", "restart.nc"], 1, r"time\.steps: 1 is before the restart's step 2",
         untouched=True, setup=then(populated_out, lambda d: restart_copy(d))))
add(Case("restart_changed_physics", SMALL_DIFF + sets("time.steps=3", "diffusion.D0=2") +
         ["--restart", "restart.nc"], 0, r"warning: restart: diffusion\.D0 was 1\.0, is now 2",
         setup=lambda d: restart_copy(d), check=files_exist("out/snapshot_000003.nc")))
add(Case("restart_2ranks_corrupt", SMALL_DIFF + sets("time.steps=4") +
         ["--restart", "restart.nc"], 1, r"restart\.nc.*(\(H\)|'H')", ranks=2, untouched=True,
         setup=then(populated_out, lambda d: restart_copy(d, overwrite_middle("ff")))))

# Numerical failure (exit 3, the last good snapshot finite; refused at start where it can be).
add(Case("mhd_fixed_dt_unstable", SMALL_MHD + sets("rk3.timestep=fixed", "time.dt=0.5",
                                                   "time.steps=40", "output.every=1"), 1,
         r"time\.dt: 0\.5 is above the stable RK3 step", untouched=True, setup=populated_out))
add(Case("mhd_fixed_dt_insisted", SMALL_MHD + sets("rk3.timestep=fixed", "time.dt=0.5",
                                                   "time.steps=40", "output.every=1",
                                                   "rk3.allow_unstable=true"), 3,
         r"field '\w+' is not finite after step \d+; " + LAST_GOOD))
add(Case("mhd_heating_overflow", SMALL_MHD + sets("mhd.heating=1e300", "output.every=1"), 3,
         r"not finite after step 1; the last good snapshot is '.*snapshot_000000\.nc'"))
add(Case("mhd_lnrho0_overflow", SMALL_MHD + sets("mhd.lnrho0=1e308", "output.every=1"), 3,
         r"not finite.*; the last good snapshot is"))
add(Case("mhd_nan_fault_1rank", SMALL_MHD + sets("time.steps=4", "output.every=1",
                                                 "debug.fault.kind=nan", "debug.fault.step=3",
                                                 "time.dt=0.01"), 3,
         r"not finite.*the last good snapshot is '.*snapshot_000002\.nc'"))
add(Case("mhd_nan_fault_2ranks", SMALL_MHD + sets("time.steps=4", "output.every=1",
                                                  "debug.fault.kind=nan", "debug.fault.rank=1",
                                                  "debug.fault.step=3", "time.dt=0.01"), 3,
         r"not finite.*the last good snapshot is '.*snapshot_000002\.nc'", ranks=2))
add(Case("mhd_nan_fault_4ranks", SMALL_MHD + sets("time.steps=3", "output.every=1",
                                                  "debug.fault.kind=nan", "debug.fault.rank=3",
                                                  "debug.fault.step=2", "time.dt=0.01"), 3,
         r"not finite.*the last good snapshot is '.*snapshot_000001\.nc'", ranks=4))
add(Case("stokes_gravity_scale_overflow", SMALL_STOKES + sets("stokes.gravity=[0,-1e300,0]",
                                                              "stokes.inclusion.density=1e300"),
         3, r"scale of the momentum_x residual is 0.*" + LAST_GOOD))
add(Case("stokes_gravity_1e160", SMALL_STOKES + sets("stokes.gravity=[0,-1e160,0]"), 0, r"",
         check=files_exist("out/snapshot_000001.nc")))
add(Case("stokes_max_iter_1", SMALL_STOKES + sets("solver.max_iter=1"), 3,
         r"not converged after 1 iterations.*" + LAST_GOOD))
add(Case("stokes_nan_fault_2ranks", SMALL_STOKES + sets("time.steps=2", "output.every=1",
                                                        "debug.fault.kind=nan",
                                                        "debug.fault.rank=1",
                                                        "debug.fault.step=2"), 3,
         r"(residual|not finite).*the last good snapshot is '.*snapshot_000001\.nc'", ranks=2))
add(Case("stokes_nan_fault_1rank", SMALL_STOKES + sets("time.steps=2", "output.every=1",
                                                       "debug.fault.kind=nan",
                                                       "debug.fault.step=2"), 3,
         r"(residual|not finite).*the last good snapshot is '.*snapshot_000001\.nc'"))
add(Case("coupled_nan_fault_2ranks", SMALL_COUPLED + sets("time.steps=2", "output.every=1",
                                                          "debug.fault.kind=nan",
                                                          "debug.fault.rank=1",
                                                          "debug.fault.step=2"), 3,
         r"the last good snapshot is '.*snapshot_000001\.nc'", ranks=2))
add(Case("mhd_walltime", SMALL_MHD + sets("time.steps=100000", "run.walltime=1"), 6,
         r"run\.walltime reached at step \d+; restart snapshot '.*snapshot_\d+\.nc'"))
add(Case("diffusion_max_iter_exact", SMALL_DIFF + sets("solver.max_iter=7", "solver.ncheck=5"),
         3, r"not converged after 7 iterations"))
add(Case("diffusion_nan_fault_1rank", SMALL_DIFF + sets("time.steps=4", "output.every=1",
                                                        "debug.fault.kind=nan",
                                                        "debug.fault.step=3"), 3,
         r"the last good snapshot is '.*snapshot_000002\.nc'"))
add(Case("diffusion_nan_fault_4ranks", SMALL_DIFF + sets("time.steps=4", "output.every=1",
                                                         "debug.fault.kind=nan",
                                                         "debug.fault.rank=2",
                                                         "debug.fault.step=3"), 3,
         r"the last good snapshot is '.*snapshot_000002\.nc'", ranks=4))
add(Case("diffusion_D0_overflow", SMALL_DIFF + sets("diffusion.D0=1e308", "output.every=1"), 3,
         r"numerical failure"))
add(Case("hydromech_nan_fault_1rank", SMALL_HYDRO + sets("time.steps=3", "output.every=1",
                                                         "debug.fault.kind=nan",
                                                         "debug.fault.step=2"), 3,
         r"the last good snapshot is '.*snapshot_000001\.nc'"))
add(Case("hydromech_nan_fault_2ranks", SMALL_HYDRO + sets("time.steps=3", "output.every=1",
                                                          "debug.fault.kind=nan",
                                                          "debug.fault.rank=1",
                                                          "debug.fault.step=2"), 3,
         r"the last good snapshot is '.*snapshot_000001\.nc'", ranks=2))
add(Case("hydromech_max_iter_1", SMALL_HYDRO + sets("solver.max_iter=1"), 3,
         r"not converged after 1 iterations"))
add(Case("coupled_buoyancy_overflow", SMALL_COUPLED + sets("hydromech.buoyancy=1e308"), 3,
         r"numerical failure"))

# MPI faults on 1, 2 and 4 ranks: never a hang, the rank named.
add(Case("stall_1rank_watchdog", SMALL_DIFF + sets("time.steps=4", "debug.fault.kind=stall",
                                                   "debug.fault.step=2",
                                                   "exchange.timeout_s=2"), 5,
         r"no progress for 2 s \(exchange\.timeout_s\) on this one-rank run"))
add(Case("stall_2ranks", SMALL_DIFF + sets("time.steps=4", "debug.fault.kind=stall",
                                           "debug.fault.rank=1", "debug.fault.step=2",
                                           "exchange.timeout_s=2"), 5,
         r"communication failure: .*(rank 1|not every rank arrived)", ranks=2))
add(Case("stall_4ranks", SMALL_DIFF + sets("time.steps=4", "debug.fault.kind=stall",
                                           "debug.fault.rank=2", "debug.fault.step=2",
                                           "exchange.timeout_s=2"), 5,
         r"communication failure: .*(rank 2|not every rank arrived)", ranks=4))
add(Case("mhd_stall_1rank_watchdog", SMALL_MHD + sets("time.steps=3", "debug.fault.kind=stall",
                                                      "debug.fault.step=2",
                                                      "exchange.timeout_s=2"), 5,
         r"no progress for 2 s"))
# The fault's own SIGKILL on one rank: the process dies by that signal and no other.
add(Case("kill_1rank", SMALL_DIFF + sets("time.steps=4", "debug.fault.kind=exit",
                                         "debug.fault.step=2"), -signal.SIGKILL,
         r"debug\.fault: rank 0 injects 'exit' before step 2"))
add(Case("kill_2ranks", SMALL_DIFF + sets("time.steps=4", "debug.fault.kind=exit",
                                          "debug.fault.rank=1", "debug.fault.step=2"),
         "nonzero", r"rank 1 .*(signal 9|Killed)", ranks=2))
add(Case("kill_4ranks", SMALL_DIFF + sets("time.steps=4", "debug.fault.kind=exit",
                                          "debug.fault.rank=3", "debug.fault.step=2"),
         "nonzero", r"rank 3 .*(signal 9|Killed)", ranks=4))
add(Case("nan_fault_diffusion_2ranks_step1", SMALL_DIFF + sets("debug.fault.kind=nan",
                                                              "debug.fault.rank=1",
                                                              "debug.fault.step=1"), 3,
         r"the last good snapshot is '.*snapshot_000000\.nc'", ranks=2))
add(Case("one_rank_bad_config_2ranks", SMALL_DIFF + sets("output.prefix="), 1,
         r"output\.prefix", ranks=2, untouched=True, setup=populated_out))

# Stopping cleanly: SIGTERM, SIGINT, run.walltime (exit 6, the restart snapshot finite).
LONG_DIFF = [DIFF] + BASE + sets("grid.n=[32,32,1]", "time.steps=100000", "log.interval=0")
# A stop within a step's solve abandons the step (diffusion and Stokes): the message says so.
ABANDONED = r"( \(step \d+ abandoned mid-solve\))?"
STOPPED = (r"stopped: (SIGTERM|SIGINT) received at step \d+" + ABANDONED +
           r"; restart snapshot '.*snapshot_\d+\.nc'")
add(Case("sigterm_1rank", LONG_DIFF, 6, STOPPED, signal_after=("step 3/", signal.SIGTERM)))
add(Case("sigint_1rank", LONG_DIFF, 6, STOPPED, signal_after=("step 3/", signal.SIGINT)))
add(Case("sigterm_mhd", SMALL_MHD + sets("time.steps=100000", "log.interval=0"), 6, STOPPED,
         signal_after=("step 2/", signal.SIGTERM)))
# A batch system signals every task (Slurm does); Open MPI's mpirun, when signalled itself,
# forwards the signal and exits with its own code 1, while the ranks stop as on 1 rank.
add(Case("sigterm_2ranks", LONG_DIFF, 6, STOPPED, ranks=2,
         signal_after=("step 3/", signal.SIGTERM)))
add(Case("sigterm_4ranks", LONG_DIFF, 6, STOPPED, ranks=4,
         signal_after=("step 3/", signal.SIGTERM)))
add(Case("sigint_2ranks", LONG_DIFF, 6, STOPPED, ranks=2,
         signal_after=("step 3/", signal.SIGINT)))
# SIGTERM to the launcher alone: Debian 12's Open MPI 4.1 mpirun ends the ranks itself (they do
# not get the signal in time to stop at a step's end; seen on every run of 2026-11-24, though
# earlier runs sometimes stopped cleanly), so what is asserted is a non-zero exit, no hang and no
# non-finite snapshot; the clean stop is promised where the ranks get the signal (cases above).
add(Case("sigterm_to_mpirun", LONG_DIFF, "nonzero", r"step \d+/100000", ranks=2,
         signal_after=("step 3/", signal.SIGTERM, "launcher")))
def restart_goes_on(d, out):
    """The restart snapshot a stopped run named continues the run (exit 0, two more steps)."""
    path = re.findall(r"restart snapshot '([^']+)'", out)[-1]
    step = int(re.search(r"_(\d+)\.nc$", path).group(1))
    r = subprocess.run([STAGHORN, "run"] + LONG_DIFF + sets(f"time.steps={step + 2}") +
                       ["--restart", path, "--output", "out"], cwd=d, env=ENV,
                       capture_output=True, text=True, timeout=TIMEOUT)
    if r.returncode != 0:
        return f"the restart from {path} failed ({r.returncode}): {r.stdout[-500:]}{r.stderr}"
    final = os.path.join(d, "out", f"snapshot_{step + 2:06d}.nc")
    return None if os.path.isfile(final) and finite(final) else f"no finite {final}"


add(Case("sigterm_then_restart", LONG_DIFF, 6, STOPPED, check=restart_goes_on,
         signal_after=("step 2/", signal.SIGTERM)))
add(Case("walltime_1rank", LONG_DIFF + sets("run.walltime=1.5"), 6,
         r"run\.walltime reached at step \d+" + ABANDONED +
         r"; restart snapshot '.*snapshot_\d+\.nc'"))
add(Case("walltime_2ranks", LONG_DIFF + sets("run.walltime=1.5"), 6,
         r"run\.walltime reached at step \d+" + ABANDONED + r"; restart snapshot", ranks=2))


# Stopping within a long implicit solve (Stokes, diffusion and coupled hydro-mechanics, one step
# whose tolerance they never reach): the step is abandoned, and the snapshot written is its start to the bit (the same data,
# to 17 digits, as the initial snapshot of a run never stopped), on 1 and 2 ranks.
NEVER_CONVERGES = sets("grid.n=[48,48,1]", "time.steps=1", "solver.tol=1e-30",
                       "solver.max_iter=100000000", "log.interval=0.2", "output.initial=false")
STOKES_INITIAL = SMALL_STOKES + sets("grid.n=[48,48,1]", "output.initial=true")
DIFF_INITIAL = [DIFF] + BASE + sets("grid.n=[48,48,1]", "time.steps=1", "output.initial=true")
COUPLED_INITIAL = SMALL_COUPLED + sets("grid.n=[48,48,1]", "output.initial=true")
HYDRO_INITIAL = SMALL_HYDRO + sets("grid.n=[48,48,1]", "time.steps=1", "output.initial=true")
MID_SOLVE = (r"stopped: SIGTERM received at step 0 \(step 1 abandoned mid-solve\); "
             r"restart snapshot '.*snapshot_000000\.nc'")


def data_of(path):
    out = subprocess.run(["ncdump", "-p", "9,17", path], capture_output=True, text=True)
    return out.stdout.split("\ndata:", 1)[-1] if out.returncode == 0 else None


def start_state_written(reference):
    """The abandoned step's snapshot holds the state at its start, as the fixture `reference` (a
    clean run) wrote it."""
    def check(d, out):
        got = data_of(os.path.join(d, "out", "snapshot_000000.nc"))
        want = data_of(os.path.join(fixture(reference, None), "snapshot_000000.nc"))
        if got is None or want is None:
            return "no snapshot_000000.nc to compare"
        return None if got == want else "the snapshot differs from the state at the step's start"
    return check


for model, argv, reference in (("stokes", SMALL_STOKES, "stokes_initial"),
                               ("diffusion", [DIFF] + BASE, "diffusion_initial"),
                               ("coupled", SMALL_COUPLED, "coupled_initial"),
                               ("hydromech", SMALL_HYDRO, "hydromech_initial")):
    for ranks in (1, 2):
        add(Case(f"sigterm_mid_solve_{model}_{ranks}rank", argv + NEVER_CONVERGES, 6, MID_SOLVE,
                 ranks=ranks, check=start_state_written(reference),
                 signal_after=("solving: iterations", signal.SIGTERM)))

# Snapshot writes that cannot fit (a full file system: a 256 KiB tmpfs of the case's own, where
# this process may mount one).
def full_fs(d):
    os.makedirs(os.path.join(d, "full"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", os.path.join(d, "full")],
                   check=True)


# ---- Bounded input: strict JSON, bounded cost, bounded messages ------------------------------

def raw(name, data):
    """A config file of raw bytes, beside a populated output directory."""
    def setup(d):
        populated_out(d)
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    return setup


def short_output(limit):
    """The run's output stays short, whatever it quotes."""
    def check(d, out):
        return None if len(out) < limit else f"the output is {len(out)} bytes long"
    return check


add(Case("json_nul_byte", ["c.json"] + BASE, 1, r"c\.json': holds a NUL byte at byte 22",
         untouched=True, setup=raw("c.json", b'{"time": {"dt": 1e-3}}\0{"time": 7}')))
add(Case("config_dev_zero", ["/dev/zero"] + BASE, 1, r"'/dev/zero': holds a NUL byte at byte 0",
         untouched=True, setup=populated_out))
add(Case("config_17_mib", ["c.json"] + BASE, 1, r"c\.json': larger than 16 MiB", untouched=True,
         setup=raw("c.json", b"{" + b" " * (17 << 20) + b"}")))
add(Case("json_nested_100000", ["c.json"] + BASE, 1,
         r"config file 'c\.json' nests objects and arrays deeper than 64 levels", untouched=True,
         setup=raw("c.json", b'{"a":' * 100000 + b"1" + b"}" * 100000)))
add(Case("set_duplicate_key", SMALL_DIFF + sets('grid={"n": [8,8,1], "n": [16,16,1]}'), 1,
         r"grid\.n: duplicate key in --set grid=", untouched=True, setup=populated_out))
add(Case("set_invalid_utf8", SMALL_DIFF + ["--set", b"output.prefix=a\xffb"], 1,
         r"--set: is not valid UTF-8", untouched=True, setup=populated_out))
add(Case("output_invalid_utf8", SMALL_DIFF, 1, r"--output: is not valid UTF-8", untouched=True,
         setup=populated_out, output=b"o\xff"))
add(Case("key_10_mb", ["c.json"] + BASE, 1, r"kkkk+\.\.\.\[1048576\d bytes\] unknown key",
         untouched=True, setup=raw("c.json", b'{"' + b"k" * (10 << 20) + b'": 1}'),
         check=short_output(4000)))
add(Case("number_100000_digits_set", SMALL_DIFF + sets("time.dt=1" + "0" * 100000), 1,
         r"time\.dt: expected a number, got \"1000+\.\.\.\[\d+ bytes\]", untouched=True,
         setup=populated_out, check=short_output(4000)))
add(Case("number_100000_digits_file", ["c.json"] + BASE, 1,
         r"number overflow parsing '1000+\.\.\.\[\d+ bytes\]", untouched=True,
         setup=raw("c.json", b'{"time": {"dt": 1' + b"0" * 100000 + b"}}"),
         check=short_output(4000)))
add(Case("errors_listed_bounded", ["c.json"] + BASE, 1, r"500 errors in the configuration:.*"
         r"\.\.\. \(441 more lines\)", untouched=True, check=short_output(20000),
         setup=raw("c.json", ("{" + ",".join(f'"k{i}": 1' for i in range(500)) + "}").encode())))

# Integers: 64-bit values are range-checked, never truncated to 32 bits.
INCLUSIONS = '{"shape":"random_inclusions","count":%d,"radius_min":%s}'
for name, count in (("2p31", 2 ** 31), ("2p32_plus_3", 2 ** 32 + 3), ("1e9", 10 ** 9)):
    add(Case(f"inclusions_count_{name}", SMALL_STOKES + phases(INCLUSIONS % (count, "0.01")), 1,
             rf"stokes\.materials\.phases\[0\]\.count: must be <= 10000, got {count}",
             untouched=True, setup=populated_out))
add(Case("ncheck_2p32", SMALL_DIFF + sets("solver.ncheck=4294967396"), 1,
         r"solver\.ncheck: must be <= 2147483647, got 4294967396", untouched=True,
         setup=populated_out))
add(Case("dims_2p32", SMALL_DIFF + sets("decomposition.dims=[4294967297,1,1]"), 1,
         r"decomposition\.dims\[0\]: must be <= 2147483647, got 4294967297", untouched=True,
         setup=populated_out))
add(Case("power_law_interval_2p32", SMALL_STOKES + sets("stokes.power_law.interval=4294967297"),
         1, r"stokes\.power_law\.interval: must be <= 2147483647", untouched=True,
         setup=populated_out))
add(Case("steps_2p62", SMALL_DIFF + sets("time.steps=4611686018427387904"), 1,
         r"time\.steps: must be <= 2147483647", untouched=True, setup=populated_out))
add(Case("integral_float_is_integer", SMALL_DIFF + sets("grid.n=[32.0,32,1]", "time.steps=2e0"),
         0, r"", check=files_exist("out/snapshot_000002.nc")))

# Random inclusions: what cannot fit is refused at once, placement has a budget.
add(Case("inclusions_volume_bound", SMALL_STOKES + phases(INCLUSIONS % (10000, "0.02")), 1,
         r"count: 10000 inclusions \(radius 0\.02 to 0\.02, gap 0\) take a volume of [0-9.]+, "
         r"more than the domain's 1: they cannot fit", untouched=True, setup=populated_out))
add(Case("inclusions_placement_budget", SMALL_STOKES + phases(INCLUSIONS % (10000, "0.004")), 1,
         r"count: placing 10000 inclusions took more than 5e\+08 distance checks",
         untouched=True, setup=populated_out))
add(Case("inclusions_10000_tiny", SMALL_STOKES + phases(INCLUSIONS % (10000, "0.0005")), 0, r"",
         check=files_exist("out/snapshot_000001.nc")))

# Coordinates.
add(Case("grid_origin_overflow", SMALL_DIFF + sets("grid.origin=[1.7e308,0,0]",
                                                   "grid.length=[1e308,1,1]"), 1,
         r"grid\.origin\[0\]: 1\.7e\+308 \+ grid\.length\[0\] 1e\+308 is beyond the largest double",
         untouched=True, setup=populated_out))

# output.prefix: the ParaView index names files in XML and HDF5 paths: a safe set only.
for name, prefix in (("ampersand", "a&b"), ("less_than", "a<b"), ("cdata_end", "a]]>b"),
                     ("colon", "a:b"), ("space", "a b"), ("non_ascii", "caf\u00e9")):
    add(Case(f"prefix_{name}", SMALL_DIFF + sets(f"output.prefix={prefix}"), 1,
             r"output\.prefix: .* contains .*: only letters, digits, '\.', '_', '\+' and '-' may "
             r"appear", untouched=True, setup=populated_out))


def index_well_formed(prefix):
    def check(d, out):
        import xml.etree.ElementTree as ET
        path = os.path.join(d, "out", prefix + ".xmf")
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as e:
            return f"{path}: {e}"
        for item in root.iter("DataItem"):
            if item.get("Format") == "HDF":
                name = item.text.strip().split(":/")[0]
                if not os.path.isfile(os.path.join(d, "out", name)):
                    return f"the index points to {name}, which is not there"
        return None
    return check


add(Case("prefix_safe_set", SMALL_DIFF + sets("output.prefix=run-1.a_b+c"), 0, r"",
         check=index_well_formed("run-1.a_b+c")))

# ---- One run per output directory ---------------------------------------------------------

HOLDERS = {}
HOLDER = """import fcntl, sys, time
f = open(sys.argv[1], "w")
fcntl.flock(f, fcntl.LOCK_EX)
f.write("pid 4242 on host elsewhere since 2026-01-01T00:00:00Z\\n")
f.flush()
print("locked", flush=True)
time.sleep(120)
"""


def locked_by_another_run(d):
    """out/ is in use: another process holds its lock (as a running staghorn would)."""
    populated_out(d)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, os.path.join(d, "out", ".staghorn.lock")],
                              stdout=subprocess.PIPE, text=True)
    holder.stdout.readline()
    HOLDERS[d] = holder


def release_lock(d):
    holder = HOLDERS.pop(d, None)
    if holder:
        holder.kill()
        holder.wait()


IN_USE = r"output\.dir: 'out' is in use by another run \(pid 4242 on host elsewhere since "


def own_snapshot(d):
    """out/ holds the diffusion fixture's step-2 snapshot, as its own run left it."""
    shutil.copy(os.path.join(fixture("diff", SMALL_DIFF), "snapshot_000002.nc"),
                os.path.join(d, "out", "snapshot_000002.nc"))


for name, extra, more_setup in (
        ("", [], None), ("_overwrite", ["--overwrite"], None),
        ("_restart", sets("time.steps=4") + ["--restart", "out/snapshot_000002.nc"], own_snapshot)):
    add(Case(f"output_in_use{name}", SMALL_DIFF + extra, 1, IN_USE, untouched=True,
             setup=then(locked_by_another_run, *([more_setup] if more_setup else [])),
             teardown=release_lock, agree=False))


def other_prefix_run(d):
    """out/ holds another run's series under another prefix, and its diagnostics."""
    os.makedirs(os.path.join(d, "out"))
    src = fixture("diff", SMALL_DIFF)
    shutil.copy(os.path.join(src, "snapshot_000002.nc"), os.path.join(d, "out", "other_000002.nc"))
    shutil.copy(os.path.join(src, "diagnostics.csv"), os.path.join(d, "out", "diagnostics.csv"))


def other_diagnostics(d):
    os.makedirs(os.path.join(d, "out"))
    shutil.copy(os.path.join(fixture("diff", SMALL_DIFF), "diagnostics.csv"),
                os.path.join(d, "out", "diagnostics.csv"))


add(Case("output_other_prefix", SMALL_DIFF, 1,
         r"'out' holds snapshots of another run \(out/other_000002\.nc\)", untouched=True,
         setup=other_prefix_run))
add(Case("output_other_diagnostics", SMALL_DIFF, 1,
         r"'out' holds the diagnostics of another run \(out/diagnostics\.csv\)", untouched=True,
         setup=other_diagnostics))
add(Case("output_other_prefix_overwrite", SMALL_DIFF + ["--overwrite"], 0, r"",
         setup=other_prefix_run, check=all_of(files_absent(r"other_000002\.nc"),
                                              files_exist("out/snapshot_000002.nc"))))
add(Case("restart_elsewhere_into_other_run", SMALL_DIFF + sets("time.steps=4") +
         ["--restart", "restart.nc"], 1, r"'out' holds snapshots of another run",
         untouched=True, setup=then(previous_run, lambda d: restart_copy(d))))

DIFF4 = SMALL_DIFF + sets("time.steps=4", "output.every=1")


def continued_run(d):
    """out/ holds a 4-step run with a snapshot every step."""
    shutil.copytree(fixture("diff4", DIFF4), os.path.join(d, "out"))


def csv_steps(d):
    with open(os.path.join(d, "out", "diagnostics.csv")) as f:
        text = f.read()
    return [int(float(r.split(",")[0])) for r in text.splitlines()[1:]] if text.endswith("\n") else None


def ends_at_step_3(d, out):
    """The earlier run's step-4 snapshot is moved aside, unlisted; rows and records end at 3."""
    if csv_steps(d) != [0, 1, 2, 3]:
        return f"diagnostics.csv has the steps {csv_steps(d)}"
    with open(os.path.join(d, "out", "snapshot.xmf")) as f:
        listed = sorted(set(re.findall(r"snapshot_\d+\.nc", f.read())))
    if listed != [f"snapshot_00000{s}.nc" for s in range(4)]:
        return f"the index lists {listed}"
    return None


add(Case("restart_in_place_ends_earlier", DIFF4 + sets("time.steps=3", "diffusion.D0=2") +
         ["--restart", "out/snapshot_000002.nc"], 0,
         r"warning: restart from step 2: 2 later snapshot\(s\) of the run it continues moved "
         r"aside \(out/snapshot_000003\.nc\.superseded, \.\.\.\)", setup=continued_run,
         check=all_of(files_absent(r"snapshot_000004\.nc"),
                      files_exist("out/snapshot_000004.nc.superseded", "out/snapshot_000003.nc"),
                      ends_at_step_3)))

# ---- Restart metadata, and what the solver carries across steps -------------------------------

def edited(pattern, replacement):
    """A restart file whose header line matching `pattern` reads `replacement` (through ncgen)."""
    def damage(path):
        cdl = subprocess.run(["ncdump", path], capture_output=True, text=True, check=True).stdout
        cdl, n = re.subn(pattern, replacement, cdl, count=1)
        assert n == 1, f"no {pattern} in {path}"
        write(path + ".cdl", cdl)
        os.remove(path)
        subprocess.run(["ncgen", "-k", "nc4", "-o", path, path + ".cdl"], check=True)
        os.remove(path + ".cdl")
    return damage


for name, pattern, value, message in (
        ("step_negative", r":staghorn_step = \d+LL ;", ":staghorn_step = -5LL ;",
         r"staghorn_step -5 is not a step \(0 to 2147483647\)"),
        ("step_2p62", r":staghorn_step = \d+LL ;", ":staghorn_step = 4611686018427387904LL ;",
         r"staghorn_step 4611686018427387904 is not a step"),
        ("time_nan", r":staghorn_time = [^;]*;", ":staghorn_time = NaN ;",
         r"staghorn_time nan is not a finite time"),
        ("time_infinite", r":staghorn_time = [^;]*;", ":staghorn_time = Infinity ;",
         r"staghorn_time inf is not a finite time"),
        ("cfl_edited", r":staghorn_carried_pt_cfl_scale = [^;]*;",
         ":staghorn_carried_pt_cfl_scale = 7. ;",
         r"carried pt_cfl_scale = 7 is not within \(0, 1\] \(an edited file\?\)"),
        ("unknown_carried", r":staghorn_carried_pt_cfl_scale = [^;]*;",
         ":staghorn_carried_pt_cfl_scale = 1. ;\n\t\t:staghorn_carried_warp = 1. ;",
         r"carries 'warp', which this model does not")):
    add(Case(f"restart_{name}", SMALL_DIFF + sets("time.steps=4") + ["--restart", "restart.nc"],
             1, r"restart: 'restart\.nc':? .*" + message, untouched=True,
             setup=then(populated_out, lambda d, p=pattern, v=value:
                        restart_copy(d, edited(p, v)))))

# A step that needs a retry (its solve diverges at solver.cfl, converges at half of it) lowers
# the pseudo-step for the steps after: a restart continues to the same bits from every snapshot
# and every stop, on 1 and 2 ranks. Small: 128^2, the retry in step 1 of 3. The case:
# 512^2, the retry in step 1 of 4 (about 3 s a run), compared with the 1-rank run of a fixture
# (results do not depend on the rank count).
RETRY = [DIFF] + BASE + sets("grid.n=[128,128,1]", "time.dt=3e-2", "time.steps=3",
                             "output.every=1")
RETRY512 = [DIFF] + BASE + sets("grid.n=[512,512,1]", "time.dt=1e-3", "time.steps=4",
                                "output.every=1")
SEPARATE = "retry512_"  # run only when asked for by name (see the usage)


def restarted_identically(argv, reference, final, ranks=1, start=None):
    """Restarting `argv` in place from the snapshot of step `start` (None: the restart snapshot
    the stopped run named) reaches the data of `reference`'s snapshot of step `final` to the bit
    (`reference`: a directory under the case's, or a fixture's name)."""
    def check(d, out):
        if start is None:
            path = re.findall(r"restart snapshot '([^']+)'", out)[-1]
        else:
            path = os.path.join("again", f"snapshot_{start:06d}.nc")
            os.makedirs(os.path.join(d, "again"))
            shutil.copy(os.path.join(reference_dir(d, reference), os.path.basename(path)),
                        os.path.join(d, path))
        where = os.path.dirname(path)
        run_argv = [STAGHORN, "run"] + argv + ["--restart", path, "--output", where]
        if ranks > 1:
            run_argv = [MPIEXEC, "--oversubscribe", "-np", str(ranks)] + run_argv
        r = subprocess.run(run_argv, cwd=d, env=ENV, capture_output=True, text=True,
                           timeout=TIMEOUT)
        if r.returncode != 0:
            return f"the restart from {path} failed ({r.returncode}): {r.stderr[-500:]}"
        name = f"snapshot_{final:06d}.nc"
        got = data_of(os.path.join(d, where, name))
        want = data_of(os.path.join(reference_dir(d, reference), name))
        return None if got is not None and got == want else f"the restart from {path} differs"
    return check


def reference_dir(d, reference):
    here = os.path.join(d, reference)
    return here if os.path.isdir(here) else fixture(reference, None)


def retried(reference, step, halved):
    """The reference run's snapshot of `step` carries the pseudo-step factor `halved`: the retry
    happened and lowered it."""
    def check(d, out):
        path = os.path.join(reference_dir(d, reference), f"snapshot_{step:06d}.nc")
        head = subprocess.run(["ncdump", "-h", path], capture_output=True, text=True).stdout
        m = re.search(r":staghorn_carried_pt_cfl_scale = ([0-9.e+-]+)", head)
        return None if m and float(m.group(1)) == halved else f"{path} carries no retried cfl"
    return check


for step in (1, 2):
    add(Case(f"retry_then_restart_from_{step}", RETRY, 0, r"",
             check=all_of(retried("out", 3, 0.5), restarted_identically(RETRY, "out", 3,
                                                                           start=step))))


def from_fixture(name, step):
    """out/ holds the snapshot of `step` of the fixture `name`."""
    def setup(d):
        os.makedirs(os.path.join(d, "out"))
        shutil.copy(os.path.join(fixture(name, None), f"snapshot_{step:06d}.nc"),
                    os.path.join(d, "out"))
    return setup


def same_data(reference, final):
    """out/'s snapshot of step `final` holds the data of the fixture `reference`'s, to the bit."""
    def check(d, out):
        name = f"snapshot_{final:06d}.nc"
        got = data_of(os.path.join(d, "out", name))
        return None if got is not None and got == data_of(os.path.join(
            fixture(reference, None), name)) else f"{name} differs from the run never restarted"
    return check


for ranks in (1, 2):
    for step in range(4):
        add(Case(f"retry512_from_{step}_{ranks}rank", RETRY512 + ["--restart",
                                                                  f"out/snapshot_{step:06d}.nc"],
                 0, r"", ranks=ranks, setup=from_fixture("retry512", step), agree=False,
                 check=all_of(retried("retry512", 4, 0.5), same_data("retry512", 4))))
    # SIGTERM in step 3's solve, SIGINT in step 2's (both abandon it), the wall time early (a
    # 2-rank CPU run, hiding off, lasts well under a second)
    for kind, extra, signal_after in (
            ("sigterm", ["log.interval=0.2"], ("step 2/", signal.SIGTERM)),
            ("sigint", ["log.interval=0.2"], ("step 1/", signal.SIGINT)),
            ("walltime", ["run.walltime=0.3"], None)):
        add(Case(f"retry512_{kind}_{ranks}rank", RETRY512 + sets(*extra), 6,
                 r"stopped: .* at step \d+", ranks=ranks, signal_after=signal_after, agree=False,
                 check=restarted_identically(RETRY512, "retry512", 4, ranks)))

# ---- Waits that MPI does not time: a peer frozen in a collective write; the one-rank watchdog -

for ranks in (1, 2):
    add(Case(f"stall_in_snapshot_write_{ranks}rank",
             SMALL_MHD + sets("time.steps=3", "output.every=1", "debug.fault.kind=stall_write",
                              f"debug.fault.rank={ranks - 1}", "debug.fault.step=2",
                              "exchange.timeout_s=2"), 5,
             r"communication failure: writing '.*snapshot_000002\.nc' did not finish within "
             r"[0-9.]+ s", ranks=ranks, check=files_absent(r"snapshot_00000[23]\.nc")))
# 20000 iterations between residual checks, no reduction for seconds: iterations are progress.
# The grid makes the solve last several timeouts on any machine (at 128^2 a fast one finished it
# before a watchdog that did not count iterations would have fired).
add(Case("watchdog_counts_iterations", [DIFF] + BASE + sets(
    "grid.n=[256,256,1]", "time.steps=1", "solver.ncheck=20000", "exchange.timeout_s=1"), 0, r"",
    check=files_exist("out/snapshot_000001.nc")))

# ---- Diagnostics that cannot be written: exit 4, the last good snapshot named, whole rows ------

def whole_rows(d, out):
    path = os.path.join(d, "out", "diagnostics.csv")
    with open(path, "rb") as f:
        text = f.read().decode()
    if not text.endswith("\n"):
        return "diagnostics.csv ends in a partial row"
    widths = {len(line.split(",")) for line in text.splitlines()}
    return None if len(widths) == 1 else "diagnostics.csv has rows of different widths"


# One rank with snapshots (each needs room for its header: the limit lets them be); two ranks
# without, under a smaller limit (only rank 0 writes the diagnostics: the job ends through it).
# Both files get a row every step; the CSV's rows are about twice diagnostics.nc's records, so
# above ~9 KB (the netCDF header's 4.5 KB) the CSV reaches the limit first.
for ranks, outputs, limit, last in ((1, ("output.every=200",), 90000, r"'.*snapshot_\d+\.nc'"),
                                    (2, ("output.every=0", "output.final=false"), 30000, "none")):
    add(Case(f"diagnostics_file_size_limit_{ranks}rank", [DIFF] + BASE + sets(
        "grid.n=[8,8,1]", "time.steps=100000", "output.initial=false",
        "output.diagnostics_every=1", "log.interval=0", *outputs), 4,
        r"cannot write '.*diagnostics\.csv': File too large; the last good snapshot is " + last,
        ranks=ranks, file_limit=("step 1/", limit), check=whole_rows))

# ---- `check` refuses what `run` refuses, and the JSON Schema says the same -------------------

add(Case("transport_nccl_on_cpu", SMALL_DIFF + sets("exchange.transport=nccl"), 1,
         r"nccl", untouched=True, setup=populated_out))
add(Case("power_law_caps_reversed", SMALL_STOKES + sets("stokes.power_law.n=3",
                                                        "stokes.power_law.eta_min=10",
                                                        "stokes.power_law.eta_max=1"), 1,
         r"stokes\.power_law\.eta_max: 1 must be above stokes\.power_law\.eta_min \(10\)",
         untouched=True, setup=populated_out))
add(Case("hydromech_zero_permeability", SMALL_HYDRO + sets("hydromech.permeability.k0=0"), 1,
         r"hydromech\.permeability\.k0: must be > 0, got 0", untouched=True, setup=populated_out))
add(Case("materials_phase_missing_key", SMALL_STOKES + phases('{"shape":"sphere"}'), 1,
         r"stokes\.materials\.phases\[0\]\.radius: needed by shape sphere", untouched=True,
         setup=populated_out))


def schema_agrees(d, out):
    """The JSON Schema holds the bounds the run checks: integers in range, the prefix's set, a
    dimensional model's units."""
    schema = json.loads(out)
    by_model = {b["if"]["anyOf"][0]["properties"]["model"]["const"] if "anyOf" in b["if"]
                else b["if"]["properties"]["model"]["const"]: b["then"] for b in schema["allOf"]}
    def props(model, *path):
        node = by_model[model]
        for key in path:
            node = node["properties"][key]
        return node

    problems = []
    if props("diffusion", "grid", "n")["items"].get("maximum") != 1073741824:
        problems.append("grid.n has no maximum of 2^30")
    if props("diffusion", "solver", "ncheck").get("maximum") != 2147483647:
        problems.append("solver.ncheck has no 32-bit maximum")
    if props("stokes", "grid", "units").get("enum") != ["m"]:
        problems.append("stokes' grid.units accepts other units than m")
    pattern = props("diffusion", "output", "prefix").get("pattern")
    if not pattern:
        return "; ".join(problems + ["output.prefix has no pattern"])
    for bad in ("", "a/b", "p" * 201, ".", "..", "a&b", "a:b", "caf\u00e9"):
        if re.search(pattern, bad):
            problems.append(f"the prefix pattern accepts {bad[:20]!r}")
    for good in ("snapshot", "run-1.a_b+c", "p" * 200):
        if not re.search(pattern, good):
            problems.append(f"the prefix pattern refuses {good[:20]!r}")
    return "; ".join(problems) or None


add(Case("json_schema_bounds", ["--json-schema"], 0, r"", verb="describe", output=None,
         check=schema_agrees, agree=False))


# ---- The exit-code table's promises, row by row ------------------------------------------------
# The exit-code table of docs/user/exit-codes.md: for each code, its "output directory" column word for word, and
# what the suite asserts of every case expecting that code (besides the case's own assertions).
# main() refuses to run when the table and this list differ.

def metrics_written(case, d, out):
    """A run that succeeded appended its metrics line."""
    if case.verb != "run" or case.output is None or "--dry-run" in case.argv:
        return None
    where = "out" if case.output is True else case.output
    path = os.path.join(d, os.fsdecode(where), "metrics.jsonl")
    return None if os.path.isfile(path) else "no metrics.jsonl"


def declared_untouched(case, d, out):
    return None if case.untouched else "a refusal must be asserted untouched (untouched=True)"


def names_last_good(case, d, out):
    return None if "the last good snapshot is" in out else "the message names no last good snapshot"


def no_tmp_and_last_good(case, d, out):
    return names_last_good(case, d, out) or files_absent(r".*\.nc\.tmp")(d, out)


def snapshots_finite(case, d, out):
    for root, _, files in os.walk(d):
        for f in files:
            if re.fullmatch(r".*_\d+\.nc", f) and not finite(os.path.join(root, f)):
                return f"{f} is not finite"
    return None


def names_restart(case, d, out):
    return None if re.search(r"restart snapshot '", out) else "no restart snapshot named"


PROMISES = {
    0: ("snapshots, diagnostics, metrics", metrics_written),
    1: ("untouched: refused before anything is written", declared_untouched),
    2: ("untouched", declared_untouched),
    3: ("every snapshot written is finite; the message names the last one (\"the last good "
        "snapshot is '...'\")", names_last_good),
    4: ("the `.tmp` removed, the last good snapshot named", no_tmp_and_last_good),
    5: ("snapshots so far kept", snapshots_finite),
    6: ("the restart snapshot added", names_restart),
}


def readme_rows():
    """{code: output-directory text} of docs/user/exit-codes.md's table."""
    with open(os.path.join(SRC, "docs", "user", "exit-codes.md")) as f:
        text = f.read()
    table = text.split("| code | meaning | output directory |", 1)[1].split("\n\n", 1)[0]
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        rows[int(cells[0])] = cells[-1]
    return rows


def promises_match_readme(cases):
    """Why the exit-code table and PROMISES differ, or which row no case asserts; [] if none."""
    rows, problems = readme_rows(), []
    for code in sorted(set(rows) | set(PROMISES)):
        said, promised = rows.get(code), PROMISES.get(code, (None,))[0]
        if said != promised:
            problems.append(f"exit {code}: the table says {said!r}, the suite asserts {promised!r}")
        elif not any(c.code == code for c in cases):
            problems.append(f"exit {code}: no case asserts the table's row")
    return problems


# ---- `check` agrees with `run` --------------------------------------------------------------------

def check_companions(cases):
    """For each run case, `check` with the same command line: the same refusal where the run is
    refused before writing (code and message), success where the run starts (whatever happens
    later). Command-line errors (exit 2) are the command's own, and cases marked agree=False
    are refused for another process's sake, not their config's."""
    out = []
    for c in cases:
        if c.verb != "run" or c.code == 2 or not c.agree:
            continue
        refused = c.untouched
        out.append(Case(f"check_{c.name}", c.argv, c.code if refused else 0,
                        c.message if refused else r"", ranks=c.ranks, untouched=True,
                        setup=c.setup, verb="check", output=c.output, teardown=c.teardown,
                        agree=False))
    return out


# ---- running ------------------------------------------------------------------------------------

def ranks_of(launcher):
    """The staghorn processes below the launcher (as a batch system signals every task)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                exe = f.read().split(b"\0")[0].decode()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == launcher and exe == STAGHORN:
            found.append(int(entry))
    return found


def command(case, d):
    argv = [STAGHORN, case.verb] + case.argv
    if case.output is not None and case.verb in ("run", "check"):
        argv += ["--output", "out" if case.output is True else case.output]
    if case.ranks > 1:
        argv = [MPIEXEC, "--oversubscribe", "-np", str(case.ranks)] + argv
    return argv


def run(case):
    try:
        return run_case(case)
    except Exception as e:  # a broken setup or check fails its case, not the suite
        return case, f"the suite itself failed: {e!r}", "", 0.0


def run_case(case):
    d = os.path.join(WORK, case.name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    if case.setup:
        case.setup(d)
    try:
        return run_started(case, d)
    finally:
        if case.teardown:
            case.teardown(d)


def run_started(case, d):
    before = tree_digest(d) if case.untouched else None
    start = time.time()
    proc = subprocess.Popen(command(case, d), cwd=d, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    out, sent = "", False
    try:
        if case.signal_after or case.file_limit:
            marker, act = case.signal_after[:2] if case.signal_after else case.file_limit
            to_launcher = case.signal_after is not None and len(case.signal_after) > 2
            for line in proc.stdout:
                out += line
                if not sent and marker in out:
                    targets = [proc.pid] if case.ranks == 1 or to_launcher else ranks_of(proc.pid)
                    for pid in targets:
                        if case.signal_after:
                            os.kill(pid, act)
                        else:
                            resource.prlimit(pid, resource.RLIMIT_FSIZE, (act, act))
                    sent = True
        rest, _ = proc.communicate(timeout=TIMEOUT)
        out += rest
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return case, f"hung (killed after {TIMEOUT} s)", out, time.time() - start
    code = proc.returncode
    problems = []
    try:
        return case, judge(case, d, code, out, before), out, time.time() - start
    finally:
        if os.path.ismount(os.path.join(d, "full")):
            subprocess.run(["umount", os.path.join(d, "full")])


def judge(case, d, code, out, before):
    problems = []
    if (code < 0 or code > 128) and case.code not in ("nonzero", code):
        problems.append(f"died by a signal (exit {code})")
    if case.code == "nonzero":
        if code == 0:
            problems.append("exit code 0")
    elif code != case.code:
        problems.append(f"exit code {code}, expected {case.code}")
    if len(out) > 1 << 20:  # a pattern could take for ever on it (and hold the other cases)
        problems.append(f"{len(out)} bytes of output")
    elif case.message and not re.search(case.message, out, re.S):
        problems.append(f"no message matching {case.message!r}")
    if case.untouched and tree_digest(d) != before:
        problems.append("the directory changed although the run was refused at start")
    for named in re.findall(r"(?:last good snapshot is|restart snapshot) '([^']+)'", out):
        path = os.path.join(d, named)
        if not os.path.isfile(path):
            problems.append(f"named snapshot {named} does not exist")
        elif not finite(path):
            problems.append(f"named snapshot {named} is not finite")
    if code == 0:  # a run that succeeded reports only finite diagnostics
        csv_path = os.path.join(d, "out", "diagnostics.csv")
        if os.path.isfile(csv_path):
            with open(csv_path) as f:
                if re.search(r"(?i)\b(nan|-?inf)\b", f.read()):
                    problems.append("diagnostics.csv holds NaN or Inf after a successful run")
    if not problems and case.code in PROMISES and case.verb != "check":
        why = PROMISES[case.code][1](case, d, out)
        if why:
            problems.append(f"exit-code table's row {case.code}: {why}")
    if not problems and case.check:
        why = case.check(d, out)
        if why:
            problems.append(why)
    return "; ".join(problems)


def add_full_cases():
    """Disk-full cases, where this process may mount a small tmpfs (root in CI)."""
    probe = os.path.join(WORK, "_mount_probe")
    os.makedirs(probe, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", probe],
                       capture_output=True)
    if r.returncode != 0:
        print("note: cannot mount a tmpfs; the disk-full cases are skipped")
        return False
    subprocess.run(["umount", probe])
    for ranks in (1, 2):
        add(Case(f"disk_full_{ranks}rank", [DIFF] + BASE + sets("grid.n=[96,96,1]",
                                                                "time.steps=8",
                                                                "output.every=1"),
                 4, r"cannot write full/out\d/snapshot_\d+\.nc: No space left on device.*" +
                 LAST_GOOD, ranks=ranks, setup=full_fs, output=f"full/out{ranks}",
                 check=files_absent(r".*\.nc\.tmp")))
    return True


def main():
    os.makedirs(WORK, exist_ok=True)
    add_full_cases()
    C.extend(check_companions(C))
    disagree = promises_match_readme(C)
    if disagree:
        print("docs/user/exit-codes.md's table and the suite differ:\n  " + "\n  ".join(disagree))
        return 1
    cases = [c for c in C if ONLY.search(c.name)] if ONLY else \
        [c for c in C if not c.name.startswith(SEPARATE)]
    names = [c.name for c in C]
    assert len(names) == len(set(names)), "duplicate case names"
    fixture("diff", SMALL_DIFF)  # made before the cases run in parallel (their checks read them)
    fixture("diff4", DIFF4)
    if any(c.name.startswith(SEPARATE) for c in cases):
        fixture("retry512", RETRY512)
    fixture("stokes_initial", STOKES_INITIAL)
    fixture("diffusion_initial", DIFF_INITIAL)
    fixture("coupled_initial", COUPLED_INITIAL)
    fixture("hydromech_initial", HYDRO_INITIAL)
    start = time.time()
    failed = []
    workers = int(os.environ.get("HOSTILE_JOBS", "2"))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for case, problem, out, seconds in pool.map(run, cases):
            print(f"{'FAIL' if problem else 'ok  '} {case.name} ({seconds:.1f} s)"
                  + (f": {problem}" if problem else ""), flush=True)
            if problem:
                failed.append(case.name)
                print("    | " + out.strip().replace("\n", "\n    | ")[-3000:])
    print(f"{len(cases) - len(failed)}/{len(cases)} cases passed in {time.time() - start:.0f} s")
    if failed:
        print("failed: " + " ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
