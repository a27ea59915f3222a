#!/usr/bin/env python3
"""bench_tuning.py -- sequential, default -omp and tuned (-omp -t) programs, side by side.

With --target mpi: default -mpi and tuned (-mpi -t --np N) programs instead, compiled with
mpicc and run with `mpirun -np N` (programs whose MPI output ppo refused are left out).

For every C program (a .c file with main) of DIR (default corpus/tuning), this

  - compiles the sequential program DIR/NAME.c (gcc -O2 -lm, no OpenMP),
  - runs `ppo -i DIR -o OUT/omp -omp` and compiles OUT/omp/NAME.c (gcc -O2 -fopenmp),
  - runs `ppo -i DIR -o OUT/tuned -omp -t` (timed: the tuning cost, its program runs
    counted from the log) and compiles OUT/tuned/NAME.c,

then runs the three executables one after the other, --reps times each (interleaved, so
that all three see the same machine load), checks that the outputs agree (numbers within a
relative 1e-9), and prints the median wall times, the ratio of the tuned time to the better
of the sequential and the default, and the speedup of the tuned over the default output.
The geometric mean of that speedup is given over the programs where the default output is
"poor" (slower than sequential, or no faster than 1.2x).

Usage:
  scripts/bench_tuning.py [DIR] [--threads N] [--reps R] [--ppo PATH] [--budget RUNS]
                          [--keep DIR] [--csv FILE] [--target omp|mpi] [--np N]

  --threads N   OMP_NUM_THREADS for the timed runs and for tuning (default: every CPU)
  --reps R      timed runs of each executable (default 5)
  --ppo PATH    the ppo binary (default: target/release/ppo, built when missing)
  --budget RUNS ppo's --tune-budget (default: ppo's)
  --keep DIR    write the outputs there instead of a temporary directory
  --target T    omp (default) or mpi
  --np N        MPI ranks (default: every CPU, at least 2)
"""
import argparse
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def has_main(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.search(r"\bmain\s*\(", text) is not None


def compile_c(src, exe, openmp, compiler="gcc"):
    cmd = [compiler, "-O2"] + (["-fopenmp"] if openmp else []) + ["-I", os.path.dirname(src), "-o", exe, src, "-lm"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{src}: does not compile:\n{r.stderr}")


def mpirun(np):
    """The mpirun command line that starts NP ranks on this machine."""
    cmd = ["mpirun"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    return cmd + (["--oversubscribe"] if np > (os.cpu_count() or 1) else []) + ["-np", str(np)]


def run(exe, env, timeout, launcher=()):
    t0 = time.perf_counter()
    r = subprocess.run(list(launcher) + [exe], capture_output=True, text=True, env=env, timeout=timeout)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{exe}: exit status {r.returncode}\n{r.stderr}")
    return dt, r.stdout


def same(a, b):
    x, y = a.split(), b.split()
    if len(x) != len(y):
        return False
    for p, q in zip(x, y):
        if p == q:
            continue
        try:
            u, v = float(p), float(q)
        except ValueError:
            return False
        if abs(u - v) > 1e-9 * max(abs(u), abs(v)):
            return False
    return True


def ppo(binary, args, env, statuses=(0,)):
    """Run ppo; STATUSES are the exit statuses accepted (1: some files had errors)."""
    t0 = time.perf_counter()
    r = subprocess.run([binary] + args, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    if r.returncode not in statuses:
        sys.exit(f"ppo {' '.join(args)} failed:\n{r.stderr}")
    return dt, r.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", nargs="?", default=os.path.join(ROOT, "corpus", "tuning"))
    ap.add_argument("--threads", type=int)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--ppo", default=os.path.join(ROOT, "target", "release", "ppo"))
    ap.add_argument("--budget", type=int)
    ap.add_argument("--keep")
    ap.add_argument("--csv")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--target", choices=["omp", "mpi"], default="omp")
    ap.add_argument("--np", type=int, default=max(2, os.cpu_count() or 1))
    a = ap.parse_args()
    mpi = a.target == "mpi"
    flag = "-" + a.target
    if not os.path.exists(a.ppo):
        subprocess.run(["cargo", "build", "--release", "-p", "cli"], cwd=ROOT, check=True)
    env = dict(os.environ)
    if a.threads:
        env["OMP_NUM_THREADS"] = str(a.threads)
    work = a.keep or tempfile.mkdtemp(prefix="ppo-bench-tuning-")
    src = os.path.abspath(a.dir)
    omp, tuned = os.path.join(work, "omp"), os.path.join(work, "tuned")
    for d in (omp, tuned):
        shutil.rmtree(d, ignore_errors=True)
    # A file the MPI target refuses is copied unchanged (exit status 1); it is left out below.
    statuses = (0, 1) if mpi else (0,)
    ppo(a.ppo, ["-q", "-i", src, "-o", omp, flag], env, statuses)
    targs = ["-i", src, "-o", tuned, flag, "-t"] + (["--np", str(a.np)] if mpi else [])
    if a.threads:
        targs += ["--threads", str(a.threads)]
    if a.budget:
        targs += ["--tune-budget", str(a.budget)]
    tune_secs, tune_log = ppo(a.ppo, targs, env, statuses)
    runs = {m.group(1): int(m.group(2)) for m in re.finditer(r"ppo: tune: (\S+): (\d+) runs", tune_log)}
    bins = os.path.join(work, "bin")
    os.makedirs(bins, exist_ok=True)
    rows = []
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        if not name.endswith(".c") or not has_main(path):
            continue
        stem = name[:-2]
        if mpi and "ppo_mpi_init" not in open(os.path.join(omp, name), encoding="utf-8", errors="replace").read():
            print(f"{name}: left out (ppo did not write an MPI program)", file=sys.stderr)
            continue
        exes = []
        for tag, s, par in (("seq", path, False), ("omp", os.path.join(omp, name), True),
                            ("tuned", os.path.join(tuned, name), True)):
            exe = os.path.join(bins, f"{stem}.{tag}")
            if mpi and par:
                compile_c(s, exe, False, "mpicc")
            else:
                compile_c(s, exe, par)
            exes.append(exe)
        launchers = [(), mpirun(a.np) if mpi else (), mpirun(a.np) if mpi else ()]
        times = [[], [], []]
        ref = None
        for _ in range(a.reps):
            for k, exe in enumerate(exes):
                dt, out = run(exe, env, a.timeout, launchers[k])
                if ref is None:
                    ref = out
                elif not same(ref, out):
                    sys.exit(f"{exe}: output differs from the sequential program's:\n{out}\nvs\n{ref}")
                times[k].append(dt)
        seq, dflt, tun = (statistics.median(t) for t in times)
        rows.append((name, seq, dflt, tun, runs.get(name, 0)))
    threads = a.threads or os.cpu_count()
    width = f"{a.np} MPI ranks" if mpi else f"{threads} threads"
    print(f"{len(rows)} programs of {src}, {width}, median of {a.reps} runs each (seconds)")
    print(f"tuning: {tune_secs:.1f} s for all programs ({sum(r[4] for r in rows)} program runs)\n")
    head = ("program", "sequential", f"default {flag}", f"{flag} -t", "tuned/best", "tuned speedup", "runs")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    poor = []
    for name, seq, dflt, tun, n in rows:
        best = min(seq, dflt)
        print(f"| {name} | {seq:.3f} | {dflt:.3f} | {tun:.3f} | {tun / best:.2f} | {dflt / tun:.2f}x | {n} |")
        if dflt > seq / 1.2:
            poor.append(dflt / tun)
    if poor:
        g = math.exp(sum(math.log(x) for x in poor) / len(poor))
        print(f"\ngeometric mean speedup of {flag} -t over {flag} where {flag} is poor ({len(poor)} programs): {g:.2f}x")
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("program,sequential,default,tuned,runs\n")
            for r in rows:
                f.write(",".join(str(x) for x in r) + "\n")
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
