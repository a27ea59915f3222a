//! `ppo calibrate`, and the calibration the other commands take their thresholds from.

use crate::args::{CalibrateArgs, ThresholdArgs};
use crate::{diag, EXIT_OK, EXIT_SETUP};
use analysis::parallel::Thresholds;
use backends::calibrate::{self, Calibration};
use std::time::Duration;

/// The thresholds of a command: its flags, else this machine's calibration for the thread
/// count the programs will run with, else the defaults. A damaged cache is a warning (the
/// defaults apply). With `announce`, say which calibration was used.
pub fn thresholds(args: &ThresholdArgs, announce: bool) -> Thresholds {
    if !args.wants_calibration() {
        return args.to_thresholds(None);
    }
    let cal = match calibrate::cached(calibrate::default_threads()) {
        Ok(c) => c,
        Err(e) => {
            diag::warning(format_args!("{e}; using the default thresholds"));
            None
        }
    };
    let th = args.to_thresholds(cal.as_ref());
    if let (true, Some(c)) = (announce, &cal) {
        diag::emit(
            "note",
            format_args!(
                "thresholds calibrated at {} threads (ppo calibrate --show): --min-region-work {} \
                 --min-barrier-work {}",
                c.threads, th.min_region_work, th.min_barrier_work
            ),
        );
    }
    th
}

/// `ppo calibrate`: measure, store and print; or (`--show`) print the cached entries.
pub fn calibrate_cmd(a: &CalibrateArgs) -> i32 {
    let Some(path) = calibrate::cache_file() else {
        diag::error("no cache directory: set PPO_CACHE_DIR, XDG_CACHE_HOME or HOME");
        return EXIT_SETUP;
    };
    if a.show {
        return match calibrate::load(&path) {
            Ok(entries) if a.json => {
                println!("{}", serde_json::to_string_pretty(&entries).expect("calibrations serialize"));
                EXIT_OK
            }
            Ok(entries) if entries.is_empty() => {
                println!("no calibration in {} (run `ppo calibrate`)", path.display());
                EXIT_OK
            }
            Ok(entries) => {
                println!("{}:", path.display());
                for c in &entries {
                    print!("{}", describe(c));
                }
                EXIT_OK
            }
            Err(e) => {
                diag::error(e);
                EXIT_SETUP
            }
        };
    }
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        diag::error(format_args!("--timeout {}: give a positive number of seconds", a.timeout));
        return EXIT_SETUP;
    }
    let threads = a.threads.unwrap_or_else(calibrate::default_threads);
    let flags: Vec<String> = a.cflags.split_whitespace().map(String::from).collect();
    let cal = match calibrate::measure(&a.cc, &flags, threads, Duration::from_secs_f64(a.timeout)) {
        Ok(c) => c,
        Err(e) => {
            diag::error(e);
            return EXIT_SETUP;
        }
    };
    if let Err(e) = calibrate::store(&path, &cal) {
        diag::error(e);
        return EXIT_SETUP;
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&cal).expect("a calibration serializes"));
    } else {
        print!("{}", describe(&cal));
        println!(
            "saved to {}: batch mode, `ppo analyze` and `ppo lsp` use it for programs run with {} \
             threads on this machine",
            path.display(),
            cal.threads
        );
    }
    EXIT_OK
}

/// A calibration for people.
fn describe(c: &Calibration) -> String {
    format!(
        "{} ({} CPUs), {} threads, {} {}:\n  \
         one statement of a loop body   {:>10.3} ns\n  \
         fork and join of a region      {:>10.3} µs\n  \
         barrier                        {:>10.3} µs\n  \
         → --min-region-work {} --min-barrier-work {}\n",
        c.machine,
        c.cpus,
        c.threads,
        c.compiler,
        c.flags,
        c.stmt_ns,
        c.fork_ns / 1000.0,
        c.barrier_ns / 1000.0,
        c.min_region_work,
        c.min_barrier_work
    )
}
