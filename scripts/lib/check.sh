# scripts/lib/check.sh -- what the differential checkers share (sourced by omp_diff.sh,
# tbb_diff.sh, omp_race.sh): argument checks, indented excerpts, the verdict on one run
# (exit status, then output against the reference) and the final count.
#
# The caller keeps two counters, `pass` and `fail`, and per program the strings `failed`
# (empty while the program passes) and `tolerated` (the first within-tolerance difference).

# need_dirs DIR...: exit 2 naming the first argument that is not a directory.
need_dirs() {
  local d
  for d in "$@"; do
    if [ ! -d "$d" ]; then
      echo "$0: not a directory: $d" >&2
      exit 2
    fi
  done
}

# linked SRC: the other source files of SRC's program (a library file in a subdirectory),
# named on a `corpus-link:` line of SRC relative to SRC's directory, one path per line.
linked() {
  local dir
  dir=$(dirname "$1")
  sed -n 's/.*corpus-link:[[:space:]]*\([^*]*[^*[:space:]]\).*/\1/p' "$1" | tr ' ' '\n' |
    sed -e '/^$/d' -e "s|^|$dir/|"
}

# indent FILE [MAX]: print the first MAX (default 20) lines of FILE, indented.
indent() {
  sed -n "1,${2:-20}p" "$1" | sed 's/^/    /'
}

# judge_status LABEL RC LIMIT: when RC is not 0, set `failed` to "FAIL LABEL: <why>" (a
# timeout of LIMIT seconds, a signal, an exit status) and return 1.
judge_status() {
  local label=$1 rc=$2 limit=$3 sig
  if [ "$rc" -eq 0 ]; then
    return 0
  elif [ "$rc" -eq 124 ]; then
    failed="FAIL $label: timed out after ${limit}s"
  elif [ "$rc" -gt 128 ] && sig=$(kill -l "$((rc - 128))" 2>/dev/null); then
    failed="FAIL $label: killed by SIG$sig (exit status $rc)"
  else
    failed="FAIL $label: exit status $rc"
  fi
  return 1
}

# judge_output LABEL EXPECTED OUT: compare OUT with EXPECTED through scripts/outcmp.sh
# (byte for byte, or numbers within the floating-point tolerance); on a difference set
# `failed` and return 1, on a tolerated one remember it in `tolerated`.
judge_output() {
  local label=$1 expected=$2 out=$3 msg ctx
  if ! msg=$(bash "$(dirname "${BASH_SOURCE[0]}")/../outcmp.sh" "$expected" "$out"); then
    failed="FAIL $label: $msg"
    return 1
  fi
  if [ -n "$msg" ] && [ -z "$tolerated" ]; then
    ctx=${label#* (}
    tolerated=" (${ctx%)}: $msg)"
  fi
  return 0
}

# count_program NAME: add the program to `pass` or `fail` after its runs.
count_program() {
  if [ -n "$failed" ]; then
    fail=$((fail + 1))
  else
    echo "ok   $1$tolerated"
    pass=$((pass + 1))
  fi
}

# finish: print `N passed, M failed` and exit 1 when something failed or nothing ran.
finish() {
  echo "$pass passed, $fail failed"
  if [ "$fail" -ne 0 ] || [ "$pass" -eq 0 ]; then
    exit 1
  fi
  exit 0
}
