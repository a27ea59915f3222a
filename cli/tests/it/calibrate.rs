//! `ppo calibrate`: the probe compiles and runs here, its figures are cached, and batch mode
//! and `ppo analyze` take their work thresholds from the cache unless given as flags.

use std::path::Path;
use std::process::{Command, Output};

/// Run ppo with the calibration cache in `cache` and 2 OpenMP threads.
fn ppo(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ppo"))
        .args(args)
        .env("PPO_CACHE_DIR", cache)
        .env("OMP_NUM_THREADS", "2")
        .output()
        .expect("run ppo")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A sequential time loop around a 200 × 200 nest: 40,000 units of work per run, above the
/// default `--min-region-work` (16384).
const TIME_STEPS: &str = r#"
double a[200][200], b[200][200];
void steps(int t_max) {
    int t, i, j;
    for (t = 0; t < t_max; t++) {
        for (i = 0; i < 200; i++)
            for (j = 0; j < 200; j++)
                a[i][j] = 0.5 * b[i][j] + a[i][j];
        b[t % 200][0] = a[0][t % 200];
    }
}
"#;

fn cache_entries(cache: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(cache.join("calibration.json")).expect("the cache file");
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    v["entries"].as_array().expect("entries").clone()
}

#[test]
fn calibrate_measures_and_caches_the_thresholds() {
    let cache = tempfile::tempdir().unwrap();
    let out = ppo(cache.path(), &["calibrate", "--threads", "2"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("fork and join of a region") && stdout.contains("--min-region-work"), "{stdout}");
    let entries = cache_entries(cache.path());
    assert_eq!(entries.len(), 1);
    let e = &entries[0];
    assert_eq!(e["threads"], 2);
    for key in ["stmt_ns", "fork_ns", "barrier_ns"] {
        assert!(e[key].as_f64().is_some_and(|v| v > 0.0), "{key} in {e}");
    }
    let region = e["min_region_work"].as_u64().unwrap();
    assert!((64..=1 << 26).contains(&region), "{e}");

    // Measuring again replaces the entry of this machine and thread count.
    assert!(ppo(cache.path(), &["calibrate", "--threads", "2"]).status.success());
    assert_eq!(cache_entries(cache.path()).len(), 1);
    let shown = ppo(cache.path(), &["calibrate", "--show", "--json"]);
    let listed: serde_json::Value = serde_json::from_slice(&shown.stdout).expect("--show --json");
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
}

#[test]
fn the_cached_thresholds_decide_unless_flags_are_given() {
    let cache = tempfile::tempdir().unwrap();
    let src = cache.path().join("steps.c");
    std::fs::write(&src, TIME_STEPS).unwrap();
    let src = src.to_str().unwrap();

    let before = text(&ppo(cache.path(), &["analyze", src]).stdout);
    assert!(before.contains("#pragma omp parallel for"), "{before}");

    // A machine whose regions cost a great deal: the same nest no longer repays one.
    assert!(ppo(cache.path(), &["calibrate", "--threads", "2"]).status.success());
    let path = cache.path().join("calibration.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["entries"][0]["min_region_work"] = 1_000_000.into();
    v["entries"][0]["min_barrier_work"] = 1_000_000.into();
    std::fs::write(&path, v.to_string()).unwrap();
    let after = text(&ppo(cache.path(), &["analyze", src]).stdout);
    assert!(!after.contains("#pragma omp parallel for") && after.contains("PPO112"), "{after}");

    // Flags win over the cache.
    let flagged =
        ppo(cache.path(), &["analyze", src, "--min-region-work", "16384", "--min-barrier-work", "4096"]);
    assert!(text(&flagged.stdout).contains("#pragma omp parallel for"));

    // Batch mode says where its thresholds come from.
    let input = tempfile::tempdir().unwrap();
    std::fs::write(input.path().join("steps.c"), TIME_STEPS).unwrap();
    let output = tempfile::tempdir().unwrap();
    let out_dir = output.path().join("out");
    let batch =
        ppo(cache.path(), &["-i", input.path().to_str().unwrap(), "-o", out_dir.to_str().unwrap(), "-omp"]);
    assert!(batch.status.success(), "{}", text(&batch.stderr));
    let stderr = text(&batch.stderr);
    assert!(stderr.contains("thresholds calibrated at 2 threads") && stderr.contains("1000000"), "{stderr}");
    let written = std::fs::read_to_string(out_dir.join("steps.c")).unwrap();
    assert!(!written.contains("#pragma omp"), "{written}");
}

#[test]
fn a_damaged_cache_is_a_warning_and_the_defaults_apply() {
    let cache = tempfile::tempdir().unwrap();
    std::fs::write(cache.path().join("calibration.json"), "{ not json").unwrap();
    let src = cache.path().join("steps.c");
    std::fs::write(&src, TIME_STEPS).unwrap();
    let out = ppo(cache.path(), &["analyze", src.to_str().unwrap()]);
    assert!(out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("calibration.json:1") && stderr.contains("default thresholds"), "{stderr}");
    assert!(text(&out.stdout).contains("#pragma omp parallel for"));
}

#[test]
fn one_thread_or_a_missing_compiler_is_a_setup_error() {
    let cache = tempfile::tempdir().unwrap();
    let one = ppo(cache.path(), &["calibrate", "--threads", "1"]);
    assert_eq!(one.status.code(), Some(2));
    assert!(text(&one.stderr).contains("never pays on one thread"));
    let missing = ppo(cache.path(), &["calibrate", "--threads", "2", "--cc", "no-such-cc"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("no-such-cc not found"), "{}", text(&missing.stderr));
    assert!(!cache.path().join("calibration.json").exists());
}
