//! Dependence tests between two affine array references, cheapest first: ZIV, strong /
//! weak-zero / weak-crossing SIV, GCD, Banerjee inequalities over direction vectors
//! (refined hierarchically, outer level first), then an exact integer test (integer linear
//! programming with `good_lp`/`microlp`) on what the cheap tests leave undecided.
//!
//! Directions relate the iteration of the first reference (`a`) to that of the second
//! (`b`) at each common loop level, in iteration order: `<` means `a`'s iteration comes
//! first. Distances are in values of the index: `i_b - i_a`.

use crate::deps::subscript::{ArrayRef, Nest, NestLoop, Subscript};
use crate::flow::loops::{Affine, Atom};
use crate::ir::SymId;
use serde::{Serialize, Serializer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    Lt,
    Eq,
    Gt,
}

impl Dir {
    pub const ALL: [Dir; 3] = [Dir::Lt, Dir::Eq, Dir::Gt];
    pub fn rev(self) -> Dir {
        match self {
            Dir::Lt => Dir::Gt,
            Dir::Eq => Dir::Eq,
            Dir::Gt => Dir::Lt,
        }
    }
    fn bit(self) -> u8 {
        match self {
            Dir::Lt => 1,
            Dir::Eq => 2,
            Dir::Gt => 4,
        }
    }
}

/// A set of directions at one level: `<`, `=`, `>`, `<=`, `>=`, `!=` or `*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DirSet(pub u8);

impl DirSet {
    pub fn of(d: Dir) -> DirSet {
        DirSet(d.bit())
    }
    pub fn add(&mut self, d: Dir) {
        self.0 |= d.bit();
    }
    pub fn contains(self, d: Dir) -> bool {
        self.0 & d.bit() != 0
    }
    pub fn as_str(self) -> &'static str {
        match self.0 {
            1 => "<",
            2 => "=",
            4 => ">",
            3 => "<=",
            6 => ">=",
            5 => "!=",
            7 => "*",
            _ => "",
        }
    }
}

impl Serialize for DirSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Distance at one level, `i_sink - i_source`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Distance {
    Const(i64),
    Symbolic(String),
}

impl Distance {
    pub fn neg(&self) -> Distance {
        match self {
            Distance::Const(c) => Distance::Const(-c),
            Distance::Symbolic(s) => Distance::Symbolic(format!("-({s})")),
        }
    }
    pub fn render(&self) -> String {
        match self {
            Distance::Const(c) => c.to_string(),
            Distance::Symbolic(s) => s.clone(),
        }
    }
}

/// Outcome of testing two references.
#[derive(Clone, Debug, PartialEq)]
pub enum PairTest {
    /// No dependence; the name of the test that proved it.
    Independent(&'static str),
    Dependent {
        /// Every feasible direction vector over the common levels.
        vectors: Vec<Vec<Dir>>,
        /// Per common level, when known.
        distance: Vec<Option<Distance>>,
        /// The last test that ran (`"SIV"`, `"Banerjee"`, `"ILP"`, `"none"`).
        by: &'static str,
    },
}

/// Number of leading loops shared by the two references' chains.
pub fn common_levels(a: &ArrayRef, b: &ArrayRef) -> usize {
    a.chain.iter().zip(&b.chain).take_while(|(x, y)| x == y).count()
}

const BIG: i128 = 1 << 40;

struct Dim<'r> {
    ca: &'r [i64],
    cb: &'r [i64],
    /// `rest_b - rest_a`: the equation is `Σ ca·x - Σ cb·y = rhs`.
    rhs: Affine,
}

/// Constant range of a loop's index (`None` side = unbounded).
fn range(l: &NestLoop) -> (Option<i64>, Option<i64>) {
    (l.min.as_ref().and_then(|a| a.as_const()), l.max.as_ref().and_then(|a| a.as_const()))
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

/// Test references `a` and `b` (to the same base, both with affine subscripts and the same
/// number of dimensions). `same` is true when `a` and `b` are the same reference (the
/// all-`=` vector is then not a dependence).
pub fn test_pair(nest: &Nest, a: &ArrayRef, b: &ArrayRef, same: bool) -> PairTest {
    let nl = common_levels(a, b);
    let all = || all_vectors(nl, same);
    if a.dims.len() != b.dims.len() {
        return PairTest::Dependent { vectors: all(), distance: vec![None; nl], by: "none" };
    }
    let mut dims: Vec<Dim> = Vec::with_capacity(a.dims.len());
    // A dimension a call leaves open constrains nothing: testing the others over-approximates.
    let mut open = false;
    for (da, db) in a.dims.iter().zip(&b.dims) {
        if da.is_open() || db.is_open() {
            open = true;
            continue;
        }
        match (da, db) {
            (
                Subscript::Affine { coeffs: ca, rest: ra, .. },
                Subscript::Affine { coeffs: cb, rest: rb, .. },
            ) => {
                let Some(rhs) = rb.sub(ra) else {
                    return PairTest::Dependent { vectors: all(), distance: vec![None; nl], by: "none" };
                };
                dims.push(Dim { ca, cb, rhs })
            }
            _ => return PairTest::Dependent { vectors: all(), distance: vec![None; nl], by: "none" },
        }
    }
    let loops = &nest.loops;
    // Per common level: a constant distance (in index values) imposed by a strong SIV
    // subscript, and a symbolic one.
    let mut dist: Vec<Option<Distance>> = vec![None; nl];
    let mut exact = !open;
    let mut used = vec![false; nl];
    for d in &dims {
        let na: Vec<usize> = (0..d.ca.len()).filter(|&k| d.ca[k] != 0).collect();
        let nb: Vec<usize> = (0..d.cb.len()).filter(|&k| d.cb[k] != 0).collect();
        let rc = d.rhs.as_const();
        // ZIV
        if na.is_empty() && nb.is_empty() {
            match rc {
                Some(0) => continue,
                Some(_) => return PairTest::Independent("ZIV"),
                None => {
                    exact = false;
                    continue;
                }
            }
        }
        let single = |v: &[usize]| (v.len() == 1).then(|| v[0]);
        match (single(&na), single(&nb)) {
            // Strong SIV.
            (Some(k), Some(k2)) if k == k2 && k < nl && d.ca[k] == d.cb[k] => {
                let c = d.ca[k];
                let l = &loops[a.chain[k]];
                if used[k] {
                    exact = false;
                }
                used[k] = true;
                match rc {
                    Some(r) => {
                        if r % c != 0 {
                            return PairTest::Independent("strong SIV");
                        }
                        let dd = -r / c;
                        if dd % l.step != 0 {
                            return PairTest::Independent("strong SIV");
                        }
                        if let (Some(lo), Some(hi)) = range(l) {
                            if dd.unsigned_abs() > (hi - lo).unsigned_abs() {
                                return PairTest::Independent("strong SIV");
                            }
                        } else {
                            exact = false;
                        }
                        match &dist[k] {
                            Some(Distance::Const(o)) if *o != dd => {
                                return PairTest::Independent("strong SIV")
                            }
                            _ => dist[k] = Some(Distance::Const(dd)),
                        }
                    }
                    None => {
                        exact = false;
                        let neg = d.rhs.scale(-1);
                        if let Some(neg) =
                            neg.filter(|n| n.constant % c == 0 && n.terms.iter().all(|t| t.0 % c == 0))
                        {
                            let q = Affine {
                                constant: neg.constant / c,
                                terms: neg.terms.iter().map(|(x, at)| (x / c, at.clone())).collect(),
                            };
                            if dist[k].is_none() {
                                dist[k] = Some(Distance::Symbolic(q.render()));
                            }
                        }
                    }
                }
            }
            // Weak-zero SIV: one side only.
            (Some(k), None) | (None, Some(k)) if na.len() + nb.len() == 1 => {
                exact = false;
                let (c, l) = if na.len() == 1 {
                    (d.ca[k], &loops[a.chain[k]])
                } else {
                    (-d.cb[k], &loops[b.chain[k]])
                };
                if let Some(r) = rc {
                    if r % c != 0 {
                        return PairTest::Independent("weak-zero SIV");
                    }
                    let v = r / c;
                    let (lo, hi) = range(l);
                    if lo.is_some_and(|lo| v < lo) || hi.is_some_and(|hi| v > hi) {
                        return PairTest::Independent("weak-zero SIV");
                    }
                }
            }
            // Weak-crossing SIV.
            (Some(k), Some(k2)) if k == k2 && k < nl && d.ca[k] == -d.cb[k] => {
                exact = false;
                if let Some(r) = rc {
                    let c = d.ca[k];
                    if r % c != 0 {
                        return PairTest::Independent("weak-crossing SIV");
                    }
                    let s = r / c;
                    let (lo, hi) = range(&loops[a.chain[k]]);
                    if lo.is_some_and(|lo| s < 2 * lo) || hi.is_some_and(|hi| s > 2 * hi) {
                        return PairTest::Independent("weak-crossing SIV");
                    }
                }
            }
            _ => {
                exact = false;
                if let Some(r) = rc {
                    let g = d.ca.iter().chain(d.cb.iter()).fold(0, |g, &c| gcd(g, c));
                    if g != 0 && r % g != 0 {
                        return PairTest::Independent("GCD");
                    }
                }
            }
        }
    }
    // Loops that are not counted or have symbolic bounds make Banerjee approximate.
    let chain_loops = || a.chain.iter().chain(b.chain.iter()).map(|&k| &loops[k]);
    if chain_loops()
        .any(|l| l.var.is_none() || range(l).0.is_none() || range(l).1.is_none() || l.step.abs() != 1)
    {
        exact = false;
    }
    let ilp = !exact && ilp_applicable(nest, a, b);
    if ilp && !ilp_feasible(nest, a, b, &dims, &[]) {
        return PairTest::Independent("ILP");
    }
    // Hierarchical direction vectors.
    let mut vectors = Vec::new();
    let mut prefix = Vec::with_capacity(nl);
    let mut by = if exact { "SIV" } else { "Banerjee" };
    let mut pruned_by_ilp = false;
    refine(nest, a, b, &dims, &dist, nl, ilp, &mut prefix, &mut vectors, &mut pruned_by_ilp);
    if same {
        vectors.retain(|v| v.iter().any(|&d| d != Dir::Eq));
    }
    if pruned_by_ilp {
        by = "ILP";
    }
    if vectors.is_empty() {
        return PairTest::Independent(by);
    }
    // A level where every vector says `=` has distance 0.
    for (k, dk) in dist.iter_mut().enumerate() {
        if dk.is_none() && vectors.iter().all(|v| v[k] == Dir::Eq) {
            *dk = Some(Distance::Const(0));
        }
    }
    PairTest::Dependent { vectors, distance: dist, by }
}

fn all_vectors(nl: usize, same: bool) -> Vec<Vec<Dir>> {
    let mut out = vec![Vec::new()];
    for _ in 0..nl {
        out = out.into_iter().flat_map(|v| Dir::ALL.map(|d| [v.clone(), vec![d]].concat())).collect();
    }
    if same {
        out.retain(|v| v.iter().any(|&d| d != Dir::Eq));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn refine(
    nest: &Nest,
    a: &ArrayRef,
    b: &ArrayRef,
    dims: &[Dim],
    dist: &[Option<Distance>],
    nl: usize,
    ilp: bool,
    prefix: &mut Vec<Dir>,
    out: &mut Vec<Vec<Dir>>,
    pruned_by_ilp: &mut bool,
) {
    let k = prefix.len();
    if k == nl {
        out.push(prefix.clone());
        return;
    }
    let l = &nest.loops[a.chain[k]];
    for d in Dir::ALL {
        // A constant distance fixes the direction.
        if let Some(Distance::Const(c)) = &dist[k] {
            let s = c.signum() * l.step.signum();
            let want = match s {
                1 => Dir::Lt,
                0 => Dir::Eq,
                _ => Dir::Gt,
            };
            if d != want {
                continue;
            }
        }
        prefix.push(d);
        let ok = dims.iter().all(|dm| banerjee(nest, a, b, dm, prefix, nl));
        let ok = ok
            && (!ilp || {
                let f = ilp_feasible(nest, a, b, dims, prefix);
                if !f {
                    *pruned_by_ilp = true;
                }
                f
            });
        if ok {
            refine(nest, a, b, dims, dist, nl, ilp, prefix, out, pruned_by_ilp);
        }
        prefix.pop();
    }
}

/// Index range of a loop in iteration order (the index negated for negative steps).
fn iter_range(l: &NestLoop) -> (i128, i128) {
    let (lo, hi) = range(l);
    let (lo, hi) = (lo.map_or(-BIG, |v| v as i128), hi.map_or(BIG, |v| v as i128));
    if l.step < 0 {
        (-hi, -lo)
    } else {
        (lo, hi)
    }
}

fn lin_min_max(c: i128, lo: i128, hi: i128) -> (i128, i128) {
    let (p, q) = (c * lo, c * hi);
    (p.min(q), p.max(q))
}

/// Can `Σ ca·x - Σ cb·y = rhs` hold under the directions of `prefix` (Banerjee bounds)?
fn banerjee(nest: &Nest, a: &ArrayRef, b: &ArrayRef, d: &Dim, prefix: &[Dir], nl: usize) -> bool {
    let Some(r) = d.rhs.as_const() else { return true };
    if r.unsigned_abs() >= 1 << 36 {
        return true;
    }
    let (mut lb, mut ub) = (0i128, 0i128);
    let loops = &nest.loops;
    for k in 0..d.ca.len().max(d.cb.len()) {
        let ca = d.ca.get(k).copied().unwrap_or(0) as i128;
        let cb = d.cb.get(k).copied().unwrap_or(0) as i128;
        if k < nl {
            let l = &loops[a.chain[k]];
            let sg = l.step.signum() as i128;
            let (c1, c2) = (ca * sg, cb * sg);
            let (lo, hi) = iter_range(l);
            let dir = prefix.get(k).copied();
            let (mn, mx) = match dir {
                None => {
                    let (a1, a2) = lin_min_max(c1, lo, hi);
                    let (b1, b2) = lin_min_max(-c2, lo, hi);
                    (a1 + b1, a2 + b2)
                }
                Some(Dir::Eq) => lin_min_max(c1 - c2, lo, hi),
                Some(dd) => {
                    if hi < lo + 1 {
                        return false;
                    }
                    let pts = if dd == Dir::Lt {
                        [(lo, lo + 1), (lo, hi), (hi - 1, hi)]
                    } else {
                        [(lo + 1, lo), (hi, lo), (hi, hi - 1)]
                    };
                    let vals = pts.map(|(x, y)| c1 * x - c2 * y);
                    (*vals.iter().min().unwrap(), *vals.iter().max().unwrap())
                }
            };
            lb += mn;
            ub += mx;
        } else {
            if ca != 0 {
                let (lo, hi) = iter_range(&loops[a.chain[k]]);
                let (mn, mx) = lin_min_max(ca * loops[a.chain[k]].step.signum() as i128, lo, hi);
                lb += mn;
                ub += mx;
            }
            if cb != 0 {
                let (lo, hi) = iter_range(&loops[b.chain[k]]);
                let (mn, mx) = lin_min_max(-cb * loops[b.chain[k]].step.signum() as i128, lo, hi);
                lb += mn;
                ub += mx;
            }
        }
    }
    lb <= r as i128 && r as i128 <= ub
}

/// The integer test needs small problems: at most 12 loop levels per side.
fn ilp_applicable(_nest: &Nest, a: &ArrayRef, b: &ArrayRef) -> bool {
    a.chain.len() <= 12 && b.chain.len() <= 12
}

/// Is there an integer solution of the subscript equations within the loop bounds and the
/// directions of `prefix`? Symbols (loop-invariant values such as `n`) are free integer
/// unknowns, so a "no" holds for every value they may have. Solver failures answer yes.
fn ilp_feasible(nest: &Nest, a: &ArrayRef, b: &ArrayRef, dims: &[Dim], prefix: &[Dir]) -> bool {
    // A quotient's remainder has the sign of its numerator: one problem per combination of
    // signs (few quotients), feasible when one of them is.
    let (feasible, k) = ilp_feasible_signs(nest, a, b, dims, prefix, None);
    if k == 0 || k > MAX_QUOTIENT_SPLITS {
        return feasible;
    }
    (0..1u32 << k).any(|mask| ilp_feasible_signs(nest, a, b, dims, prefix, Some(mask)).0)
}

/// Quotients beyond this many in one problem keep the sign-free remainder bounds only.
const MAX_QUOTIENT_SPLITS: usize = 3;

/// [`ilp_feasible`] with the sign of each quotient's numerator fixed by `signs` (bit `j` set:
/// the `j`-th numerator is `>= 0`, its remainder in `0..d-1`; clear: `<= 0`, remainder in
/// `-(d-1)..0`), or left open with `None`. Also returns the number of quotients.
fn ilp_feasible_signs(
    nest: &Nest,
    a: &ArrayRef,
    b: &ArrayRef,
    dims: &[Dim],
    prefix: &[Dir],
    signs: Option<u32>,
) -> (bool, usize) {
    use good_lp::{constraint, variable, Expression, ProblemVariables, SolverModel, Variable};
    let mut pv = ProblemVariables::new();
    let xs: Vec<Variable> = a.chain.iter().map(|_| pv.add(variable().integer())).collect();
    let ys: Vec<Variable> = b.chain.iter().map(|_| pv.add(variable().integer())).collect();
    let mut atoms = IlpAtoms::default();
    let mut cons = Vec::new();
    // The equalities again, as expressions equal to zero (for the Diophantine test).
    let mut eqs: Vec<Expression> = Vec::new();
    // Bounds and steps of each side's loops.
    let mut side =
        |id: usize, chain: &[usize], vs: &[Variable], pv: &mut ProblemVariables, atoms: &mut IlpAtoms| {
            for (k, &li) in chain.iter().enumerate() {
                let l = &nest.loops[li];
                let to_expr = |aff: &Affine, pv: &mut ProblemVariables, atoms: &mut IlpAtoms| {
                    affine_expr(nest, id, chain, vs, aff, pv, atoms)
                };
                let mn = l.min.as_ref().and_then(|m| to_expr(m, pv, atoms));
                let mx = l.max.as_ref().and_then(|m| to_expr(m, pv, atoms));
                if let Some(m) = &mn {
                    cons.push(constraint::geq(vs[k], m.clone()));
                }
                if let Some(m) = &mx {
                    cons.push(constraint::leq(vs[k], m.clone()));
                }
                for m in &l.lower_bounds {
                    if let Some(m) = to_expr(m, pv, atoms) {
                        cons.push(constraint::geq(vs[k], m));
                    }
                }
                for m in &l.upper_bounds {
                    if let Some(m) = to_expr(m, pv, atoms) {
                        cons.push(constraint::leq(vs[k], m));
                    }
                }
                if l.step.abs() > 1 {
                    let first = if l.step > 0 { mn } else { mx };
                    if let Some(first) = first {
                        let t = pv.add(variable().integer().min(0));
                        let first = first + (l.step as f64) * t;
                        eqs.push(vs[k] - first.clone());
                        cons.push(constraint::eq(vs[k], first));
                    }
                }
            }
        };
    side(0, &a.chain, &xs, &mut pv, &mut atoms);
    side(1, &b.chain, &ys, &mut pv, &mut atoms);
    for d in dims {
        let mut e = Expression::from(0.0);
        for (k, &c) in d.ca.iter().enumerate() {
            e += (c as f64) * xs[k];
        }
        for (k, &c) in d.cb.iter().enumerate() {
            e -= (c as f64) * ys[k];
        }
        let Some(r) = affine_expr(nest, 2, &[], &[], &d.rhs, &mut pv, &mut atoms) else {
            return (true, 0);
        };
        eqs.push(e.clone() - r.clone());
        cons.push(constraint::eq(e, r));
    }
    for (k, &d) in prefix.iter().enumerate() {
        let l = &nest.loops[a.chain[k]];
        let (x, y) = (xs[k], ys[k]);
        let d = if l.step < 0 { d.rev() } else { d };
        if d == Dir::Eq {
            eqs.push(x - y);
        }
        cons.push(match d {
            Dir::Lt => constraint::leq(x + 1.0, y),
            Dir::Eq => constraint::eq(x, y),
            Dir::Gt => constraint::geq(x, y + 1.0),
        });
    }
    let k = atoms.facts.len();
    // No integer point of the equalities alone (a parity, say): branch and bound would
    // have to enumerate the unbounded unknowns to find out.
    if !diophantine_solvable(&eqs) {
        return (false, k);
    }
    for (j, (num, q, d)) in atoms.facts.into_iter().enumerate() {
        let r = num.clone() - (d as f64) * q;
        let m = (d - 1) as f64;
        match signs.map(|s| s >> j & 1 == 1) {
            None => {
                cons.push(constraint::leq(r.clone(), m));
                cons.push(constraint::geq(r, -m));
            }
            Some(true) => {
                cons.push(constraint::geq(num, 0.0));
                cons.push(constraint::leq(r.clone(), m));
                cons.push(constraint::geq(r, 0.0));
            }
            Some(false) => {
                cons.push(constraint::leq(num, 0.0));
                cons.push(constraint::leq(r.clone(), 0.0));
                cons.push(constraint::geq(r, -m));
            }
        }
    }
    let mut m = pv.minimise(Expression::from(0.0)).using(good_lp::microlp);
    for c in cons {
        m = m.with(c);
    }
    // Branch and bound may not end on problems whose relaxation is feasible but that have
    // no integer point (parities over unbounded unknowns): past the node budget the answer
    // is "feasible", which is the safe one.
    let mut opts = microlp::SolveOptions::default();
    opts.node_limit = Some(ILP_NODE_LIMIT);
    (!matches!(m.as_inner().solve_with(opts), Err(microlp::Error::Infeasible)), k)
}

/// Branch-and-bound nodes one integer problem may use (deterministic, unlike a time limit).
const ILP_NODE_LIMIT: u64 = 2000;

/// Do the equations `e == 0` have a solution in integers (bounds ignored)? Column-style
/// Hermite elimination: unimodular column operations bring each row to one new pivot, whose
/// value must then divide what the earlier pivots leave. `true` when unsure (a coefficient
/// that is not a small integer, an overflow).
fn diophantine_solvable(eqs: &[good_lp::Expression]) -> bool {
    use good_lp::IntoAffineExpression;
    let int = |x: f64| (x.fract() == 0.0 && x.abs() < 1e15).then_some(x as i128);
    let mut vars: Vec<good_lp::Variable> = Vec::new();
    let mut a: Vec<Vec<i128>> = Vec::new();
    let mut b: Vec<i128> = Vec::new();
    for e in eqs {
        let mut row = vec![0i128; vars.len()];
        for (v, c) in e.linear_coefficients() {
            let Some(c) = int(c) else { return true };
            let k = match vars.iter().position(|&w| w == v) {
                Some(k) => k,
                None => {
                    vars.push(v);
                    row.push(0);
                    vars.len() - 1
                }
            };
            row[k] += c;
        }
        let Some(c) = int(e.constant()) else { return true };
        a.push(row);
        b.push(-c);
    }
    let n = vars.len();
    for row in &mut a {
        row.resize(n, 0);
    }
    let mut y: Vec<i128> = Vec::new();
    for r in 0..a.len() {
        let piv = y.len();
        let mut res = b[r];
        for (c, &yc) in y.iter().enumerate() {
            let Some(v) = a[r][c].checked_mul(yc).and_then(|p| res.checked_sub(p)) else { return true };
            res = v;
        }
        loop {
            let nz: Vec<usize> = (piv..n).filter(|&c| a[r][c] != 0).collect();
            if nz.len() <= 1 {
                break;
            }
            let p = *nz.iter().min_by_key(|&&c| a[r][c].abs()).unwrap();
            for &c in &nz {
                if c == p {
                    continue;
                }
                let q = a[r][c] / a[r][p];
                for row in a.iter_mut() {
                    let Some(v) = q.checked_mul(row[p]).and_then(|x| row[c].checked_sub(x)) else {
                        return true;
                    };
                    if v.abs() > 1 << 60 {
                        return true;
                    }
                    row[c] = v;
                }
            }
        }
        match (piv..n).find(|&c| a[r][c] != 0) {
            None if res != 0 => return false,
            None => {}
            Some(p) => {
                for row in a.iter_mut() {
                    row.swap(p, piv);
                }
                let g = a[r][piv];
                if res % g != 0 {
                    return false;
                }
                y.push(res / g);
            }
        }
    }
    true
}

/// The unknowns of an integer problem that stand for invariant atoms, and the facts on the
/// quotient unknowns.
#[derive(Default)]
struct IlpAtoms {
    /// `(atom, side)`: quotients of the side's loop indices get one unknown per side
    /// (`usize::MAX` for the invariant ones, shared).
    vars: Vec<((Atom, usize), good_lp::Variable)>,
    /// `(num, q, d)`: `q` is `num / d` rounded toward zero.
    facts: Vec<(good_lp::Expression, good_lp::Variable, i64)>,
}

/// An affine form over loop indices of `chain` (the side's variables `vs`, side `id`) and
/// invariant atoms (free integer unknowns). `None` when it uses a variable written in the
/// nest that is not one of the chain's indices. A quotient `num / d` of the loop bounds is
/// an unknown `q` with `num - d*q` between `-(d-1)` and `d-1`, of the sign of `num`.
fn affine_expr(
    nest: &Nest,
    id: usize,
    chain: &[usize],
    vs: &[good_lp::Variable],
    a: &Affine,
    pv: &mut good_lp::ProblemVariables,
    atoms: &mut IlpAtoms,
) -> Option<good_lp::Expression> {
    let mut e = good_lp::Expression::from(a.constant as f64);
    for (c, at) in &a.terms {
        if let Atom::Sym(s, _) = at {
            if let Some(k) = chain.iter().position(|&li| nest.loops[li].var == Some(*s)) {
                e += (*c as f64) * vs[k];
                continue;
            }
            if is_written(nest, *s) {
                return None;
            }
        }
        let quot = nest.quotients.iter().find(|q| q.atom == *at);
        let key_side = match quot {
            Some(q) if q.num.symbols().any(|s| is_written(nest, s)) => id,
            _ => usize::MAX,
        };
        let key = (at.clone(), key_side);
        let v = match atoms.vars.iter().find(|(x, _)| *x == key) {
            Some((_, v)) => *v,
            None => {
                let v = pv.add(good_lp::variable().integer());
                atoms.vars.push((key, v));
                if let Some(q) = quot {
                    let num = affine_expr(nest, id, chain, vs, &q.num, pv, atoms)?;
                    atoms.facts.push((num, v, q.d));
                }
                v
            }
        };
        e += (*c as f64) * v;
    }
    Some(e)
}

fn is_written(nest: &Nest, s: SymId) -> bool {
    nest.written.contains(&s)
}

#[cfg(test)]
mod tests {
    use super::diophantine_solvable;
    use good_lp::{variable, Expression, ProblemVariables};

    #[test]
    fn diophantine_systems() {
        let mut pv = ProblemVariables::new();
        let [x, y, z, t] = [0; 4].map(|_| pv.add(variable().integer()));
        // 2x - 2y = 1: odd = even.
        assert!(!diophantine_solvable(&[2.0 * x - 2.0 * y - 1.0]));
        // 3x + 5y = 7 has integer points.
        assert!(diophantine_solvable(&[3.0 * x + 5.0 * y - 7.0]));
        // x = 2t, y = 2z + 1, x = y: no point, though each equation alone has some.
        let eqs: Vec<Expression> = vec![x - 2.0 * t, y - 2.0 * z - 1.0, x - y];
        assert!(!diophantine_solvable(&eqs));
        // x = 2t, y = 2z, x - y = 4.
        let eqs: Vec<Expression> = vec![x - 2.0 * t, y - 2.0 * z, x - y - 4.0];
        assert!(diophantine_solvable(&eqs));
        // 6x + 4y = 2 and 3x + 2y = 1 (dependent rows); then 3x + 2y = 2 contradicts.
        assert!(diophantine_solvable(&[6.0 * x + 4.0 * y - 2.0, 3.0 * x + 2.0 * y - 1.0]));
        assert!(!diophantine_solvable(&[6.0 * x + 4.0 * y - 2.0, 3.0 * x + 2.0 * y - 2.0]));
        assert!(diophantine_solvable(&[]));
    }
}
