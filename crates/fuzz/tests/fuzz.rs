//! A short fuzz run over every target (a few thousand inputs): no panic, no hang.

use damas_fuzz::alloc::CountingAlloc;
use damas_fuzz::{Options, all_targets, run, table};
use std::sync::Arc;
use std::time::Duration;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn a_short_run_finds_no_panic_and_no_hang() {
    let scratch = std::env::temp_dir().join(format!("damas-fuzz-test-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let targets = Arc::new(all_targets(true, &scratch));
    let options = Options {
        inputs: 6_000,
        slow_inputs: 20,
        threads: 2,
        seed: 16,
        time_limit: Duration::from_secs(20),
        ..Options::default()
    };
    let report = run(&targets, &options, &mut |_, _| {});
    let _ = std::fs::remove_dir_all(&scratch);
    let text = table(&report);
    println!("{text}");
    assert!(report.failures.is_empty(), "{text}");
    for target in &report.targets {
        assert!(target.inputs > 0, "{} got no input\n{text}", target.name);
    }
    // The generators are structure-aware: some inputs of the text targets are accepted.
    for name in [
        "fen",
        "pdn",
        "moves",
        "players",
        "hub-line",
        "train-toml",
        "shard",
        "meta-json",
    ] {
        let t = report.targets.iter().find(|t| t.name == name).unwrap();
        assert!(t.accepted > 0, "{name}: nothing accepted\n{text}");
    }
}
