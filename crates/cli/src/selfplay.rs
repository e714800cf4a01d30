//! `damas selfplay`: self-play games with a network (or a stand-in evaluator), written as shards
//! and PDN.

use damas_models::ModelSource;
use damas_rules::Variant;
use damas_selfplay::{SelfPlayConfig, SelfPlayJob, Stats, run_job};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

/// Arguments of `damas selfplay`.
#[derive(clap::Args)]
pub struct Args {
    /// Variant to play.
    #[arg(long, value_parser = crate::args::parse_variant)]
    variant: Variant,
    /// A checkpoint directory, an exported ONNX file, `none` (the engine's static evaluation) or
    /// `uniform`.
    #[arg(long, default_value = "none")]
    model: ModelSource,
    /// Games to play.
    #[arg(long, default_value_t = 64, value_parser = crate::args::at_least_one::<u32>)]
    games: u32,
    /// Output directory: shards go to OUT/shards, games to OUT/games.
    #[arg(long)]
    out: PathBuf,
    /// Self-play settings (TOML, the `[selfplay]` table's keys); defaults otherwise.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Seed of the games' randomness.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// No progress bar; one summary line at the end.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    device: crate::args::DeviceArgs,
}

/// One line: games, positions/s, average length, W/D/L, resignation checks.
fn summary(stats: &Stats, seconds: f64) -> String {
    format!(
        "{} games, {} positions ({:.1}/s), {:.1} plies avg, W/D/L {}/{}/{}, resigned {}, \
         false resignations {}/{} checked",
        stats.games,
        stats.samples,
        stats.samples as f64 / seconds.max(1e-9),
        stats.average_plies(),
        stats.white_wins,
        stats.draws,
        stats.black_wins,
        stats.resignations,
        stats.false_resignations,
        stats.would_resign,
    )
}

/// Runs `damas selfplay`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let device = args.device.device;
    let job = SelfPlayJob {
        variant: args.variant,
        model: args.model,
        device: args.device.open()?,
        games: args.games,
        out: args.out,
        config: match &args.config {
            Some(path) => SelfPlayConfig::read(path, args.device.device)?,
            None => SelfPlayConfig::defaults_for(args.device.device),
        },
        seed: args.seed,
    };
    let progress = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(u64::from(job.games))
    };
    progress.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games {msg}").expect("valid template"),
    );
    let report = run_job(&job, &mut |stats, seconds| {
        progress.set_position(u64::from(stats.games));
        progress.set_message(summary(stats, seconds));
    });
    progress.finish_and_clear();
    let report = report?;
    println!("{}", summary(&report.stats, report.seconds));
    println!(
        "network on {}: {} positions in {} batches (mean {:.1}), {:.1}% of the time; cache hits \
         {:.1}% of {} leaves; {} shards in {}",
        device,
        report.evaluations,
        report.batches,
        report.mean_batch(),
        100.0 * report.network_share(),
        100.0 * report.cache.hit_rate(),
        report.cache.lookups,
        report.shards.len(),
        job.out.join("shards").display()
    );
    Ok(())
}
