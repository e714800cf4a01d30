//! `damas worker --run LOCATION`: self-play for a learner elsewhere; one line per shard.

use crate::out::outln;
use crate::train::{Bars, open_store};
use damas_train::worker::random_worker_id;
use damas_train::{WorkerOptions, run_worker};
use std::path::PathBuf;

/// Arguments of `damas worker`.
#[derive(clap::Args)]
pub struct Args {
    /// Where the run lives: the directory or object-store URL the learner was given with
    /// `damas train --run` (`s3://bucket/prefix` and the like need `--features object-store`).
    #[arg(long)]
    run: String,
    /// This worker's name in its shards (letters, digits, `_`; default: 8 random hex digits).
    /// Reusing an id continues its numbering; two live workers must not share one.
    #[arg(long)]
    id: Option<String>,
    /// Local folder for fetched networks and the shard being played (default: the system's
    /// temporary folder).
    #[arg(long)]
    cache: Option<PathBuf>,
    /// Stop after this many shards (default: when the learner marks the run finished).
    #[arg(long)]
    shards: Option<u64>,
    /// Where the network plays, in place of the run config's `device`.
    #[arg(long, value_parser = crate::args::parse_device)]
    device: Option<damas_nn::DeviceChoice>,
    /// No progress bar: one line per shard.
    #[arg(long)]
    quiet: bool,
}

/// Runs `damas worker`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let store = open_store(&args.run)?;
    let options = WorkerOptions {
        id: args.id.unwrap_or_else(random_worker_id),
        cache: args
            .cache
            .unwrap_or_else(|| std::env::temp_dir().join("damas-worker")),
        shards: args.shards,
        device: args.device,
    };
    let mut bars = Bars::new(args.quiet);
    let summary = run_worker(&store, &options, &mut bars).map_err(crate::run_error)?;
    outln!(
        "worker {}: {} shards, {} games, {} samples in {:.1}s of play ({:.1} samples/s)",
        options.id,
        summary.shards,
        summary.games,
        summary.samples,
        summary.playing_seconds,
        summary.samples_per_second()
    );
    Ok(())
}
