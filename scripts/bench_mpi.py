#!/usr/bin/env python3
"""bench_mpi.py -- generated vs hand-written MPI programs of corpus/mpi, side by side.

For each program (default: matmul and primes, the two of the DMCG paper's tables 14-15;
--all: the six of corpus/mpi) at its benchmark size (corpus/mpi/programs.txt: the
defaults, 0.5-2 s sequentially), this compiles

  - the sequential program corpus/mpi/NAME.c (gcc -O2),
  - the hand-written MPI version corpus/mpi/hand/NAME_mpi.c (mpicc -O2),
  - the generated MPI version GEN/NAME.c (mpicc -O2), where GEN is --generated DIR, or
    what `ppo -i SRC -o GEN -mpi` writes for a copy SRC of the sequential programs
    (never for hand/, which already holds MPI programs),

then runs, for each rank count, the hand-written and the generated version one after the
other, --reps times each (interleaved, so both see the same machine load), takes the
minimum wall time of each (mpirun start-up included, as in the paper), checks that every
run printed exactly what the sequential program prints, and prints a table with the
sequential time, both MPI times, the ratio generated/hand and both speedups.

Usage:
  scripts/bench_mpi.py [--generated DIR | --hand-only] [--all | --programs "NAME ..."]
                       [--max-np N | --np "1 2 4"] [--reps R] [--size NAME=ARGS ...]
                       [--ppo PATH] [--timeout SECS] [--csv FILE]

  --hand-only     time the hand-written versions only (no generated column)
  --generated DIR take the generated programs from DIR/NAME.c instead of running ppo
  --max-np N      rank counts 1, 2, 3, 4, then every multiple of 4 up to N (default 4)
  --np LIST       exactly these rank counts
  --reps R        repetitions per measurement, the minimum is reported (default 3)
  --size NAME=ARGS  the program's arguments, comma- or space-separated (e.g. matmul=1024)
  --ppo PATH      the ppo binary (default: $PPO, else target/release/ppo, built if missing)

Exit status: 0 all runs correct; 1 a run printed something else, failed or timed out;
2 usage or setup error (e.g. ppo does not know -mpi, mpicc missing).
"""

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus" / "mpi"


def die(msg, code=2):
    print(f"bench_mpi: {msg}", file=sys.stderr)
    sys.exit(code)


def read_programs():
    """programs.txt: NAME TEST_ARGS BENCH_ARGS (comma-separated args, '-' = none)."""
    progs = {}
    for line in (CORPUS / "programs.txt").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _test, bench = line.split()[:3]
        progs[name] = [] if bench == "-" else bench.split(",")
    return progs


def nps_upto(max_np):
    v = [n for n in (1, 2, 3, 4) if n <= max_np]
    v += list(range(8, max_np + 1, 4))
    if max_np not in v:
        v.append(max_np)
    return v


def compile_c(cc, src, exe):
    r = subprocess.run([cc, "-O2", "-o", str(exe), str(src), "-lm"], capture_output=True, text=True)
    if r.returncode != 0:
        die(f"{src}: {cc} failed:\n{r.stderr}", 1)


def find_ppo(explicit):
    if explicit:
        return explicit
    if os.environ.get("PPO"):
        return os.environ["PPO"]
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    exe = target / "release" / "ppo"
    if not exe.exists():
        print("bench_mpi: building ppo (cargo build --release -p cli)", file=sys.stderr)
        r = subprocess.run(["cargo", "build", "--release", "-p", "cli"], cwd=ROOT)
        if r.returncode != 0 or not exe.exists():
            die("cannot build ppo; pass --ppo PATH")
    return str(exe)


def generate(ppo, names, tmp):
    """ppo -mpi on a copy of the sequential programs; returns the output directory."""
    src = tmp / "src"
    out = tmp / "gen"
    src.mkdir()
    for n in names:
        shutil.copy(CORPUS / f"{n}.c", src / f"{n}.c")
    r = subprocess.run([ppo, "-i", str(src), "-o", str(out), "-mpi", "-q"], capture_output=True, text=True)
    if r.returncode != 0:
        if "unexpected argument" in r.stderr and ("-m" in r.stderr or "mpi" in r.stderr):
            die(
                f"{ppo} does not know -mpi (the MPI generator is not in this build); "
                "pass --generated DIR (programs made elsewhere) or --hand-only"
            )
        die(f"ppo -mpi failed (exit {r.returncode}):\n{r.stderr}")
    return out


def timed(cmd, timeout):
    """(seconds, stdout, error or None)."""
    t0 = time.perf_counter()
    try:
        # A session of its own, so a timeout kills mpirun and every rank.
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 15)
            time.sleep(1)
            try:
                os.killpg(p.pid, 9)
            except ProcessLookupError:
                pass
            p.communicate()
            return time.perf_counter() - t0, "", f"timed out after {timeout} s"
    except OSError as e:
        return 0.0, "", str(e)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        return dt, out, f"exit status {p.returncode}: {err.strip()[-400:]}"
    return dt, out, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], usage=__doc__.split("Usage:\n")[1].split("\n\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--generated", type=Path)
    g.add_argument("--hand-only", action="store_true")
    p = ap.add_mutually_exclusive_group()
    p.add_argument("--all", action="store_true")
    p.add_argument("--programs")
    n = ap.add_mutually_exclusive_group()
    n.add_argument("--max-np", type=int, default=4)
    n.add_argument("--np")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--size", action="append", default=[])
    ap.add_argument("--ppo")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--csv", type=Path)
    a = ap.parse_args()

    progs = read_programs()
    names = list(progs) if a.all else (a.programs.split() if a.programs else ["matmul", "primes"])
    for name in names:
        if name not in progs:
            die(f"{name}: not in {CORPUS / 'programs.txt'} ({', '.join(progs)})")
    for s in a.size:
        name, _, args = s.partition("=")
        if name not in progs or not args:
            die(f"--size {s}: expected NAME=ARGS with NAME one of {', '.join(progs)}")
        progs[name] = args.replace(",", " ").split()
    try:
        nps = [int(x) for x in a.np.split()] if a.np else nps_upto(a.max_np)
    except ValueError:
        die(f"--np {a.np!r}: expected rank counts such as \"1 2 4\"")
    if not nps or min(nps) < 1 or a.reps < 1:
        die("rank counts and --reps must be at least 1")
    for tool in ("gcc", "mpicc", "mpirun"):
        if shutil.which(tool) is None:
            die(f"{tool} not found (scripts/setup.sh installs gcc and Open MPI)")

    cpus = len(os.sched_getaffinity(0))
    run_flags = ["--allow-run-as-root"] if os.geteuid() == 0 else []

    with tempfile.TemporaryDirectory(prefix="bench_mpi.") as tmpname:
        tmp = Path(tmpname)
        gen_dir = None
        if a.generated:
            gen_dir = a.generated
            for name in names:
                if not (gen_dir / f"{name}.c").is_file():
                    die(f"{gen_dir / (name + '.c')}: missing (the generated version of {name})")
        elif not a.hand_only:
            gen_dir = generate(find_ppo(a.ppo), names, tmp)

        rows = []
        bad = 0
        print(f"bench_mpi: {cpus} CPUs, {a.reps} repetitions (minimum shown), rank counts {nps}", file=sys.stderr)
        for name in names:
            args = progs[name]
            seq, hand, gen = tmp / f"{name}_seq", tmp / f"{name}_hand", tmp / f"{name}_gen"
            compile_c("gcc", CORPUS / f"{name}.c", seq)
            compile_c("mpicc", CORPUS / "hand" / f"{name}_mpi.c", hand)
            if gen_dir:
                compile_c("mpicc", gen_dir / f"{name}.c", gen)
            ref = None
            tseq = float("inf")
            for _ in range(a.reps):
                dt, out, err = timed([str(seq)] + args, a.timeout)
                if err:
                    die(f"{name}: the sequential program failed: {err}", 1)
                ref = out if ref is None else ref
                tseq = min(tseq, dt)
            print(f"bench_mpi: {name} {' '.join(args) or '(defaults)'}: sequential {tseq:.3f} s", file=sys.stderr)
            for np_ in nps:
                flags = run_flags + (["--oversubscribe"] if np_ > cpus else [])
                variants = [("hand", hand)] + ([("gen", gen)] if gen_dir else [])
                best = {v: float("inf") for v, _ in variants}
                errors = {}
                for _ in range(a.reps):
                    for v, exe in variants:
                        dt, out, err = timed(["mpirun"] + flags + ["-np", str(np_), str(exe)] + args, a.timeout)
                        if err is None and out != ref:
                            err = "output differs from the sequential program's"
                        if err:
                            errors[v] = err
                        else:
                            best[v] = min(best[v], dt)
                for v, err in errors.items():
                    bad += 1
                    print(f"bench_mpi: FAIL {name} -np {np_} ({v}): {err}", file=sys.stderr)
                th = best["hand"]
                tg = best.get("gen")
                rows.append({
                    "program": name,
                    "np": np_,
                    "seq_s": tseq,
                    "hand_s": th,
                    "gen_s": tg,
                    "gen_over_hand": (tg / th) if (tg is not None and th not in (0, float("inf"))) else None,
                    "speedup_hand": tseq / th if th not in (0, float("inf")) else None,
                    "speedup_gen": (tseq / tg) if tg not in (None, 0, float("inf")) else None,
                    "oversubscribed": np_ > cpus,
                })

    def f(x, fmt):
        return "-" if x is None or x == float("inf") else format(x, fmt)

    head = f"{'program':<11} {'np':>3} {'seq s':>8} {'hand s':>8}"
    if gen_dir:
        head += f" {'gen s':>8} {'gen/hand':>8}"
    head += f" {'speedup hand':>12}"
    if gen_dir:
        head += f" {'speedup gen':>11}"
    print(head)
    for r in rows:
        line = f"{r['program']:<11} {r['np']:>3} {f(r['seq_s'], '.3f'):>8} {f(r['hand_s'], '.3f'):>8}"
        if gen_dir:
            line += f" {f(r['gen_s'], '.3f'):>8} {f(r['gen_over_hand'], '.2f'):>8}"
        line += f" {f(r['speedup_hand'], '.2f'):>12}"
        if gen_dir:
            line += f" {f(r['speedup_gen'], '.2f'):>11}"
        if r["oversubscribed"]:
            line += f"  (oversubscribed: {cpus} CPUs)"
        print(line)
    if a.csv:
        with open(a.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()) if rows else ["program"])
            w.writeheader()
            w.writerows(rows)
    if bad:
        print(f"bench_mpi: {bad} measurement(s) failed", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
