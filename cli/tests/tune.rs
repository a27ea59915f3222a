//! Learning mode and auto-tuning end to end: `ppo -omp -t` on the programs of
//! `corpus/tuning/` decides what is true on any machine with two cores (a loop whose
//! parallel version is slower stays sequential; the outputs equal the sequential
//! program's), the records are reused by a second run and ignored once the loop changes,
//! `ppo log --perf` shows them, `-p` profiles the output, a variant that changes the output
//! is never chosen (PPO131), and Ctrl-C leaves no process behind.
//!
//! A test binary of its own: these tests time programs, and the other integration tests
//! would share the cores with them.

mod common;

use common::{ppo, root};
use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

/// The tests measure: one at a time, or they would slow each other down.
static MEASURING: Mutex<()> = Mutex::new(());

/// What a test that times programs holds: the lock that keeps the others from running
/// meanwhile, a temporary directory and its empty `src` (the input).
struct Measuring {
    lock: std::sync::MutexGuard<'static, ()>,
    t: tempfile::TempDir,
    src: std::path::PathBuf,
}

/// [`Measuring`], or `None` (the test skipped) without gcc, or with one core when the test
/// needs two.
fn measuring(two_cores: bool) -> Option<Measuring> {
    if !has_gcc() || two_cores && cores() < 2 {
        return None;
    }
    let lock = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    fs::create_dir_all(&src).unwrap();
    Some(Measuring { lock, t, src })
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn has_gcc() -> bool {
    let ok = Command::new("gcc").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(ok || !common::in_ci(), "gcc is required in CI");
    ok
}

/// Compile `src` (gcc -O2 -fopenmp -lm) into `dir` and run it: its standard output.
fn build_and_run(src: &Path, dir: &Path) -> String {
    let exe = dir.join(src.file_stem().unwrap());
    let c =
        Command::new("gcc").args(["-O2", "-fopenmp", "-o"]).arg(&exe).arg(src).arg("-lm").output().unwrap();
    assert!(c.status.success(), "{}: {}", src.display(), String::from_utf8_lossy(&c.stderr));
    let r = Command::new(&exe).output().unwrap();
    assert!(r.status.success(), "{} failed", exe.display());
    String::from_utf8_lossy(&r.stdout).into_owned()
}

/// Same words, numbers within a relative 1e-9.
fn same_output(a: &str, b: &str) -> bool {
    let (x, y): (Vec<&str>, Vec<&str>) = (a.split_whitespace().collect(), b.split_whitespace().collect());
    x.len() == y.len()
        && x.iter().zip(&y).all(|(p, q)| {
            p == q
                || match (p.parse::<f64>(), q.parse::<f64>()) {
                    (Ok(u), Ok(v)) => (u - v).abs() <= 1e-9 * u.abs().max(v.abs()),
                    _ => false,
                }
        })
}

/// `ppo -i SRC -o OUT -omp FLAGS… --report REP`.
fn omp_with(src: &Path, out: &Path, rep: &Path, flags: &[&str]) -> common::Run {
    let mut args: Vec<&std::ffi::OsStr> =
        vec!["-i".as_ref(), src.as_os_str(), "-o".as_ref(), out.as_os_str()];
    args.push("-omp".as_ref());
    args.extend(flags.iter().map(std::ffi::OsStr::new));
    args.extend(["--report".as_ref(), rep.as_os_str()]);
    ppo(&args)
}

/// `ppo -i SRC -o OUT -omp -t --report REP`, which must succeed without a panic.
fn tune(src: &Path, out: &Path, rep: &Path) -> common::Run {
    let r = omp_with(src, out, rep, &["-t"]);
    r.assert_code(0).assert_no_panic();
    r
}

fn report(path: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn entry<'a>(report: &'a serde_json::Value, file: &str, loop_id: &str) -> &'a serde_json::Value {
    report["loops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["file"] == file && l["loop_id"] == loop_id)
        .unwrap_or_else(|| panic!("{file} {loop_id} not in the report"))
}

#[test]
fn tuning_decides_what_holds_on_any_machine_and_keeps_the_outputs() {
    if !has_gcc() {
        return;
    }
    let _m = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let t = tempfile::tempdir().unwrap();
    let input = root().join("corpus/tuning");
    let out = t.path().join("out");
    let rep = t.path().join("report.json");
    let r = tune(&input, &out, &rep);
    let report = report(&rep);
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(input.join("manifest.json")).unwrap()).unwrap();
    for (file, loops) in manifest["decisions"].as_object().unwrap() {
        for (id, want) in loops.as_object().unwrap() {
            let e = entry(&report, file, id);
            let evidence =
                e["tuning"].as_str().unwrap_or_else(|| panic!("{file} {id}: no tuning evidence: {e}"));
            // Parallel at the loop, or at the loops inside it (a level-1 variant).
            let parallel = e["verdict"] == "parallel" || evidence.starts_with("parallel (");
            match want.as_str().unwrap() {
                "sequential" => {
                    assert!(!parallel, "{file} {id}: {evidence}\n{}", r.stderr);
                    // Measured slower: the default directive, or (where the static size
                    // rules already refuse the loop) every parallel variant tried.
                    assert!(
                        evidence.starts_with("sequential: parallel")
                            || evidence.starts_with("sequential: the best parallel version measured"),
                        "{evidence}"
                    );
                }
                // Two cores at least for a parallel loop to win.
                _ if cores() < 2 => {}
                _ => assert!(parallel, "{file} {id}: {evidence}\n{}", r.stderr),
            }
            assert!(r.stderr.contains(&format!("{file}:")), "{}", r.stderr);
        }
    }
    // The output holds only directives: no trace of the instrumentation.
    for f in fs::read_dir(&out).unwrap().flatten().filter(|f| f.path().extension().is_some_and(|x| x == "c"))
    {
        let text = fs::read_to_string(f.path()).unwrap();
        assert!(!text.contains("ppo_tune"), "{}", f.path().display());
        let bin = t.path().join("bin");
        fs::create_dir_all(&bin).unwrap();
        let (want, got) = (build_and_run(&input.join(f.file_name()), &bin), build_and_run(&f.path(), &bin));
        assert!(same_output(&want, &got), "{}: {want} vs {got}", f.path().display());
    }
    // The measurements are in the log: `ppo log --perf`.
    let db = out.join(".ppo/ppo.db");
    let log = ppo(&["log".as_ref(), "--db".as_ref(), db.as_os_str(), "--perf".as_ref()]);
    log.assert_code(0);
    assert!(log.stdout.contains("timestep.c:14: relax#0"), "{}", log.stdout);
    assert!(log.stdout.contains("sequential") && log.stdout.contains("[default]"), "{}", log.stdout);
    let json = ppo(&["log".as_ref(), "--db".as_ref(), db.as_os_str(), "--perf".as_ref(), "--json".as_ref()]);
    let j: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let relax = j["loops"].as_array().unwrap().iter().find(|l| l["loop_id"] == "relax#0").unwrap();
    assert_eq!(relax["mode"], "learn");
    assert!(relax["variants"].as_array().unwrap().len() >= 2, "{relax}");
    // Each nest of `channels.c` was measured at its other collapse depth too.
    let labels = |id: &str| -> Vec<String> {
        let l = j["loops"].as_array().unwrap().iter().find(|l| l["loop_id"] == id).unwrap();
        l["variants"].as_array().unwrap().iter().map(|v| v["label"].as_str().unwrap().to_string()).collect()
    };
    if cores() >= 2 {
        assert!(labels("gain#0").iter().any(|l| l.contains("collapse(1)")), "{:?}", labels("gain#0"));
        assert!(labels("tone#0").iter().any(|l| l.contains("collapse(2)")), "{:?}", labels("tone#0"));
        // And the component loop of `components.c` one level down, at its two sweeps.
        assert!(labels("smooth#0").iter().any(|l| l.ends_with(", inner loops")), "{:?}", labels("smooth#0"));
    }
}

/// A copy of two corpus programs, small budget: the second `-t` run measures nothing, an
/// edited loop is measured again (its fingerprint changed), the other's records stay.
#[test]
fn records_are_reused_until_the_loop_changes() {
    let Some(Measuring { lock: _held, t, src }) = measuring(false) else { return };
    // openmp_ifdef.c: a loop that cannot be timed (its header in #if branches) does not make
    // the records incomplete.
    for f in ["timestep.c", "primes.c", "openmp_ifdef.c"] {
        fs::copy(root().join("corpus/tuning").join(f), src.join(f)).unwrap();
    }
    let out = t.path().join("out");
    let run = || {
        let r = ppo(&[
            "-i".as_ref(),
            src.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
            "-omp".as_ref(),
            "-t".as_ref(),
            "--tune-budget".as_ref(),
            "8".as_ref(),
        ]);
        r.assert_code(0).assert_no_panic();
        r.stderr
    };
    let perf_runs = || {
        let db = out.join(".ppo/ppo.db");
        let j = ppo(&["log".as_ref(), "--db".as_ref(), db.as_os_str(), "--perf".as_ref(), "--json".as_ref()]);
        let v: serde_json::Value = serde_json::from_str(&j.stdout).unwrap();
        let mut starts: Vec<(String, i64)> = v["loops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (l["file"].as_str().unwrap().to_string(), l["started_unix"].as_i64().unwrap()))
            .collect();
        starts.sort();
        starts.dedup();
        starts
    };
    let first = run();
    assert!(first.contains("primes.c: ") && first.contains(" runs, "), "{first}");
    let before = perf_runs();
    let second = run();
    assert!(second.contains("timestep.c: measurements of this machine and compiler reused"), "{second}");
    assert!(second.contains("primes.c: measurements of this machine and compiler reused"), "{second}");
    assert!(second.contains("openmp_ifdef.c: measurements of this machine and compiler reused"), "{second}");
    assert!(second.contains("1 loop(s) not measured (the learning build cannot time them"), "{second}");
    assert!(!second.contains(" runs, "), "{second}");
    assert_eq!(perf_runs(), before);
    // The prime loop changes: measured again; the time loop's records are reused.
    let p = fs::read_to_string(src.join("primes.c"))
        .unwrap()
        .replace("count += is_prime(i);", "count += is_prime(i) ? 1 : 0;");
    fs::write(src.join("primes.c"), p).unwrap();
    let third = run();
    assert!(third.contains("timestep.c: measurements of this machine and compiler reused"), "{third}");
    assert!(third.contains("primes.c: ") && third.contains(" runs, "), "{third}");
}

/// A program whose loops, as measured best, made it slower as a whole than sequential (the
/// validation runs of learning) keeps every loop sequential, and one slower than ppo's
/// default program keeps the defaults, also when a later `-t` reuses the records.
#[test]
fn a_program_slower_as_a_whole_falls_back_to_the_faster_program() {
    let Some(Measuring { lock: _held, t, src }) = measuring(true) else { return };
    // openmp_ifdef.c has a loop that cannot be timed: it follows its program.
    for f in ["matmul.c", "openmp_ifdef.c"] {
        fs::copy(root().join("corpus/tuning").join(f), src.join(f)).unwrap();
    }
    let (out, rep) = (t.path().join("out"), t.path().join("report.json"));
    let first = tune(&src, &out, &rep);
    let set = |sql: &str| {
        let db = rusqlite::Connection::open(out.join(".ppo/ppo.db")).unwrap();
        let (seq, tuned): (Option<f64>, Option<f64>) = db
            .query_row("SELECT sequential_seconds, tuned_seconds FROM perf_runs", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert!(seq.is_some() && tuned.is_some(), "{seq:?} {tuned:?}\n{}", first.stderr);
        db.execute(sql, []).unwrap();
    };
    // As if the tuned program had measured three times slower than the sequential one.
    set("UPDATE perf_runs SET default_seconds = 2 * sequential_seconds, tuned_seconds = 3 * sequential_seconds");
    let second = tune(&src, &out, &rep);
    assert!(second.stderr.contains("measurements of this machine and compiler reused"), "{}", second.stderr);
    assert!(
        second.stderr.contains("matmul.c: the tuned program measured 3.00× the sequential program's time"),
        "{}",
        second.stderr
    );
    let report = report(&rep);
    let e = entry(&report, "matmul.c", "main#2");
    assert_ne!(e["verdict"], "parallel", "{e}");
    assert!(e["tuning"].as_str().unwrap().starts_with("sequential: with its loops as measured best"), "{e}");
    assert!(!fs::read_to_string(out.join("matmul.c")).unwrap().contains("#pragma omp"));
    let e = entry(&report, "openmp_ifdef.c", "main#2");
    assert!(
        e["tuning"].as_str().unwrap().starts_with(
            "sequential: not measured, and with its measured loops in parallel openmp_ifdef.c ran 3.00×"
        ),
        "{e}"
    );
    assert!(!fs::read_to_string(out.join("openmp_ifdef.c")).unwrap().contains("#pragma omp"));
    // Slower than ppo's default program: the output is ppo's default output.
    set("UPDATE perf_runs SET default_seconds = sequential_seconds / 2, tuned_seconds = 3 * sequential_seconds");
    let third = tune(&src, &out, &rep);
    assert!(
        third.stderr.contains("the time of ppo's default program: its loops keep their defaults"),
        "{}",
        third.stderr
    );
    let plain = t.path().join("plain");
    ppo(&["-i".as_ref(), src.as_os_str(), "-o".as_ref(), plain.as_os_str(), "-omp".as_ref()]).assert_code(0);
    for f in ["matmul.c", "openmp_ifdef.c"] {
        assert_eq!(fs::read_to_string(out.join(f)).unwrap(), fs::read_to_string(plain.join(f)).unwrap());
    }
}

/// The validation's sequential program is the program built without OpenMP: a program whose
/// OpenMP build pays a fixed cost outside its loops (here about 0.1 s of work under `_OPENMP`, as
/// a team start-up or code slower when compiled for OpenMP) is not parallelized, although
/// its loop measured faster in parallel. Against the instrumented build with every loop
/// sequential (which pays the same cost), it was.
#[test]
fn the_validation_compares_with_the_program_built_without_openmp() {
    let Some(Measuring { lock: _held, t, src }) = measuring(true) else { return };
    fs::write(
        src.join("overhead.c"),
        r#"#include <stdio.h>
#include <math.h>
#define N 4000000
static double a[N];
int main(void)
{
    int i;
#ifdef _OPENMP
    volatile double spin = 0.0;
    for (long k = 0; k < 100000000L; k++)
        spin = spin + 1.0;
#endif
    for (i = 0; i < N; i++)
        a[i] = sqrt((double)i) * sin((double)i);
    double s = 0.0;
    for (i = 0; i < N; i += 1000)
        s += a[i];
    printf("sum %.6f\n", s);
    return 0;
}
"#,
    )
    .unwrap();
    let (out, rep) = (t.path().join("out"), t.path().join("report.json"));
    let r = tune(&src, &out, &rep);
    assert!(r.stderr.contains("overhead.c: the tuned program measured"), "{}", r.stderr);
    let report = report(&rep);
    let e = entry(&report, "overhead.c", "main#0");
    assert!(e["tuning"].as_str().unwrap().starts_with("sequential: with its loops as measured best"), "{e}");
    assert!(!fs::read_to_string(out.join("overhead.c")).unwrap().contains("#pragma omp"));
}

/// A program of two files in `src`: `util.c` smooths a row (a parallel loop), `main.c` calls
/// it `2 × steps` times on rows of `n`.
fn relax_program(src: &Path, n: usize, steps: usize) {
    fs::write(
        src.join("util.c"),
        "void relax(double *restrict dst, const double *restrict src, int n) {\n  for (int i = 1; i < n - 1; i++)\n    dst[i] = 0.25 * src[i - 1] + 0.5 * src[i] + 0.25 * src[i + 1];\n}\n",
    )
    .unwrap();
    fs::write(
        src.join("main.c"),
        format!(
            "#include <stdio.h>\nvoid relax(double *restrict dst, const double *restrict src, int n);\nstatic double a[{n}], b[{n}];\nint main(void) {{\n  for (int i = 0; i < {n}; i++) a[i] = b[i] = i % 7;\n  for (int t = 0; t < {steps}; t++) {{ relax(b, a, {n}); relax(a, b, {n}); }}\n  printf(\"%.6f\\n\", a[100]);\n  return 0;\n}}\n"
        ),
    )
    .unwrap();
}

/// An input tree that holds its own build's objects: the copies keep their times, so `make`
/// in the learning tree rebuilds them from the instrumented sources (with the copy's time, an
/// object could look newer than its instrumented source, and the learning build ran the
/// uninstrumented program: NPB's trees, built in place, measured no loop).
#[test]
fn objects_built_in_the_input_are_rebuilt_from_the_instrumented_sources() {
    let Some(Measuring { lock: _held, t, src }) = measuring(false) else { return };
    assert!(
        std::process::Command::new("make").arg("--version").output().is_ok(),
        "make is not installed: scripts/setup.sh installs it"
    );
    relax_program(&src, 4096, 200);
    fs::write(
        src.join("Makefile"),
        "prog: main.o util.o\n\tgcc -fopenmp -o prog main.o util.o\n%.o: %.c\n\tgcc -O2 -fopenmp -c $<\n",
    )
    .unwrap();
    // Built in place, as users do.
    let built = std::process::Command::new("make").arg("prog").current_dir(&src).output().unwrap();
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let (out, rep) = (t.path().join("out"), t.path().join("r.json"));
    let r =
        omp_with(&src, &out, &rep, &["-l", "--tune-budget", "8", "--build", "make prog", "--run", "./prog"]);
    r.assert_code(0).assert_no_panic();
    assert!(r.stderr.contains("./prog: 8 runs, 2 loops measured"), "{}", r.stderr);
}

/// `-p`: the output as written, timed per loop, in the log.
#[test]
fn performance_log_times_the_output() {
    let Some(Measuring { lock: _held, t, src }) = measuring(false) else { return };
    fs::copy(root().join("corpus/tuning/triangular.c"), src.join("triangular.c")).unwrap();
    let out = t.path().join("out");
    let r = ppo(&[
        "-i".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "-omp".as_ref(),
        "-p".as_ref(),
    ]);
    r.assert_code(0).assert_no_panic();
    assert!(r.stderr.contains("ppo: perf: triangular.c: "), "{}", r.stderr);
    assert!(r.stderr.contains("triangular.c:13: main#0: "), "{}", r.stderr);
    let db = out.join(".ppo/ppo.db");
    let log = ppo(&["log".as_ref(), "--db".as_ref(), db.as_os_str(), "--perf".as_ref()]);
    assert!(log.stdout.contains("main#0") && log.stdout.contains("profile on"), "{}", log.stdout);
    // -p alone changes nothing in the output.
    let text = fs::read_to_string(out.join("triangular.c")).unwrap();
    assert!(text.contains("#pragma omp parallel for schedule(dynamic)") && !text.contains("ppo_tune"));
}

/// The PPO131 page: its triggering example (an ill-conditioned reduction) stays
/// sequential under `-t`, its other example is parallelized.
#[test]
fn check_page_of_ppo131() {
    if !has_gcc() || cores() < 2 {
        return;
    }
    let _m = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let page = fs::read_to_string(root().join("docs/checks/PPO131.md")).unwrap();
    assert!(page.starts_with("# PPO131 — "));
    let block = |marker: &str| {
        let at = page.find(&format!("\n{marker}")).unwrap();
        let rest = &page[at..];
        let start = rest.find("```c\n").unwrap() + 5;
        rest[start..start + rest[start..].find("```").unwrap()].to_string()
    };
    for (marker, want) in [("Triggers", true), ("Does not trigger", false)] {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("src");
        fs::create_dir_all(&src).unwrap();
        fs::write(src.join("sum.c"), block(marker)).unwrap();
        let out = t.path().join("out");
        let rep = t.path().join("r.json");
        let r = tune(&src, &out, &rep);
        let report = report(&rep);
        let sum = entry(&report, "sum.c", "main#1");
        let evidence = sum["tuning"].as_str().unwrap_or("");
        assert_eq!(evidence.contains("PPO131"), want, "{marker}: {sum}\n{}", r.stderr);
        if want {
            assert_ne!(sum["verdict"], "parallel");
        }
    }
}

/// Ctrl-C during learning: ppo stops within a second or two, says so, and the program it
/// was running is gone.
#[test]
fn an_interrupt_stops_learning_and_leaves_no_process() {
    let Some(Measuring { lock: _held, t, src }) = measuring(false) else { return };
    // A program that runs for a long time: every run outlasts the interrupt.
    fs::write(
        src.join("slowprog.c"),
        "#include <stdio.h>\n#define N 4000\nstatic double a[N];\nint main(void) {\n  for (long r = 0; r < 2000000; r++)\n    for (int i = 0; i < N; i++)\n      a[i] = a[i] * 0.5 + r;\n  printf(\"%f\\n\", a[7]);\n  return 0;\n}\n",
    )
    .unwrap();
    let out = t.path().join("out");
    let child = Command::new(env!("CARGO_BIN_EXE_ppo"))
        .args([
            "-i".as_ref(),
            src.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
            "-omp".as_ref(),
            "-l".as_ref(),
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the program runs.
    let started = std::time::Instant::now();
    while common_procs("slowprog").is_empty() && started.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!common_procs("slowprog").is_empty(), "the program never started");
    unsafe_kill(child.id() as i32);
    let stopped = std::time::Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(stopped.elapsed().as_secs() < 10, "ppo took {:?} to stop", stopped.elapsed());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert_ne!(out.status.code(), Some(0));
    assert!(common_procs("slowprog").is_empty(), "a program run was left behind");
}

/// The pids of live processes named `name`.
fn common_procs(name: &str) -> Vec<i32> {
    fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            stat.contains(&format!("({name})")) && !stat.contains(") Z ")
        })
        .collect()
}

fn unsafe_kill(pid: i32) {
    Command::new("kill").args(["-INT", &pid.to_string()]).status().unwrap();
}

/// `--build`/`--run`: a program of two files built by the user's own command in the
/// instrumented copy of the input; the loop of the file without `main` is measured and
/// decided. A failing build is an error that names the command.
#[test]
fn a_program_built_by_its_own_command_is_tuned() {
    let Some(Measuring { lock: _held, t, src }) = measuring(false) else { return };
    relax_program(&src, 256, 2000);
    let build = "gcc -O2 -fopenmp -o prog main.c util.c -lm";
    let run_with = |budget: &str, build: &str, out: &Path, rep: &Path| {
        omp_with(&src, out, rep, &["-t", "--tune-budget", budget, "--build", build, "--run", "./prog"])
    };
    let run = |build: &str, out: &Path, rep: &Path| run_with("8", build, out, rep);
    let (out, rep) = (t.path().join("out"), t.path().join("r.json"));
    let r = run(build, &out, &rep);
    r.assert_code(0).assert_no_panic().assert_stderr("ppo: tune: ./prog: ");
    let report = report(&rep);
    let relax = entry(&report, "util.c", "relax#0");
    assert!(relax["tuning"].as_str().is_some_and(|e| !e.is_empty()), "{relax}\n{}", r.stderr);
    // Nothing of the build is left in the input or the output.
    assert!(!src.join("prog").exists() && !out.join("prog").exists());
    let bad = run("gcc -o prog nothing.c", &t.path().join("out2"), &t.path().join("r2.json"));
    assert_eq!(bad.code, 1, "{}", bad.stderr);
    bad.assert_stderr("--build `gcc -o prog nothing.c` failed");
    // With a budget that leaves room for the validation, the input is built a second time,
    // as it is (no instrumented file, no runtime header): the validation's sequential program.
    let log = t.path().join("builds.log");
    let logged = format!(
        "if [ -f ppo_tune.h ]; then echo instrumented >> {l}; else echo plain >> {l}; fi; {build}",
        l = log.display()
    );
    let r = run_with("30", &logged, &t.path().join("out3"), &t.path().join("r3.json"));
    r.assert_code(0).assert_no_panic();
    assert_eq!(fs::read_to_string(&log).unwrap(), "instrumented\nplain\n", "{}", r.stderr);
    let db = rusqlite::Connection::open(t.path().join("out3/.ppo/ppo.db")).unwrap();
    let seq: Option<f64> =
        db.query_row("SELECT sequential_seconds FROM perf_runs", [], |r| r.get(0)).unwrap();
    assert!(seq.is_some_and(|s| s > 0.0), "{seq:?}");
}
