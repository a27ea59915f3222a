//! The decision for one loop from its measurements: the fastest variant, but the default
//! stays unless the variant's median is [`MIN_GAIN`] better and its runs beat the default's
//! in [`SUPERIORITY`] of the pairs (the noise is the default's own spread).

use super::variant::Variant;
use analysis::codes::Code;
use serde::Serialize;

/// The smallest relative gain of the median that replaces the default.
pub const MIN_GAIN: f64 = 0.05;

/// The smallest share of (variant run, default run) pairs the variant must win to replace
/// the default (ties count half): the probability of superiority of a rank test.
pub const SUPERIORITY: f64 = 0.75;

/// What a program whose loops, as tuning decided them, measured slower as a whole than
/// the sequential program or ppo's default one runs instead: the faster of the two, with the
/// ratio of the tuned program's time to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fallback {
    Sequential(f64),
    Default(f64),
}

/// Whether the program with every loop as tuning decided (median whole-program time
/// `tuned`) measured over [`MIN_GAIN`] slower than the sequential program or ppo's default
/// one: per-loop times miss what a program pays once for running in parallel (the threads'
/// start-up, code compiled for OpenMP that runs slower on one thread) and the loops' effects
/// on each other. `None` when the tuned program holds, or a time is missing.
pub fn program_fallback(
    sequential: Option<f64>,
    default: Option<f64>,
    tuned: Option<f64>,
) -> Option<Fallback> {
    let t = tuned?;
    let best = [sequential.map(Fallback::Sequential), default.map(Fallback::Default)]
        .into_iter()
        .flatten()
        .min_by(|a, b| time(*a).total_cmp(&time(*b)))?;
    let b = time(best);
    (b > 0.0 && t > b * (1.0 + MIN_GAIN)).then(|| match best {
        Fallback::Sequential(_) => Fallback::Sequential(t / b),
        Fallback::Default(_) => Fallback::Default(t / b),
    })
}

fn time(f: Fallback) -> f64 {
    match f {
        Fallback::Sequential(t) | Fallback::Default(t) => t,
    }
}

/// The share of pairs `(a, b)` with `a < b` (ties half).
pub fn superiority(a: &[f64], b: &[f64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let mut wins = 0.0;
    for x in a {
        for y in b {
            wins += if x < y {
                1.0
            } else if x == y {
                0.5
            } else {
                0.0
            };
        }
    }
    wins / (a.len() * b.len()) as f64
}

/// The measurements of one variant of a loop: the loop's total time in each run (seconds).
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    pub variant: Variant,
    pub seconds: Vec<f64>,
    /// The variant changed the program's output (never chosen).
    pub rejected: bool,
}

/// What tuning decided for a loop, with the evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decision {
    pub variant: Variant,
    pub default: Variant,
    /// Median time of the chosen variant over the sequential one's (`None`: not measured).
    pub speedup: Option<f64>,
    /// Median time of the default over the chosen variant's.
    pub gain_over_default: Option<f64>,
    /// For the log and the report: `sequential: parallel (static ×all) measured 3.1× slower`.
    pub evidence: String,
}

pub fn median(xs: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

/// The decision for a loop whose default variant is `default`, from its measurements
/// (`None` when nothing usable was measured: the loop keeps the default).
pub fn decide(default: Variant, measured: &[Measured]) -> Option<Decision> {
    let med =
        |v: Variant| measured.iter().find(|m| m.variant == v && !m.rejected).and_then(|m| median(&m.seconds));
    let seq = med(Variant::SEQUENTIAL);
    let parallel_rejected = measured.iter().any(|m| m.rejected && m.variant.parallel);
    // A variant that changed the output disqualifies every parallel variant of the loop: the
    // race or the rounding is the loop's, not the schedule's.
    let usable: Vec<(Variant, f64)> = measured
        .iter()
        .filter(|m| !(m.rejected || parallel_rejected && m.variant.parallel))
        .filter_map(|m| median(&m.seconds).map(|t| (m.variant, t)))
        .collect();
    let &(best, best_t) = usable.iter().min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))?;
    let speedup = |t: f64| seq.filter(|_| t > 0.0).map(|s| s / t);
    if parallel_rejected {
        return Some(Decision {
            variant: Variant::SEQUENTIAL,
            default,
            speedup: Some(1.0),
            gain_over_default: None,
            evidence: format!(
                "sequential: a parallel version changed the program's output ({})",
                Code::OutputChanged
            ),
        });
    }
    let default_t = med(default);
    // A variant replaces the default only when its median is MIN_GAIN better and its runs
    // beat the default's in at least SUPERIORITY of the pairs: the spread of the default's
    // own runs is the noise (a bimodal default, fast once the threads exist and slow when
    // its region starts them, is judged by all its runs, not its best).
    let samples =
        |v: Variant| measured.iter().find(|m| m.variant == v && !m.rejected).map(|m| m.seconds.as_slice());
    let chosen = match (default_t, samples(default), samples(best)) {
        (Some(d), Some(ds), Some(bs)) if best != default => {
            if best_t < d * (1.0 - MIN_GAIN) && superiority(bs, ds) >= SUPERIORITY {
                best
            } else {
                default
            }
        }
        (Some(_), _, _) => default,
        _ => best,
    };
    let chosen_t = med(chosen).unwrap_or(best_t);
    let gain = default_t.filter(|_| chosen_t > 0.0).map(|d| d / chosen_t);
    let evidence = match (chosen.parallel, default.parallel) {
        (false, true) => match default_t.zip(seq) {
            Some((d, s)) => format!("sequential: parallel ({default}) measured {:.1}× slower", d / s),
            None => "sequential: no parallel version was measured faster".into(),
        },
        (false, false) => {
            let best_par = usable.iter().filter(|(v, _)| v.parallel).map(|&(_, t)| t).min_by(f64::total_cmp);
            match best_par.zip(seq) {
                Some((p, s)) => format!(
                    "sequential: the best parallel version measured {:.2}× the sequential time",
                    p / s
                ),
                None => "sequential: no parallel version measured".into(),
            }
        }
        (true, _) if chosen == default => match speedup(chosen_t) {
            Some(s) if s >= 1.0 => format!(
                "parallel ({chosen}): {s:.2}× faster than sequential; no variant measured faster beyond the noise"
            ),
            Some(s) => format!(
                "parallel ({chosen}) kept: measured {:.2}× the sequential time, within the noise of its runs",
                1.0 / s
            ),
            None => format!("parallel ({chosen}) kept: the sequential loop was not measured"),
        },
        (true, _) => format!(
            "parallel ({chosen}): {:.2}× faster than sequential, {:.2}× faster than the default ({default})",
            speedup(chosen_t).unwrap_or(f64::NAN),
            gain.unwrap_or(f64::NAN)
        ),
    };
    Some(Decision { variant: chosen, default, speedup: speedup(chosen_t), gain_over_default: gain, evidence })
}

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::parallel::Schedule;

    fn m(variant: Variant, seconds: &[f64]) -> Measured {
        Measured { variant, seconds: seconds.to_vec(), rejected: false }
    }

    const PAR: Variant = Variant::parallel(Schedule::Static, 0, 0);
    const DYN: Variant = Variant::parallel(Schedule::Dynamic, 1, 0);

    #[test]
    fn a_slower_parallel_default_becomes_sequential() {
        let d = decide(PAR, &[m(Variant::SEQUENTIAL, &[1.0, 1.1, 1.0]), m(PAR, &[3.0, 3.2, 3.1])]).unwrap();
        assert_eq!(d.variant, Variant::SEQUENTIAL);
        assert!(
            d.evidence.starts_with("sequential: parallel (static ×all) measured 3.1× slower"),
            "{}",
            d.evidence
        );
    }

    #[test]
    fn the_default_stays_within_the_noise() {
        let d =
            decide(PAR, &[m(Variant::SEQUENTIAL, &[2.0]), m(PAR, &[1.0, 1.2, 1.0]), m(DYN, &[0.96, 0.97])])
                .unwrap();
        assert_eq!(d.variant, PAR, "{}", d.evidence);
        let d =
            decide(PAR, &[m(Variant::SEQUENTIAL, &[2.0]), m(PAR, &[1.0, 1.02, 1.0]), m(DYN, &[0.7, 0.7])])
                .unwrap();
        assert_eq!(d.variant, DYN);
        assert!((d.gain_over_default.unwrap() - 1.0 / 0.7).abs() < 1e-9);
    }

    #[test]
    fn a_bimodal_default_is_judged_by_all_its_runs() {
        // The region that starts the threads costs milliseconds, the later ones microseconds.
        let par = [0.0026, 0.0094, 1.7e-5, 0.002, 1.5e-5, 6.5e-6];
        let seq = [6.5e-6, 4.1e-6, 4.9e-6, 4.8e-6, 6.6e-6];
        let d = decide(PAR, &[m(Variant::SEQUENTIAL, &seq), m(PAR, &par)]).unwrap();
        assert_eq!(d.variant, Variant::SEQUENTIAL, "{}", d.evidence);
        assert!((superiority(&[1.0, 2.0], &[2.0, 3.0]) - 0.875).abs() < 1e-12);
    }

    #[test]
    fn an_output_change_rules_out_every_parallel_variant() {
        let mut bad = m(DYN, &[0.5]);
        bad.rejected = true;
        let d = decide(PAR, &[m(Variant::SEQUENTIAL, &[2.0]), m(PAR, &[1.0]), bad]).unwrap();
        assert_eq!(d.variant, Variant::SEQUENTIAL);
        assert!(d.evidence.contains("PPO131"));
        assert_eq!(decide(PAR, &[]), None);
    }

    #[test]
    fn a_program_slower_as_a_whole() {
        use Fallback::*;
        assert_eq!(program_fallback(Some(1.0), Some(2.0), Some(1.5)), Some(Sequential(1.5)));
        assert_eq!(program_fallback(Some(2.0), Some(1.0), Some(1.5)), Some(Default(1.5)));
        assert_eq!(program_fallback(Some(1.0), None, Some(1.5)), Some(Sequential(1.5)));
        assert_eq!(program_fallback(Some(1.0), Some(1.0), Some(1.04)), None);
        assert_eq!(program_fallback(Some(1.0), Some(0.8), Some(0.5)), None);
        assert_eq!(program_fallback(None, None, Some(0.5)), None);
        assert_eq!(program_fallback(Some(1.0), Some(1.0), None), None);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[1.0, 2.0]), Some(1.5));
        assert_eq!(median(&[]), None);
    }
}
