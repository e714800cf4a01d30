//! Structure-aware fuzzing on stable Rust. Every parser and every handler of bytes from outside
//! (FEN, PDN, moves, player strings, Hub lines, DXP messages, TOML configs, shards, checkpoint
//! `meta.json`, ONNX files) is fed mutations of valid inputs and random bytes, and must answer
//! Ok or Err: a panic, a hang (an input running past a time limit) or an allocation over a cap
//! is a failure, reported with its target and its input.
//!
//! - [`targets`]: what is fuzzed and the seeds each target mutates;
//! - [`mutate`]: the mutations;
//! - [`driver`]: the run (threads, watchdog, caught panics, counts);
//! - [`alloc`]: the counting, capped global allocator the fuzz binary and tests install.
//!
//! A short run is a test of this crate (`tests/fuzz.rs`); `scripts/fuzz.sh` runs the
//! `damas-fuzz` binary long.

pub mod alloc;
pub mod driver;
pub mod mutate;
pub mod targets;

pub use driver::{Failure, FailureKind, Options, Report, TargetReport, Targets, run};
pub use targets::{Target, all_targets};

/// The report as a table: inputs, share accepted, panics, hangs and speed per target, totals.
pub fn table(report: &Report) -> String {
    let mut text = format!(
        "{:<14} {:>10} {:>9} {:>7} {:>6} {:>9} {:>10}\n",
        "target", "inputs", "accepted", "panics", "hangs", "seconds", "inputs/s"
    );
    for t in &report.targets {
        let accepted = if t.inputs == 0 {
            0.0
        } else {
            100.0 * t.accepted as f64 / t.inputs as f64
        };
        text += &format!(
            "{:<14} {:>10} {:>8.1}% {:>7} {:>6} {:>9.1} {:>10.0}\n",
            t.name,
            t.inputs,
            accepted,
            t.panics,
            t.hangs,
            t.seconds,
            t.inputs as f64 / t.seconds.max(1e-9)
        );
    }
    let panics: u64 = report.targets.iter().map(|t| t.panics).sum();
    let hangs: u64 = report.targets.iter().map(|t| t.hangs).sum();
    text += &format!(
        "total {} inputs in {:.1} s, {panics} panics, {hangs} hangs, peak heap {:.1} MiB, max RSS {}\n",
        report.inputs(),
        report.seconds,
        report.peak_heap as f64 / (1 << 20) as f64,
        report
            .max_rss_kib
            .map_or("unknown".to_string(), |k| format!(
                "{:.1} MiB",
                k as f64 / 1024.0
            )),
    );
    for f in &report.failures {
        let hex = f.hex();
        let shown = if hex.len() > 4096 { &hex[..4096] } else { &hex };
        text += &format!(
            "FAIL {} input {}: {:?}\n  input ({} bytes, hex): {shown}\n",
            f.target,
            f.index,
            f.kind,
            f.input.len()
        );
    }
    text
}
