#!/usr/bin/env bash
# outcmp.sh -- compare a program's output with its reference, allowing the rounding
# differences that a reordered floating-point reduction can cause.
#
# Usage: scripts/outcmp.sh EXPECTED GOT
#
# The outputs match when they are byte for byte equal, or else when they have the same
# lines and, line by line, the same text between numbers and numbers that are equal or
# close:
#   - a number is a decimal token: [-+]?(D+[.]?D*|[.]D+)([eE][-+]?D+)?  (D a digit);
#     `inf`, `nan` and everything else is text and must be equal;
#   - integer tokens (no `.`, no exponent) must be equal as written;
#   - floating-point tokens a and b are close when |a - b| <= RTOL * max(|a|, |b|)
#     (RTOL = OUTCMP_RTOL, default 1e-9), or when they differ by at most one unit in the
#     last printed digit and that unit is at most 1e-5 of the value (the value is printed
#     with 6 or more significant digits: `%.6e` rounds a sum computed in another order to
#     a neighbouring last digit).
# Both outputs must end alike (with or without a final newline).
#
# Exit status 0 when they match: silent when byte-equal, otherwise one line on stdout,
# `within tolerance: line N: expected 'X', got 'Y'` (the first such difference). Exit 1
# when they differ, with one line on stdout describing the first difference. Exit 2 on a
# usage error.
set -euo pipefail

if [ $# -ne 2 ] || [ ! -f "$1" ] || [ ! -f "$2" ]; then
  echo "usage: $0 EXPECTED GOT (two files)" >&2
  exit 2
fi
if cmp -s "$1" "$2"; then
  exit 0
fi

rc=0
msg=$(OUTCMP_RTOL=${OUTCMP_RTOL:-1e-9} awk '
function absv(x) { return x < 0 ? -x : x }
function isfloat(t) { return t ~ /[.eE]/ }
# One unit in the last printed digit of a floating-point token.
function ulp(t,   m, ex, p, frac) {
  m = t; ex = 0
  if (match(t, /[eE]/)) { m = substr(t, 1, RSTART - 1); ex = substr(t, RSTART + 1) + 0 }
  frac = 0
  p = index(m, ".")
  if (p > 0) frac = length(m) - p
  return 10 ^ (ex - frac)
}
function close_enough(a, b,   va, vb, d, s, u, ub) {
  if (!isfloat(a) || !isfloat(b)) return 0
  va = a + 0; vb = b + 0
  d = absv(va - vb)
  s = absv(va) > absv(vb) ? absv(va) : absv(vb)
  if (d <= rtol * s) return 1
  u = ulp(a); ub = ulp(b); if (ub > u) u = ub
  return u <= 1e-5 * s && d <= u * (1 + 1e-6)
}
# "" when lines x and y differ beyond the tolerance; otherwise "=" when they are equal or
# the first pair of close numbers as "X|Y".
function cmpline(x, y,   tx, ty, nx, ny, note) {
  note = "="
  while (1) {
    if (match(x, NUM)) { tx = substr(x, 1, RSTART - 1); nx = substr(x, RSTART, RLENGTH); x = substr(x, RSTART + RLENGTH) }
    else { tx = x; nx = ""; x = "" }
    if (match(y, NUM)) { ty = substr(y, 1, RSTART - 1); ny = substr(y, RSTART, RLENGTH); y = substr(y, RSTART + RLENGTH) }
    else { ty = y; ny = ""; y = "" }
    if (tx != ty) return ""
    if (nx == "" && ny == "") return note
    if (nx == "" || ny == "") return ""
    if (nx != ny) {
      if (!close_enough(nx, ny)) return ""
      if (note == "=") note = nx "|" ny
    }
  }
}
BEGIN {
  rtol = ENVIRON["OUTCMP_RTOL"] + 0
  NUM = "[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?"
}
FILENAME == ARGV[1] { e[FNR] = $0; ne = FNR; next }
{ g[FNR] = $0; ng = FNR }
END {
  n = ne > ng ? ne : ng
  for (i = 1; i <= n; i++) {
    if (i <= ne && i <= ng) {
      if (e[i] == g[i]) continue
      r = cmpline(e[i], g[i])
      if (r != "") {
        if (first == "") {
          split(r, p, "|")
          first = "line " i ": expected \047" p[1] "\047, got \047" p[2] "\047"
        }
        continue
      }
    }
    want = i <= ne ? "\047" e[i] "\047" : "<end of output>"
    got = i <= ng ? "\047" g[i] "\047" : "<end of output>"
    print "first differing line " i ": expected " want ", got " got
    exit 1
  }
  if (first != "") print "within tolerance: " first
}' "$1" "$2") || rc=$?
if [ "$rc" -ne 0 ]; then
  echo "$msg"
  exit 1
fi

# The same lines; do both end with a newline (or both not)?
last() { [ -s "$1" ] && tail -c 1 "$1" | od -An -c | tr -d ' '; }
if [ "$(last "$1")" != "$(last "$2")" ]; then
  echo "outputs differ only in the final newline"
  exit 1
fi
echo "$msg"
