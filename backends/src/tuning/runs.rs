//! The runs: an instrumented program (see `transforms::tuning`) run once per
//! configuration of its loops' variants, each run's per-loop times read back, and every
//! run's output compared with the sequential program's.
//!
//! Loops are mostly independent, so one run measures a variant of every loop at once: run
//! `r` of a round gives each loop its `r`-th variant. Two sequential runs come first (a
//! warm-up, whose output and that of the second tell the output's volatile tokens, such as
//! printed timings, from the checked ones). Then rounds of every variant until the budget of
//! runs allows no full round, and, with what is left, a last round between each loop's two
//! best variants and its default (successive halving). A run whose output differs makes
//! each of its parallel loops run alone in its variant to find which one changed it.

use crate::process::{self, interrupted, Limits, Outcome};
use crate::{Error, LocalBackend, Program};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use transforms::tuning::decide::{decide, median, Measured};
use transforms::tuning::variant::Variant;

/// A loop of the instrumented program: its id, the variants to measure (sequential first)
/// and the one ppo's default output runs.
#[derive(Clone, Debug)]
pub struct TuneLoop {
    pub id: u32,
    pub variants: Vec<Variant>,
    pub default: Variant,
}

/// How much to measure.
#[derive(Clone, Debug)]
pub struct LearnOptions<'a> {
    /// Program runs at most (the culprit search after an output change may add a few).
    pub budget: usize,
    pub args: Vec<String>,
    /// End with [`VALIDATION_ROUNDS`] rounds of whole-program runs — all sequential, every
    /// loop in its default, every loop in the variant [`decide`] picks from the
    /// measurements — for `-t` to compare the programs as wholes (reserved from the budget).
    pub validate: bool,
    /// The sequential build of the program (compiled without OpenMP), which the validation
    /// runs as its sequential program; without it, or when its output differs, the
    /// instrumented build with every loop sequential (which loads the OpenMP runtime: on a
    /// program of a few milliseconds, a few milliseconds more).
    pub sequential: Option<Launch<'a>>,
}

/// The rounds of whole-program runs (sequential, default, tuned) that end a validated
/// learning.
pub const VALIDATION_ROUNDS: usize = 3;

/// One loop's figures in one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sample {
    /// Total time in the loop (seconds).
    pub total: f64,
    pub calls: u64,
    pub nested: u64,
    /// Iterations run by the loop's sequential copy (0 when it ran in parallel).
    pub trips: u64,
    /// The first invocations' times.
    pub per_call: Vec<f64>,
}

/// A variant of a loop over the runs.
#[derive(Clone, Debug, PartialEq)]
pub struct VariantRuns {
    pub variant: Variant,
    pub samples: Vec<Sample>,
    /// False when a run with this variant changed the output (and it alone did).
    pub output_ok: bool,
}

/// What learning measured.
#[derive(Clone, Debug, Default)]
pub struct Learned {
    pub loops: BTreeMap<u32, Vec<VariantRuns>>,
    /// Program runs made.
    pub runs: usize,
    /// Whole-program times of the all-sequential runs (of the sequential build when the
    /// validation ran it) and of the all-default runs.
    pub sequential_seconds: Vec<f64>,
    pub default_seconds: Vec<f64>,
    /// Whole-program times of the validation runs, every loop in its decided variant (empty
    /// without validation, or when every loop was decided sequential).
    pub tuned_seconds: Vec<f64>,
    /// Stopped by Ctrl-C: what was measured until then.
    pub interrupted: bool,
    /// The outputs of two sequential runs differ in length: only exit statuses were checked.
    pub unchecked_output: bool,
    /// Loops with a variant that changed the output: sequential in the later runs.
    pub banned: std::collections::BTreeSet<u32>,
    /// The whole-program time of the last run whose output was checked equal.
    last_seconds: f64,
    /// Validation runs: whole-program times only (the loops' figures are not recorded, so
    /// that the decisions drawn later are the ones validated).
    validating: bool,
    /// The validation's runs of the sequential build, and whether one of them failed or
    /// printed another output (then the instrumented build stands for it).
    plain_seconds: Vec<f64>,
    pub plain_rejected: bool,
}

impl Learned {
    /// The runs of loop `id` in variant `v` (new and empty the first time).
    pub fn variant_mut(&mut self, id: u32, v: Variant) -> &mut VariantRuns {
        let list = self.loops.entry(id).or_default();
        if let Some(i) = list.iter().position(|x| x.variant == v) {
            return &mut list[i];
        }
        list.push(VariantRuns { variant: v, samples: Vec::new(), output_ok: true });
        list.last_mut().expect("pushed")
    }
}

/// The per-loop lines the runtime header appends to `PPO_TUNE_OUT` (one per translation
/// unit that ran the loop; summed).
pub fn parse_measurements(text: &str) -> BTreeMap<u32, Sample> {
    let mut out: BTreeMap<u32, Sample> = BTreeMap::new();
    for line in text.lines() {
        let mut f = line.split_whitespace();
        if f.next() != Some("loop") {
            continue;
        }
        let nums: Vec<&str> = f.collect();
        let (Some(id), Some(calls), Some(nested), Some(total)) = (
            nums.first().and_then(|s| s.parse::<u32>().ok()),
            nums.get(1).and_then(|s| s.parse::<u64>().ok()),
            nums.get(2).and_then(|s| s.parse::<u64>().ok()),
            nums.get(3).and_then(|s| s.parse::<f64>().ok()),
        ) else {
            continue;
        };
        let s = out.entry(id).or_default();
        s.total += total;
        s.calls += calls;
        s.nested += nested;
        s.trips += nums.get(6).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
        s.per_call.extend(nums.iter().skip(7).filter_map(|x| x.parse::<f64>().ok()));
    }
    out
}

/// Lines that report time or speed (`Time in seconds = 0.52`, `Mop/s total = 410.3`): their
/// numbers differ between runs and between variants by design, and are not compared.
fn timing_line(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    ["time", "second", "secs", "elapsed", "mop/s", "mflop", "gflop", "wall", "clock", "throughput", "/s "]
        .iter()
        .any(|w| l.contains(w))
}

/// Whether `got` is the reference output: line by line the same words, numbers equal within
/// a relative 1e-6 (a reduction's rounding), except the words that differ between the two
/// sequential runs `a` and `b`, the numbers of lines that report times, and numbers that are
/// rounding noise (below 1e-9 of the reference's largest number) in both outputs.
pub fn same_output(a: &str, b: &str, got: &str) -> bool {
    let (la, lb, lg): (Vec<&str>, Vec<&str>, Vec<&str>) =
        (a.lines().collect(), b.lines().collect(), got.lines().collect());
    if la.len() != lg.len() {
        return la.len() != lb.len();
    }
    let num = |s: &str| s.trim_matches(|c: char| ",;:()[]=".contains(c)).parse::<f64>().ok();
    // Rounding noise: numbers below 1e-9 of the largest number of the reference (outside
    // the timing lines) are residuals and errors of the order of the rounding (an iterative
    // solver's `||r|| = 2.3e-15`), which any change of summation order changes.
    let scale = la
        .iter()
        .filter(|l| !timing_line(l))
        .flat_map(|l| l.split_whitespace().filter_map(num))
        .filter(|x| x.is_finite())
        .fold(0.0_f64, |m, x| m.max(x.abs()));
    let noise = 1e-9 * scale;
    la.iter().enumerate().all(|(i, line)| {
        let (ta, tg): (Vec<&str>, Vec<&str>) =
            (line.split_whitespace().collect(), lg[i].split_whitespace().collect());
        let tb: Vec<&str> = lb.get(i).map(|l| l.split_whitespace().collect()).unwrap_or_default();
        if ta.len() != tg.len() {
            // A line whose length varies between sequential runs is not checked.
            return ta.len() != tb.len();
        }
        let timing = timing_line(line);
        ta.iter().zip(&tg).enumerate().all(|(k, (x, y))| {
            x == y
                || tb.get(k).is_some_and(|z| z != x)
                || match (num(x), num(y)) {
                    (Some(_), Some(_)) if timing => true,
                    (Some(p), Some(q)) => {
                        (p - q).abs() <= 1e-6 * p.abs().max(q.abs())
                            || (p.abs() < noise && q.abs() < noise)
                            || (p.is_nan() && q.is_nan())
                    }
                    _ => false,
                }
        })
    })
}

/// How a program of an instrumented build starts.
#[derive(Clone, Copy, Debug)]
pub enum Launch<'a> {
    /// An executable ppo compiled (with the run's arguments), in a temporary directory.
    Exe(&'a Program),
    /// The user's command (`--run`), through `sh -c`, in the build tree `dir`.
    Shell { command: &'a str, dir: &'a Path },
}

impl Launch<'_> {
    /// The program's name in messages.
    pub fn name(&self) -> String {
        match self {
            Launch::Exe(p) => p.source.display().to_string(),
            Launch::Shell { command, .. } => format!("`{command}`"),
        }
    }
}

struct Runner<'a> {
    backend: &'a LocalBackend,
    program: Launch<'a>,
    dir: tempfile::TempDir,
    args: &'a [String],
}

struct RunResult {
    ok: bool,
    stdout: String,
    seconds: f64,
    loops: BTreeMap<u32, Sample>,
    outcome: Outcome,
    stderr: String,
}

impl Runner<'_> {
    fn run(&self, config: &BTreeMap<u32, Variant>) -> Result<RunResult, Error> {
        let io = |file: &Path, e| Error::Io { file: file.to_path_buf(), source: e };
        let cfg = self.dir.path().join("ppo_tune.config");
        let out = self.dir.path().join("ppo_tune.out");
        let mut text = String::new();
        for (id, v) in config {
            text.push_str(&format!(
                "{id} {} {} {} {} {} {}\n",
                u8::from(v.parallel),
                v.omp_kind(),
                v.chunk,
                v.threads,
                v.collapse,
                v.level
            ));
        }
        std::fs::write(&cfg, text).map_err(|e| io(&cfg, e))?;
        let _ = std::fs::remove_file(&out);
        let work = self.dir.path().join("cwd");
        std::fs::create_dir_all(&work).map_err(|e| io(&work, e))?;
        let mut cmd = match self.program {
            Launch::Exe(p) => {
                let mut c = Command::new(&p.exe);
                c.args(self.args).current_dir(&work);
                c
            }
            Launch::Shell { command, dir } => {
                let mut c = Command::new("sh");
                c.arg("-c").arg(command).current_dir(dir);
                c
            }
        };
        cmd.env("PPO_TUNE_CONFIG", &cfg).env("PPO_TUNE_OUT", &out);
        if let Some(n) = self.backend.threads {
            cmd.env("OMP_NUM_THREADS", n.max(1).to_string());
        }
        let r = process::run(cmd, &Limits { timeout: self.backend.timeout, cpus: self.backend.cpus() })
            .map_err(|e| Error::Spawn { what: self.program.name(), source: e })?;
        let loops = parse_measurements(&std::fs::read_to_string(&out).unwrap_or_default());
        Ok(RunResult {
            ok: r.outcome.success(),
            stdout: r.stdout,
            seconds: r.elapsed.as_secs_f64(),
            loops,
            outcome: r.outcome,
            stderr: r.stderr,
        })
    }
}

/// Every loop in `pick(loop)`.
fn config(loops: &[TuneLoop], pick: impl Fn(&TuneLoop) -> Variant) -> BTreeMap<u32, Variant> {
    loops.iter().map(|l| (l.id, pick(l))).collect()
}

/// Whether [`learn`] ends with the validation: asked for, and one round of every variant
/// fits beside it in the budget.
pub fn validates(opts: &LearnOptions<'_>, loops: &[TuneLoop]) -> bool {
    let width = loops.iter().map(|l| l.variants.len()).max().unwrap_or(1).max(1);
    opts.validate && opts.budget >= 2 + width + 3 * VALIDATION_ROUNDS
}

/// Run `program` (built from instrumented sources) in configurations of `loops`' variants
/// and collect the figures. `progress(done, planned)` after each run. `Err` when the
/// program cannot run or its sequential version fails.
pub fn learn(
    backend: &LocalBackend,
    program: Launch<'_>,
    loops: &[TuneLoop],
    opts: &LearnOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Learned, Error> {
    let dir = tempfile::Builder::new()
        .prefix("ppo-tune-")
        .tempdir()
        .map_err(|e| Error::Io { file: std::env::temp_dir(), source: e })?;
    let runner = Runner { backend, program, dir, args: &opts.args };
    let plain = match opts.sequential {
        Some(program) if opts.validate => Some(Runner {
            backend,
            program,
            dir: tempfile::Builder::new()
                .prefix("ppo-tune-seq-")
                .tempdir()
                .map_err(|e| Error::Io { file: std::env::temp_dir(), source: e })?,
            args: &opts.args,
        }),
        _ => None,
    };
    let mut learned = Learned::default();
    let seq = config(loops, |_| Variant::SEQUENTIAL);
    let width = loops.iter().map(|l| l.variants.len()).max().unwrap_or(1).max(1);
    let validate = validates(opts, loops);
    let reserved = if validate { 3 * VALIDATION_ROUNDS } else { 0 };
    let budget = opts.budget.saturating_sub(reserved);
    // Rounds of every variant that fit the budget (at least one), after the two sequential runs.
    let rounds = ((budget.saturating_sub(2)) / width).clamp(1, 3);
    let planned = (2 + rounds * width).max(budget.min(2 + rounds * width + 3 * 2)) + reserved;
    let fail = |what: &str, r: &RunResult| {
        let err = r.stderr.lines().last().unwrap_or("");
        Error::Config(format!(
            "{}: the {what} run failed ({}){}",
            program.name(),
            r.outcome,
            if err.is_empty() { String::new() } else { format!(": {err}") }
        ))
    };
    let warm = runner.run(&seq)?;
    learned.runs += 1;
    progress(learned.runs, planned);
    if !warm.ok {
        if matches!(warm.outcome, Outcome::Interrupted { .. }) {
            learned.interrupted = true;
            return Ok(learned);
        }
        return Err(fail("sequential", &warm));
    }
    let mut reference: Option<(String, String)> = None;
    let record = |learned: &mut Learned, cfg: &BTreeMap<u32, Variant>, r: &RunResult| {
        if learned.validating {
            return;
        }
        for (id, v) in cfg {
            // Entered only inside other parallel regions: nothing timed.
            if let Some(s) = r.loops.get(id).filter(|s| s.calls > 0) {
                learned.variant_mut(*id, *v).samples.push(s.clone());
            }
        }
    };
    // Run `cfg` (through `via` instead of the instrumented build: the sequential build); on
    // an output change, find the loops responsible. Returns false when interrupted.
    let mut step =
        |learned: &mut Learned, cfg: &BTreeMap<u32, Variant>, via: Option<&Runner>| -> Result<bool, Error> {
            let r = via.unwrap_or(&runner).run(cfg)?;
            learned.runs += 1;
            progress(learned.runs, planned);
            if matches!(r.outcome, Outcome::Interrupted { .. }) || interrupted() {
                learned.interrupted = true;
                return Ok(false);
            }
            let Some((a, b)) = &reference else {
                if !r.ok {
                    return Err(fail("second sequential", &r));
                }
                learned.unchecked_output =
                    warm.stdout.split_whitespace().count() != r.stdout.split_whitespace().count();
                learned.sequential_seconds.push(r.seconds);
                record(learned, cfg, &r);
                reference = Some((warm.stdout.clone(), r.stdout));
                return Ok(true);
            };
            if via.is_some() {
                match r.ok && same_output(a, b, &r.stdout) {
                    true => learned.plain_seconds.push(r.seconds),
                    false => learned.plain_rejected = true,
                }
                return Ok(true);
            }
            if r.ok && same_output(a, b, &r.stdout) {
                learned.last_seconds = r.seconds;
                if cfg.iter().all(|(_, v)| !v.parallel) {
                    learned.sequential_seconds.push(r.seconds);
                }
                if loops.iter().all(|l| cfg.get(&l.id) == Some(&l.default)) {
                    learned.default_seconds.push(r.seconds);
                }
                record(learned, cfg, &r);
                return Ok(true);
            }
            // Which parallel loops changed the output: halves of the suspects alone in their
            // variants (the others sequential), recursively (group testing: about 2 log2(n)
            // runs for one culprit among n).
            let suspects: Vec<(u32, Variant)> =
                cfg.iter().filter(|(_, v)| v.parallel).map(|(i, v)| (*i, *v)).collect();
            let mut stack = vec![suspects];
            let mut guilty: Vec<(u32, Variant)> = Vec::new();
            while let Some(group) = stack.pop() {
                if group.len() <= 1 {
                    guilty.extend(group);
                    continue;
                }
                let (h1, h2) = group.split_at(group.len() / 2);
                let mut found = false;
                for half in [h1, h2] {
                    let mut alone = seq.clone();
                    alone.extend(half.iter().copied());
                    let r = runner.run(&alone)?;
                    learned.runs += 1;
                    progress(learned.runs, planned);
                    if matches!(r.outcome, Outcome::Interrupted { .. }) {
                        learned.interrupted = true;
                        return Ok(false);
                    }
                    if r.ok && same_output(a, b, &r.stdout) {
                        record(learned, &alone, &r);
                    } else {
                        stack.push(half.to_vec());
                        found = true;
                    }
                }
                if !found {
                    // Only together: none of them is trusted.
                    guilty.extend(group);
                }
            }
            for (id, v) in guilty {
                learned.variant_mut(id, v).output_ok = false;
                learned.banned.insert(id);
            }
            Ok(true)
        };
    if !step(&mut learned, &seq, None)? {
        return Ok(learned);
    }
    for round in 0..rounds {
        // Rotate the order from round to round so that drift does not favour one variant.
        for k in 0..width {
            let r = (k + round) % width;
            if r == 0 && round == 0 {
                continue; // the second sequential run was this round's
            }
            let cfg = config(loops, |l| match learned.banned.contains(&l.id) {
                true => Variant::SEQUENTIAL,
                false => l.variants.get(r).copied().unwrap_or(l.default),
            });
            if !step(&mut learned, &cfg, None)? {
                return Ok(learned);
            }
        }
    }
    // Successive halving: each loop's two fastest variants and its default, once more
    // each, while the budget lasts.
    let finalists: Vec<Vec<Variant>> = loops
        .iter()
        .map(|l| {
            let mut ranked: Vec<(f64, Variant)> = learned
                .loops
                .get(&l.id)
                .into_iter()
                .flatten()
                .filter(|v| v.output_ok)
                .filter_map(|v| {
                    median(&v.samples.iter().map(|s| s.total).collect::<Vec<_>>()).map(|t| (t, v.variant))
                })
                .collect();
            ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut f: Vec<Variant> = ranked.into_iter().take(2).map(|(_, v)| v).collect();
            if !f.contains(&l.default) {
                f.push(l.default);
            }
            f
        })
        .collect();
    let lanes = finalists.iter().map(Vec::len).max().unwrap_or(0);
    'extra: for _ in 0..2 {
        for k in 0..lanes {
            if learned.runs >= budget {
                break 'extra;
            }
            let cfg: BTreeMap<u32, Variant> = loops
                .iter()
                .zip(&finalists)
                .map(|(l, f)| match learned.banned.contains(&l.id) {
                    true => (l.id, Variant::SEQUENTIAL),
                    false => (l.id, f.get(k).copied().unwrap_or(l.default)),
                })
                .collect();
            if !step(&mut learned, &cfg, None)? {
                return Ok(learned);
            }
        }
    }
    // Validation: the program as `-t` would decide it against the sequential program and
    // ppo's default one, in interleaved rounds. Per-loop times miss what a program pays once
    // for running in parallel (the threads' start-up, code compiled for OpenMP that runs
    // slower on one thread) and the loops' effects on each other (caches).
    if validate {
        let pick = |learned: &Learned, f: &dyn Fn(&TuneLoop) -> Variant| {
            config(loops, |l| if learned.banned.contains(&l.id) { Variant::SEQUENTIAL } else { f(l) })
        };
        let tuned = pick(&learned, &|l| decided(&learned, l));
        let default = pick(&learned, &|l| l.default);
        if tuned.values().any(|v| v.parallel) {
            learned.validating = true;
            'rounds: for _ in 0..VALIDATION_ROUNDS {
                let mut configs = vec![&seq];
                if default != tuned && default != seq {
                    configs.push(&default);
                }
                configs.push(&tuned);
                for cfg in configs {
                    let via = plain.as_ref().filter(|_| cfg == &seq && !learned.plain_rejected);
                    if via.is_some() {
                        if !step(&mut learned, cfg, via)? {
                            return Ok(learned);
                        }
                        continue;
                    }
                    let (before, runs) = (learned.banned.len(), learned.runs);
                    if !step(&mut learned, cfg, None)? {
                        return Ok(learned);
                    }
                    // A run that changed the output banned its culprits: no program times.
                    if learned.banned.len() != before || learned.runs != runs + 1 {
                        learned.tuned_seconds.clear();
                        break 'rounds;
                    }
                    if cfg == &tuned {
                        learned.tuned_seconds.push(learned.last_seconds);
                    }
                }
            }
            // The sequential program is the sequential build, when every run of it printed
            // the reference output.
            if !learned.plain_rejected && !learned.plain_seconds.is_empty() {
                learned.sequential_seconds = std::mem::take(&mut learned.plain_seconds);
            }
        }
    }
    Ok(learned)
}

/// The variant [`decide`] picks for loop `l` from what `learned` holds (its default when
/// nothing usable was measured).
pub fn decided(learned: &Learned, l: &TuneLoop) -> Variant {
    let measured: Vec<Measured> = learned
        .loops
        .get(&l.id)
        .into_iter()
        .flatten()
        .map(|v| Measured {
            variant: v.variant,
            seconds: v.samples.iter().map(|s| s.total).collect(),
            rejected: !v.output_ok,
        })
        .collect();
    decide(l.default, &measured).map_or(l.default, |d| d.variant)
}

/// `-p`: run the program with every loop in its default variant `runs` times.
pub fn profile(
    backend: &LocalBackend,
    program: Launch<'_>,
    loops: &[TuneLoop],
    runs: usize,
    args: &[String],
) -> Result<Learned, Error> {
    let dir = tempfile::Builder::new()
        .prefix("ppo-perf-")
        .tempdir()
        .map_err(|e| Error::Io { file: std::env::temp_dir(), source: e })?;
    let runner = Runner { backend, program, dir, args };
    let cfg = config(loops, |l| l.default);
    let mut learned = Learned::default();
    for _ in 0..runs.max(1) {
        let r = runner.run(&cfg)?;
        learned.runs += 1;
        if matches!(r.outcome, Outcome::Interrupted { .. }) {
            learned.interrupted = true;
            break;
        }
        if !r.ok {
            return Err(Error::Config(format!("{}: the program failed ({})", program.name(), r.outcome)));
        }
        learned.default_seconds.push(r.seconds);
        for (id, v) in &cfg {
            if let Some(s) = r.loops.get(id).filter(|s| s.calls > 0) {
                learned.variant_mut(*id, *v).samples.push(s.clone());
            }
        }
    }
    Ok(learned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measurements_of_several_units_add_up() {
        let m = parse_measurements(
            "loop 0 3 0 1.5e-01 4.0e-02 6.0e-02 300 5e-02 4e-02 6e-02\nloop 2 1 4 2.0e+00 2.0e+00 2.0e+00 0 2.0e+00\nloop 0 1 0 5.0e-02 5.0e-02 5.0e-02 100 5e-02\ngarbage\n",
        );
        assert_eq!(m.len(), 2);
        assert_eq!(m[&0].calls, 4);
        assert!((m[&0].total - 0.2).abs() < 1e-12);
        assert_eq!(m[&0].per_call.len(), 4);
        assert_eq!(m[&0].trips, 400);
        assert_eq!(m[&2].nested, 4);
    }

    /// A backend with a time limit, and loop 0 of a fake program: sequential or parallel,
    /// parallel by default.
    fn one_loop() -> (LocalBackend, [TuneLoop; 1]) {
        use analysis::parallel::Schedule;
        let backend = LocalBackend {
            threads: None,
            timeout: Some(std::time::Duration::from_secs(20)),
            build: Default::default(),
        };
        let par = Variant::parallel(Schedule::Static, 0, 0);
        (backend, [TuneLoop { id: 0, variants: vec![Variant::SEQUENTIAL, par], default: par }])
    }

    /// A program whose loop 0 runs ten times faster in parallel, but which pays 0.3 s once
    /// when any loop runs in parallel: per loop the parallel variant wins, as a whole the
    /// sequential program does.
    #[test]
    fn validation_times_the_decided_program_as_a_whole() {
        use transforms::tuning::decide::Fallback;
        let dir = tempfile::tempdir().unwrap();
        let command = "on=$(awk '$1 == 0 { print $2 }' \"$PPO_TUNE_CONFIG\"); \
            if [ \"$on\" = 1 ]; then sleep 0.3; t=0.001; else t=0.01; fi; \
            echo \"loop 0 1 0 $t $t $t 0\" >> \"$PPO_TUNE_OUT\"; echo result 42";
        let (backend, loops) = one_loop();
        let par = loops[0].default;
        let run = |validate| {
            learn(
                &backend,
                Launch::Shell { command, dir: dir.path() },
                &loops,
                &LearnOptions { budget: 16, args: Vec::new(), validate, sequential: None },
                &mut |_, _| {},
            )
            .unwrap()
        };
        let plain = run(false);
        assert!(plain.tuned_seconds.is_empty());
        assert!(plain.runs <= 16);
        let checked = run(true);
        assert!(checked.runs <= 16, "{} runs", checked.runs);
        assert_eq!(decided(&checked, &loops[0]), par);
        assert_eq!(checked.tuned_seconds.len(), VALIDATION_ROUNDS);
        let fallback = transforms::tuning::decide::program_fallback(
            median(&checked.sequential_seconds),
            median(&checked.default_seconds),
            median(&checked.tuned_seconds),
        );
        assert!(matches!(fallback, Some(Fallback::Sequential(r)) if r > 1.5), "{fallback:?}: {checked:?}");
        // The validation runs leave the loop's figures as the decision saw them.
        assert_eq!(
            checked.loops[&0].iter().map(|v| v.samples.len()).sum::<usize>(),
            checked.runs - 1 - 2 * VALIDATION_ROUNDS
        );
    }

    /// A program whose instrumented build runs 0.2 s sequential and 0.1 s with its loop in
    /// parallel, and whose sequential build (without OpenMP) runs in 0.02 s: the validation
    /// compares the tuned program with the sequential build. A sequential build that prints
    /// another output is not trusted.
    #[test]
    fn validation_runs_the_sequential_build() {
        use transforms::tuning::decide::{program_fallback, Fallback};
        let dir = tempfile::tempdir().unwrap();
        let instrumented = "on=$(awk '$1 == 0 { print $2 }' \"$PPO_TUNE_CONFIG\"); \
            if [ \"$on\" = 1 ]; then sleep 0.1; t=0.01; else sleep 0.2; t=0.1; fi; \
            echo \"loop 0 1 0 $t $t $t 0\" >> \"$PPO_TUNE_OUT\"; echo result 42";
        let (backend, loops) = one_loop();
        let run = |sequential: &str| {
            learn(
                &backend,
                Launch::Shell { command: instrumented, dir: dir.path() },
                &loops,
                &LearnOptions {
                    budget: 16,
                    args: Vec::new(),
                    validate: true,
                    sequential: Some(Launch::Shell { command: sequential, dir: dir.path() }),
                },
                &mut |_, _| {},
            )
            .unwrap()
        };
        let fast = run("sleep 0.02; echo result 42");
        assert!(!fast.plain_rejected);
        assert_eq!(fast.sequential_seconds.len(), VALIDATION_ROUNDS, "{fast:?}");
        assert!(median(&fast.sequential_seconds).unwrap() < 0.09, "{fast:?}");
        let fallback = program_fallback(
            median(&fast.sequential_seconds),
            median(&fast.default_seconds),
            median(&fast.tuned_seconds),
        );
        assert!(matches!(fallback, Some(Fallback::Sequential(_))), "{fallback:?}: {fast:?}");
        let other = run("echo result 43");
        assert!(other.plain_rejected);
        assert!(median(&other.sequential_seconds).unwrap() > 0.15, "{other:?}");
        assert_eq!(
            program_fallback(
                median(&other.sequential_seconds),
                median(&other.default_seconds),
                median(&other.tuned_seconds)
            ),
            None
        );
    }

    #[test]
    fn outputs_compare_with_tolerance_and_volatile_tokens() {
        let a = "sum = 1.000000000 at 0x55d0\n";
        let b = "sum = 1.000000000 at 0x55e8\n";
        assert!(same_output(a, b, "sum = 1.0000000001 at 0x7f00"));
        assert!(!same_output(a, b, "sum = 1.01 at 0x7f00"));
        assert!(!same_output(a, b, "sum = 1.000000000 at"));
        assert!(!same_output("0\n", "0\n", "500000\n"));
        // Outputs whose length varies between two sequential runs cannot be checked.
        assert!(same_output("a b", "a b c", "x"));
        // Lines reporting times are compared without their numbers.
        let a = "zeta = 8.5971775078648\n Time in seconds = 0.05\n Mop/s total = 1390.2\n";
        assert!(same_output(
            a,
            a,
            "zeta = 8.5971775078649\n Time in seconds = 0.03\n Mop/s total = 2290.4\n"
        ));
        assert!(!same_output(a, a, "zeta = 8.61\n Time in seconds = 0.03\n Mop/s total = 2290.4\n"));
        assert!(!same_output(a, a, "zeta = 8.5971775078648\n Time in seconds = 0.05\n"));
        // Residuals at the rounding level differ with the summation order; results do not.
        let cg = "Size 7000\n 1 1.75577866390786e-13 1.1999700372738e+01\n Error is 8.881784197001e-15\n";
        assert!(same_output(cg, cg, "Size 7000\n 1 1.92e-13 1.1999700372738e+01\n Error is 1.07e-14\n"));
        assert!(!same_output(cg, cg, "Size 7000\n 1 1.92e-13 1.1999800372738e+01\n Error is 1.07e-14\n"));
        assert!(!same_output("0.0\n", "0.0\n", "1000000.0\n"));
    }
}
