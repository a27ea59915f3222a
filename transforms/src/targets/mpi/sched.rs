//! Partition formulas (SPEC.md §2), in Rust for the tests and as C for the generated code
//! ([`crate::targets::mpi::runtime`] implements the same formulas; the unit tests pin both).

use super::directives::Sched;

/// BLK: the iterations `[lo, hi)` of rank `r` among `p` for `n` iterations; the first `n % p`
/// ranks get one iteration more.
pub fn blk(n: u64, r: u64, p: u64) -> (u64, u64) {
    let (q, m) = (n / p, n % p);
    let lo = r * q + r.min(m);
    (lo, lo + q + u64::from(r < m))
}

/// CYC: the iterations of rank `r` among `p`.
pub fn cyc(n: u64, r: u64, p: u64) -> Vec<u64> {
    (r..n).step_by(p as usize).collect()
}

/// The chunk sizes a dynamic schedule hands out for `n` iterations and `p` workers, in order
/// (`None` for the static schedules).
pub fn chunks(s: Sched, n: u64, p: u64) -> Option<Vec<u64>> {
    let p = p.max(1);
    let mut out = Vec::new();
    let mut next = 0u64;
    // FSS: chunks left in the phase and their size.
    let (mut left, mut size) = (0u64, 0u64);
    // TSS: first chunk, decrement, chunks handed out.
    let f = n.div_ceil(2 * p).max(1);
    let c = (2 * n).div_ceil(f + 1);
    let d = if c > 1 { (f - 1) / (c - 1) } else { 0 };
    let mut i = 0u64;
    while next < n {
        let r = n - next;
        let k = match s {
            Sched::Blk | Sched::Cyc => return None,
            Sched::Css(k) => k,
            Sched::Gss => r.div_ceil(p),
            Sched::Fss => {
                if left == 0 {
                    size = r.div_ceil(2 * p);
                    left = p;
                }
                left -= 1;
                size
            }
            Sched::Tss => {
                let k = f.saturating_sub(i * d).max(1);
                i += 1;
                k
            }
        };
        let k = k.clamp(1, r);
        out.push(k);
        next += k;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blk_is_uneven_by_at_most_one() {
        // 10 iterations, 4 ranks: 3 3 2 2.
        let parts: Vec<(u64, u64)> = (0..4).map(|r| blk(10, r, 4)).collect();
        assert_eq!(parts, [(0, 3), (3, 6), (6, 8), (8, 10)]);
        // Fewer iterations than ranks: the last ranks get nothing.
        let parts: Vec<(u64, u64)> = (0..4).map(|r| blk(2, r, 4)).collect();
        assert_eq!(parts, [(0, 1), (1, 2), (2, 2), (2, 2)]);
        assert_eq!(blk(7, 0, 1), (0, 7));
    }

    #[test]
    fn cyc_strides_by_the_rank_count() {
        assert_eq!(cyc(10, 1, 3), [1, 4, 7]);
        assert_eq!(cyc(10, 0, 3), [0, 3, 6, 9]);
        assert!(cyc(2, 3, 4).is_empty());
    }

    #[test]
    fn self_scheduling_chunks_match_the_formulas() {
        // SPEC §2 / the DMCG paper's table 2, N = 1000, P = 4.
        assert_eq!(chunks(Sched::Css(125), 1000, 4).unwrap(), vec![125; 8]);
        assert_eq!(chunks(Sched::Css(300), 1000, 4).unwrap(), [300, 300, 300, 100]);
        assert_eq!(
            chunks(Sched::Gss, 1000, 4).unwrap(),
            [250, 188, 141, 106, 79, 59, 45, 33, 25, 19, 14, 11, 8, 6, 4, 3, 3, 2, 1, 1, 1, 1]
        );
        // FSS: half of the remaining work per phase in P equal chunks, ⌈R / 2P⌉ each
        // (the paper's table rounds the second phase, 62.5, down).
        assert_eq!(
            chunks(Sched::Fss, 1000, 4).unwrap(),
            [
                125, 125, 125, 125, 63, 63, 63, 63, 31, 31, 31, 31, 16, 16, 16, 16, 8, 8, 8, 8, 4, 4, 4, 4,
                2, 2, 2, 2, 1, 1, 1, 1
            ]
        );
        // TSS: first ⌈N / 2P⌉ = 125, C = ⌈2N / (F + 1)⌉ = 16 chunks, decrement ⌊124 / 15⌋ = 8;
        // the 13th chunk (29) is cut to the 28 iterations that remain.
        assert_eq!(
            chunks(Sched::Tss, 1000, 4).unwrap(),
            [125, 117, 109, 101, 93, 85, 77, 69, 61, 53, 45, 37, 28]
        );
        // Small cases: every schedule covers every iteration exactly once.
        for s in [Sched::Css(3), Sched::Gss, Sched::Fss, Sched::Tss] {
            for n in 0..40 {
                for p in 1..5 {
                    assert_eq!(chunks(s, n, p).unwrap().iter().sum::<u64>(), n, "{s} {n} {p}");
                }
            }
        }
        assert_eq!(chunks(Sched::Gss, 7, 3).unwrap(), [3, 2, 1, 1]);
        assert_eq!(chunks(Sched::Fss, 7, 3).unwrap(), [2, 2, 2, 1]);
        assert_eq!(chunks(Sched::Tss, 7, 3).unwrap(), [2, 2, 2, 1]);
        assert!(chunks(Sched::Blk, 7, 3).is_none());
    }
}
