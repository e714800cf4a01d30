//! Self-play straight into files: [`play_into_shards`] plays games with [`play_games`] and hands
//! each finished one to a [`ShardWriter`], keeping the statistics. It is the one driver behind
//! `damas selfplay` and the training loop's self-play phase; [`engine_games_into_shards`] does
//! the same for the alpha-beta engine's games (a warm start).

use crate::config::SelfPlayConfig;
use crate::engine_games::{EngineGames, play_engine_games};
use crate::output::{ShardWriter, Stats};
use crate::play::{TimedEvaluator, play_games};
use crate::shard::ShardError;
use damas_egdb::Egdb;
use damas_mcts::{CacheStats, CachedEvaluator, Evaluator};
use damas_rules::{Position, Rules};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// What a round of self-play did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelfPlayReport {
    /// Games, samples, results, resignations.
    pub stats: Stats,
    /// Each game's length in plies, in the order they finished.
    pub lengths: Vec<u32>,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Positions the network evaluated.
    pub evaluations: u64,
    /// Batches it evaluated them in.
    pub batches: u64,
    /// Seconds spent inside the network, summed over the game threads.
    pub network_seconds: f64,
    /// Game threads.
    pub workers: usize,
    /// The shard files written.
    pub shards: Vec<PathBuf>,
    /// The evaluation cache's hits and lookups.
    pub cache: CacheStats,
}

impl SelfPlayReport {
    /// The share of the game threads' time spent inside the network.
    pub fn network_share(&self) -> f64 {
        self.network_seconds / (self.seconds * self.workers.max(1) as f64).max(1e-9)
    }

    /// Mean positions per evaluation batch.
    pub fn mean_batch(&self) -> f64 {
        self.evaluations as f64 / self.batches.max(1) as f64
    }

    /// Recorded positions per second.
    pub fn samples_per_second(&self) -> f64 {
        self.stats.samples as f64 / self.seconds.max(1e-9)
    }
}

/// Plays `games` games of `V` with `evaluator` (seeded by `seed`, starting from `openings` in
/// turn, or the variant's start if none; `egdb` the endgame database to use as `config`
/// says) and writes them with `writer`, flushing it at the end.
/// `on_game` sees the running statistics and the seconds so far after each game. A write
/// error is returned once the games in flight have finished.
#[allow(clippy::too_many_arguments)]
pub fn play_into_shards<V: Rules, E: Evaluator<V>>(
    config: &SelfPlayConfig,
    evaluator: &E,
    games: u32,
    seed: u64,
    openings: &[Position<V::Geometry>],
    egdb: Option<&Arc<Egdb<V>>>,
    writer: &mut ShardWriter,
    mut on_game: impl FnMut(&Stats, f64),
) -> Result<SelfPlayReport, ShardError> {
    let timed = TimedEvaluator::new(evaluator);
    let cached = CachedEvaluator::new(&timed, config.cache_positions);
    let mut collector = Collector::new(writer);
    let model = collector.writer.model().to_string();
    play_games::<V, _>(
        config,
        &cached,
        games,
        seed,
        &model,
        openings,
        egdb,
        |record| {
            collector.add(record);
            on_game(&collector.stats, collector.started.elapsed().as_secs_f64());
        },
    );
    let mut report = collector.finish()?;
    report.evaluations = timed.positions();
    report.batches = timed.batches();
    report.network_seconds = timed.time().as_secs_f64();
    report.workers = config.workers.max(1);
    report.cache = cached.stats();
    Ok(report)
}

/// [`play_into_shards`] for games of the alpha-beta engine against itself (a warm start):
/// `games` games played as `settings` says, written with `writer`, flushed at the end.
pub fn engine_games_into_shards<V: Rules>(
    settings: &EngineGames,
    games: u32,
    seed: u64,
    openings: &[Position<V::Geometry>],
    writer: &mut ShardWriter,
    mut on_game: impl FnMut(&Stats, f64),
) -> Result<SelfPlayReport, ShardError> {
    let mut collector = Collector::new(writer);
    let model = collector.writer.model().to_string();
    play_engine_games::<V>(settings, games, seed, &model, openings, |record| {
        collector.add(record);
        on_game(&collector.stats, collector.started.elapsed().as_secs_f64());
    });
    let mut report = collector.finish()?;
    report.workers = settings.workers.max(1);
    Ok(report)
}

/// Hands finished games to a [`ShardWriter`] and keeps the statistics; the first write error
/// is kept and returned by [`Collector::finish`], after the games in flight have finished.
struct Collector<'a> {
    writer: &'a mut ShardWriter,
    stats: Stats,
    lengths: Vec<u32>,
    failure: Option<ShardError>,
    started: Instant,
}

impl<'a> Collector<'a> {
    fn new(writer: &'a mut ShardWriter) -> Self {
        Collector {
            writer,
            stats: Stats::default(),
            lengths: Vec::new(),
            failure: None,
            started: Instant::now(),
        }
    }

    fn add(&mut self, record: crate::play::GameRecord) {
        self.stats.add(&record);
        self.lengths.push(record.plies);
        if self.failure.is_none()
            && let Err(error) = self.writer.add(record)
        {
            self.failure = Some(error);
        }
    }

    /// The report's statistics, lengths, time and files; the evaluator's figures are left to
    /// the caller.
    fn finish(self) -> Result<SelfPlayReport, ShardError> {
        if let Some(error) = self.failure {
            return Err(error);
        }
        self.writer.flush()?;
        Ok(SelfPlayReport {
            stats: self.stats,
            lengths: self.lengths,
            seconds: self.started.elapsed().as_secs_f64(),
            shards: self.writer.written().to_vec(),
            ..SelfPlayReport::default()
        })
    }
}

/// What `damas selfplay` is asked to do.
#[derive(Clone, Debug)]
pub struct SelfPlayJob {
    /// The variant played.
    pub variant: damas_rules::Variant,
    /// The network, or a stand-in evaluator.
    pub model: damas_models::ModelSource,
    /// The device a checkpoint's network runs on.
    pub device: damas_nn::Device,
    /// Games to play.
    pub games: u32,
    /// Shards go to `out/shards`, games to `out/games`.
    pub out: PathBuf,
    /// The self-play settings.
    pub config: SelfPlayConfig,
    /// Seed of the games' randomness.
    pub seed: u64,
}

/// Why a self-play job failed.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// The model does not open.
    #[error(transparent)]
    Model(#[from] damas_models::ModelError),
    /// The openings file does not read.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// The output could not be written.
    #[error("writing self-play output")]
    Output(#[from] ShardError),
}

/// Runs a self-play job: opens the model, plays the games into `out`; `on_game` sees the
/// running statistics and the seconds so far after each game.
pub fn run_job(
    job: &SelfPlayJob,
    on_game: &mut dyn FnMut(&Stats, f64),
) -> Result<SelfPlayReport, JobError> {
    struct Visit<'a>(&'a SelfPlayJob, &'a mut dyn FnMut(&Stats, f64));
    impl damas_rules::VariantVisitor for Visit<'_> {
        type Output = Result<SelfPlayReport, JobError>;
        fn visit<V: Rules>(self) -> Self::Output {
            let Visit(job, on_game) = self;
            let openings = job.config.read_openings::<V>()?;
            let egdb = job.config.read_egdb::<V>()?;
            damas_nn::set_inference_threads(job.config.inference_threads);
            let model = damas_models::Model::<V>::open(&job.model, &job.device)?;
            let mut writer = ShardWriter::new::<V>(
                &job.out.join("shards"),
                &job.out.join("games"),
                "selfplay",
                model.name(),
                job.config.games_per_shard,
            );
            let report = play_into_shards::<V, _>(
                &job.config,
                &model.evaluator().as_ref(),
                job.games,
                job.seed,
                &openings,
                egdb.as_ref(),
                &mut writer,
                on_game,
            )?;
            SelfPlayConfig::check_egdb(egdb.as_ref())?;
            Ok(report)
        }
    }
    job.variant.visit(Visit(job, on_game))
}
