#!/usr/bin/env python3
"""Recall of ppo against the loops an expert's OpenMP version runs in parallel.

Usage:
  scripts/expert_recall.py strip EXPERT_DIR SEQ_DIR
      Copy EXPERT_DIR to SEQ_DIR (which must not exist) with every `#pragma omp` line (and its
      continuation lines) replaced by an empty line, so that line numbers do not move: the
      sequential program the expert started from, as a user of ppo would have it.

  scripts/expert_recall.py score EXPERT_DIR SEQ_DIR [--ppo PPO] [-I DIR]... [-D NAME[=V]]...
                                [--missed] [--json] [--program]
      For every `.c` file of EXPERT_DIR, find the loops under a `#pragma omp for` or
      `#pragma omp parallel for` (with `collapse(n)`, the n loops of the nest), run
      `ppo analyze --json` on the same file of SEQ_DIR, and count an expert loop as found
      when ppo parallelizes it or a loop around it (a pipelined nest, run as a doacross loop,
      counts), or when ppo keeps it sequential because it already runs inside a
      parallelized loop through a call (PPO113). Prints a line per
      file and the total; `--missed` lists each missed loop with ppo's first reason;
      `--program` analyses each file with the other files of SEQ_DIR as the rest of the
      program (`ppo analyze --program SEQ_DIR`: the functions they define are summarized, as
      batch mode does).

Works on any directory tree; nothing in it is specific to one benchmark suite.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

PRAGMA = re.compile(r"^\s*#\s*pragma\s+omp\b")
FOR_DIRECTIVE = re.compile(r"^\s*#\s*pragma\s+omp\s+(parallel\s+)?for\b")
COLLAPSE = re.compile(r"collapse\s*\(\s*(\d+)\s*\)")
FOR_LINE = re.compile(r"^\s*for\s*\(")


def in_comment(lines):
    """For each line, whether it starts inside a `/* … */` comment."""
    inside, out = False, []
    for line in lines:
        out.append(inside)
        k = 0
        while k < len(line):
            if inside:
                end = line.find("*/", k)
                if end < 0:
                    break
                inside, k = False, end + 2
            else:
                m = re.search(r'/\*|//|"', line[k:])
                if not m:
                    break
                tok, k = m.group(0), k + m.end()
                if tok == "//":
                    break
                if tok == '"':
                    close = re.search(r'(?<!\\)"', line[k:])
                    k = k + close.end() if close else len(line)
                else:
                    inside = True
    return out


def pragma_spans(lines):
    """(first, last) 0-based line indices of each `#pragma omp` directive, continuations
    included (not those inside comments)."""
    spans = []
    commented = in_comment(lines)
    i = 0
    while i < len(lines):
        if PRAGMA.match(lines[i]) and not commented[i]:
            j = i
            while lines[j].rstrip("\n").endswith("\\") and j + 1 < len(lines):
                j += 1
            spans.append((i, j))
            i = j + 1
        else:
            i += 1
    return spans


def strip(expert, seq):
    if os.path.exists(seq):
        sys.exit(f"expert_recall: {seq} exists; give a new directory")
    shutil.copytree(expert, seq, symlinks=True)
    for root, _, files in os.walk(seq):
        for name in files:
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="latin-1") as f:
                lines = f.readlines()
            for first, last in pragma_spans(lines):
                for k in range(first, last + 1):
                    lines[k] = "\n"
            with open(path, "w", encoding="latin-1") as f:
                f.writelines(lines)


def expert_loops(lines):
    """1-based line numbers of the `for` loops an expert's directives run in parallel."""
    found = []
    for first, last in pragma_spans(lines):
        text = " ".join(l.rstrip("\\\n") for l in lines[first : last + 1])
        if not FOR_DIRECTIVE.match(text):
            continue
        m = COLLAPSE.search(text)
        depth = int(m.group(1)) if m else 1
        k = last + 1
        while k < len(lines) and depth > 0:
            if FOR_LINE.match(lines[k]):
                found.append(k + 1)
                depth -= 1
            elif lines[k].strip() and not lines[k].strip().startswith(("{", "/*", "//", "*")):
                if depth and found and found[-1] < first:
                    break
            k += 1
    return found


def analyze(ppo, path, flags):
    out = subprocess.run([ppo, "analyze", "--json", *flags, path], capture_output=True, text=True)
    if out.returncode not in (0, 1) or not out.stdout.strip():
        raise RuntimeError(f"ppo analyze {path} failed: {out.stderr.strip()[:400]}")
    return json.loads(out.stdout)


def score(args):
    flags = []
    for d in args.include:
        flags += ["-I", d]
    for d in args.define:
        flags += ["-D", d]
    if args.program:
        # The other files of SEQ_DIR are the rest of the program, as in batch mode.
        flags += ["--program", args.seq]
    total_expert = total_found = 0
    rows = []
    missed = []
    for root, _, files in sorted(os.walk(args.expert)):
        for name in sorted(files):
            if not name.endswith(".c"):
                continue
            epath = os.path.join(root, name)
            rel = os.path.relpath(epath, args.expert)
            spath = os.path.join(args.seq, rel)
            with open(epath, encoding="latin-1") as f:
                wanted = expert_loops(f.readlines())
            if not wanted or not os.path.exists(spath):
                continue
            report = analyze(args.ppo, spath, flags)
            loops = {}
            by_line = {}
            for fn in report["functions"]:
                for lp in fn["loops"]:
                    loops[lp["id"]] = lp
                    by_line.setdefault(lp["line"], lp)
            found = 0
            for line in wanted:
                lp = by_line.get(line)
                hit, why = False, "no loop of ppo's at this line"
                cur = lp
                while cur is not None:
                    v = cur["parallel"]
                    if (v.get("parallelize") or v.get("pipeline")
                            or any(r["code"] == "PPO113" for r in v.get("reasons", []))):
                        hit = True
                        break
                    cur = loops.get(cur.get("parent"))
                if lp is not None and not hit:
                    rs = lp["parallel"].get("reasons", [])
                    why = f"{rs[0]['code']}: {rs[0]['message']}" if rs else (
                        "legal, not parallelized" if lp["parallel"].get("legal") else "no reason given")
                found += hit
                if not hit:
                    missed.append((rel, line, lp["id"] if lp else "?", why))
            rows.append((rel, found, len(wanted)))
            total_found += found
            total_expert += len(wanted)
    if args.json:
        print(json.dumps({"files": [{"file": r, "found": f, "expert": e} for r, f, e in rows],
                          "found": total_found, "expert": total_expert,
                          "missed": [{"file": r, "line": l, "loop": i, "why": w} for r, l, i, w in missed]},
                         indent=2))
        return
    for rel, f, e in rows:
        print(f"{rel:40} {f:4}/{e:<4}")
    pct = 100.0 * total_found / total_expert if total_expert else 0.0
    print(f"{'total':40} {total_found:4}/{total_expert:<4} ({pct:.0f} %)")
    if args.missed:
        for rel, line, lid, why in missed:
            print(f"missed {rel}:{line} {lid}: {why}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("strip")
    s.add_argument("expert")
    s.add_argument("seq")
    c = sub.add_parser("score")
    c.add_argument("expert")
    c.add_argument("seq")
    c.add_argument("--ppo", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "ppo"))
    c.add_argument("-I", dest="include", action="append", default=[])
    c.add_argument("-D", dest="define", action="append", default=[])
    c.add_argument("--missed", action="store_true")
    c.add_argument("--program", action="store_true")
    c.add_argument("--json", action="store_true")
    a = p.parse_args()
    if a.cmd == "strip":
        strip(a.expert, a.seq)
    else:
        score(a)


if __name__ == "__main__":
    main()
