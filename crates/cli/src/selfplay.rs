//! `damas selfplay`: self-play games with a network (or a stand-in evaluator), written as shards
//! and PDN.

use crate::out::outln;
use damas_models::ModelSource;
use damas_rules::Variant;
use damas_selfplay::{SelfPlayConfig, SelfPlayJob, Stats, run_job};
use damas_train::SelfPlaySettings;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

/// Arguments of `damas selfplay`.
#[derive(clap::Args)]
pub struct Args {
    /// Variant to play (may be left out when `--config` is a run config, which names one).
    #[arg(long, value_parser = crate::args::parse_variant)]
    variant: Option<Variant>,
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
    /// Self-play settings: a run config (its `[selfplay]` table and variant, as `damas train`
    /// reads it) or a file of the `[selfplay]` table's keys; defaults otherwise.
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
    let settings = match &args.config {
        Some(path) => SelfPlaySettings::read(path, device)?,
        None => SelfPlaySettings {
            selfplay: SelfPlayConfig::defaults_for(device),
            variant: None,
        },
    };
    let variant = match (args.variant, settings.variant) {
        (Some(asked), Some(config)) if asked != config => anyhow::bail!(
            "--variant {asked} differs from the config's variant {config}: leave one out"
        ),
        (Some(variant), _) | (None, Some(variant)) => variant,
        (None, None) => anyhow::bail!("give --variant (or a run config that names one)"),
    };
    let job = SelfPlayJob {
        variant,
        model: args.model,
        device: args.device.open()?,
        games: args.games,
        out: args.out,
        config: settings.selfplay,
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
    outln!("{}", summary(&report.stats, report.seconds));
    outln!(
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
