#!/usr/bin/env python3
"""bench_cape.py -- CAPE against MPI and OpenMP on the same programs, side by side.

For matrix multiplication and prime counting (--programs to choose) at their benchmark
size (corpus/cape/programs.txt, "-": the programs' defaults), this builds

  - the sequential program corpus/mpi/NAME.c (gcc -O2),
  - the experts' versions: OpenMP corpus/cape/NAME.c (gcc -O2 -fopenmp, one node) and the
    hand-written MPI corpus/mpi/hand/NAME_mpi.c (mpicc -O2),
  - what ppo writes: `ppo -cape` of corpus/cape (mpicc -O2 -fopenmp + the CAPE runtime of
    backends/runtime/cape) and `ppo -mpi` of the sequential program (mpicc -O2),

then for each rank count N (the OpenMP version with N threads; CAPE with N nodes of
--threads threads, default 1) runs every version once per round, --reps rounds
(interleaved, so all see the same machine load), checks every output against the
sequential program's, and prints the median wall time (mpirun start-up included) of each,
the ratio CAPE / hand-written MPI, and the checkpoint figures of one CAPE run per N
(PPO_CAPE_STATS): bytes sent in checkpoints against the shared data that changed, counted
in 8-byte words (a double that changed counts 8 bytes) and in bytes (a double 0.0 -> 288.0
counts the 2 bytes of its representation that differ).

Usage:
  scripts/bench_cape.py [--programs "matmul primes"] [--np "1 2 3 4"] [--threads T]
                        [--reps R] [--size NAME=ARGS ...] [--tracking MODE] [--ppo PATH]

Exit status: 0 all runs correct; 1 a run printed something else or failed; 2 setup error.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_mpi  # noqa: E402  (the shared helpers: compile, time, find ppo)

ROOT = bench_mpi.ROOT
CAPE = ROOT / "corpus" / "cape"
MPI = ROOT / "corpus" / "mpi"
RUNTIME = ROOT / "backends" / "runtime" / "cape"


def run_ok(cmd, what):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        bench_mpi.die(f"{what} failed:\n{r.stderr}", 1)


def mpirun(np, threads, extra_env=()):
    cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(np), "-x", f"OMP_NUM_THREADS={threads}"]
    for e in extra_env:
        cmd += ["-x", e]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return cmd


def stats_line(path):
    """The `where=total` line of a PPO_CAPE_STATS file as a dict."""
    for line in Path(path).read_text().splitlines():
        if "where=total" in line:
            return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
    return {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", default="matmul primes")
    ap.add_argument("--np", default="1 2 3 4")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--size", action="append", default=[])
    ap.add_argument("--tracking", default="")
    ap.add_argument("--ppo")
    ap.add_argument("--timeout", type=float, default=600.0)
    a = ap.parse_args()
    names = a.programs.split()
    nps = [int(n) for n in a.np.split()]
    sizes = {}
    for line in (CAPE / "programs.txt").read_text().splitlines():
        w = line.split()
        if w and not w[0].startswith("#"):
            sizes[w[0]] = [] if w[2] == "-" else w[2].split(",")
    for s in a.size:
        k, v = s.split("=", 1)
        sizes[k] = v.replace(",", " ").split()
    ppo = bench_mpi.find_ppo(a.ppo)
    bad = 0
    with tempfile.TemporaryDirectory() as t:
        t = Path(t)
        (t / "seqsrc").mkdir()
        (t / "ompsrc").mkdir()
        for n in names:
            (t / "seqsrc" / f"{n}.c").write_text((MPI / f"{n}.c").read_text())
            (t / "ompsrc" / f"{n}.c").write_text((CAPE / f"{n}.c").read_text())
        run_ok([ppo, "-i", str(t / "ompsrc"), "-o", str(t / "cape"), "-cape", "-q", "--no-log"], "ppo -cape")
        run_ok([ppo, "-i", str(t / "seqsrc"), "-o", str(t / "mpi"), "-mpi", "-q", "--no-log"], "ppo -mpi")
        print(f"# ppo -cape vs hand-written MPI vs ppo -mpi vs OpenMP; {a.reps} rounds, median wall s; "
              f"CAPE nodes x {a.threads} thread(s); {os.cpu_count()} CPUs")
        print("| program | N | sequential | OpenMP (N threads) | hand MPI | ppo -mpi | ppo -cape | CAPE / hand "
              "| checkpoint B | changed words B | ratio | changed bytes | ratio |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for n in names:
            exe = {}
            exe["seq"] = t / f"{n}_seq"
            bench_mpi.compile_c("gcc", MPI / f"{n}.c", exe["seq"])
            exe["omp"] = t / f"{n}_omp"
            run_ok(["gcc", "-O2", "-fopenmp", "-o", str(exe["omp"]), str(CAPE / f"{n}.c"), "-lm"], "gcc -fopenmp")
            exe["hand"] = t / f"{n}_hand"
            bench_mpi.compile_c("mpicc", MPI / "hand" / f"{n}_mpi.c", exe["hand"])
            exe["mpi"] = t / f"{n}_mpi"
            bench_mpi.compile_c("mpicc", t / "mpi" / f"{n}.c", exe["mpi"])
            exe["cape"] = t / f"{n}_cape"
            run_ok(["mpicc", "-O2", "-fopenmp", f"-I{RUNTIME}", "-o", str(exe["cape"]), str(t / "cape" / f"{n}.c"),
                    str(RUNTIME / "cape.c"), "-lm"], "mpicc (CAPE)")
            args = sizes.get(n, [])
            _, want, err = bench_mpi.timed([str(exe["seq"])] + args, a.timeout)
            if err:
                bench_mpi.die(f"{n}: the sequential program: {err}", 1)
            seq = []
            for np in nps:
                env_t = f"OMP_NUM_THREADS={np}"
                cmds = {
                    "omp": ["env", env_t, str(exe["omp"])] + args,
                    "hand": mpirun(np, 1) + [str(exe["hand"])] + args,
                    "mpi": mpirun(np, 1) + [str(exe["mpi"])] + args,
                    "cape": mpirun(np, a.threads, [f"PPO_CAPE_TRACKING={a.tracking}"] if a.tracking else [])
                    + [str(exe["cape"])] + args,
                }
                times = {k: [] for k in cmds}
                for _ in range(a.reps):
                    if np == nps[0]:
                        dt, out, err = bench_mpi.timed([str(exe["seq"])] + args, a.timeout)
                        seq.append(dt)
                    for k, c in cmds.items():
                        dt, out, err = bench_mpi.timed(c, a.timeout)
                        if err or out != want:
                            print(f"bench_cape: {n} {k} N={np}: {err or 'output differs'}", file=sys.stderr)
                            bad += 1
                        times[k].append(dt)
                stats = t / f"{n}_{np}.stats"
                env = [f"PPO_CAPE_STATS={stats}"] + ([f"PPO_CAPE_TRACKING={a.tracking}"] if a.tracking else [])
                bench_mpi.timed(mpirun(np, a.threads, env) + [str(exe["cape"])] + args, a.timeout)
                st = stats_line(stats) if stats.exists() else {}
                med = {k: statistics.median(v) for k, v in times.items()}
                ck, ch = int(st.get("checkpoint_bytes", 0)), int(st.get("changed_bytes", 0))
                cw = int(st.get("changed_word_bytes", 0))
                ratio = f"{ck / ch:.3f}" if ch else "-"
                wratio = f"{ck / cw:.3f}" if cw else "-"
                print(f"| {n} | {np} | {statistics.median(seq):.3f} | {med['omp']:.3f} | {med['hand']:.3f} | "
                      f"{med['mpi']:.3f} | {med['cape']:.3f} | {med['cape'] / med['hand']:.2f} | {ck} | {cw} | {wratio} "
                      f"| {ch} | {ratio} |")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
