//! `damas selfplay`: generate training games with a network (or a stand-in evaluator) and write
//! them as shards and PDN.

use crate::model::open_evaluator;
use anyhow::Context;
use damas_rules::{Rules, Variant, VariantVisitor};
use damas_selfplay::{
    SelfPlayConfig, ShardWriter, Stats, TimedEvaluator, play_games, read_openings,
};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `damas selfplay`.
#[derive(clap::Args)]
pub struct Args {
    /// Variant to play.
    #[arg(long, value_parser = crate::parse_variant)]
    variant: Variant,
    /// A checkpoint directory, an exported ONNX file, `none` (the engine's static evaluation) or
    /// `uniform`.
    #[arg(long, default_value = "none")]
    model: String,
    /// Games to play.
    #[arg(long, default_value_t = 64)]
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
}

struct Run<'a>(&'a Args);

impl VariantVisitor for Run<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        let args = self.0;
        let config = match &args.config {
            Some(path) => SelfPlayConfig::read(path)?,
            None => SelfPlayConfig::default(),
        };
        let openings = match &config.openings {
            Some(path) => read_openings::<V>(path).map_err(anyhow::Error::msg)?,
            None => Vec::new(),
        };
        damas_nn::set_inference_threads(config.inference_threads);
        let (evaluator, name) = open_evaluator::<V>(&args.model)?;
        let evaluator = TimedEvaluator::new(evaluator);
        let mut writer = ShardWriter::new(
            &args.out.join("shards"),
            &args.out.join("games"),
            "selfplay",
            V::NAME,
            &name,
            config.games_per_shard,
        );
        let progress = if args.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(u64::from(args.games))
        };
        progress.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} games {msg}")
                .expect("valid template"),
        );
        let start = Instant::now();
        let mut stats = Stats::default();
        let mut failure = None;
        play_games::<V, _>(
            &config,
            &evaluator,
            args.games,
            args.seed,
            &name,
            &openings,
            |record| {
                stats.add(&record);
                if failure.is_none()
                    && let Err(error) = writer.add(record)
                {
                    failure = Some(error);
                }
                progress.set_position(u64::from(stats.games));
                progress.set_message(summary(&stats, start.elapsed().as_secs_f64()));
            },
        );
        progress.finish_and_clear();
        if let Some(error) = failure {
            return Err(error).context("writing self-play output");
        }
        writer.flush().context("writing self-play output")?;
        let seconds = start.elapsed().as_secs_f64();
        println!("{}", summary(&stats, seconds));
        println!(
            "network: {} positions in {} batches, {:.1}% of the time; {} shards in {}",
            evaluator.positions(),
            evaluator.batches(),
            100.0 * evaluator.time().as_secs_f64() / (seconds * config.workers.max(1) as f64),
            writer.written().len(),
            args.out.join("shards").display()
        );
        Ok(())
    }
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
    args.variant.visit(Run(&args))
}
