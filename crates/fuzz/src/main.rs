//! `damas-fuzz [INPUTS] [--slow N] [--threads N] [--seed S] [--time-limit SECONDS]
//! [--only NAME,NAME] [--replay TARGET INDEX]`: fuzzes every target (see `damas_fuzz`) and
//! prints the counts per target; exits with 1 if any input panicked or hung.

use damas_fuzz::alloc::CountingAlloc;
use damas_fuzz::driver::{hex, input, run_one};
use damas_fuzz::{Options, all_targets, run, table};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn usage() -> ExitCode {
    eprintln!(
        "usage: damas-fuzz [INPUTS] [--slow N] [--threads N] [--seed S] [--time-limit SECONDS] \
         [--only NAME,NAME] [--replay TARGET INDEX]"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut options = Options::default();
    let mut only: Option<Vec<String>> = None;
    let mut replay: Option<(String, u64)> = None;
    let mut slow_given = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next();
        let parsed = match arg.as_str() {
            "--slow" => value().and_then(|v| v.parse().ok()).map(|n| {
                options.slow_inputs = n;
                slow_given = true;
            }),
            "--threads" => value()
                .and_then(|v| v.parse().ok())
                .map(|n| options.threads = n),
            "--seed" => value()
                .and_then(|v| v.parse().ok())
                .map(|n| options.seed = n),
            "--time-limit" => value()
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s > 0.0)
                .map(|s| options.time_limit = Duration::from_secs_f64(s)),
            "--only" => value().map(|v| only = Some(v.split(',').map(String::from).collect())),
            "--replay" => value()
                .zip(value().and_then(|v| v.parse().ok()))
                .map(|r| replay = Some(r)),
            number => number.parse().ok().map(|n| options.inputs = n),
        };
        if parsed.is_none() {
            return usage();
        }
    }
    if !slow_given {
        options.slow_inputs = (options.inputs / 10_000).max(10);
    }
    let scratch = std::env::temp_dir().join(format!("damas-fuzz-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&scratch) {
        eprintln!("cannot create {}: {e}", scratch.display());
        return ExitCode::FAILURE;
    }
    let mut targets = all_targets(true, &scratch);
    if let Some(names) = &only {
        targets.retain(|t| names.iter().any(|n| n == t.name()));
        if targets.is_empty() {
            eprintln!("no target named {names:?}");
            return usage();
        }
    }
    let code = if let Some((name, index)) = replay {
        let all: Vec<&str> = targets.iter().map(|t| t.name()).collect();
        let Some(t) = targets.iter().position(|t| t.name() == name) else {
            eprintln!("no target `{name}` (targets: {})", all.join(", "));
            return usage();
        };
        // Inputs depend on the target's place in the full list.
        let full = all_targets(true, &scratch);
        let place = full.iter().position(|f| f.name() == name).unwrap_or(t);
        let data = input(full[place].as_ref(), place, index, options.seed);
        println!("input ({} bytes, hex): {}", data.len(), hex(&data));
        println!("as text: {}", String::from_utf8_lossy(&data));
        let result = run_one(full[place].as_ref(), &data);
        println!("result: {result:?}");
        if result.is_err() {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        }
    } else {
        if only.is_some() {
            eprintln!("note: with --only, input indices differ from a full run's");
        }
        let targets = Arc::new(targets);
        let report = run(&targets, &options, &mut |done, planned| {
            eprint!("\r{done}/{planned} inputs");
        });
        eprintln!();
        print!("{}", table(&report));
        if report.failures.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    };
    let _ = std::fs::remove_dir_all(&scratch);
    code
}
