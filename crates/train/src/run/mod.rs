//! The training loop of one run directory: generation after generation, self-play with the
//! current network, training on the replay window, a checkpoint, and an evaluation.
//!
//! The directory is the database. Each step leaves a file that is written atomically, and
//! resuming looks only at those files:
//! - `shards/genNNNNNN-*.shard` and `games/genNNNNNN-*.pdn`, then `shards/genNNNNNN.done`
//!   (self-play of generation N complete, with its statistics);
//! - `checkpoints/NNNNNN/` (training of generation N complete: weights, optimiser, meta);
//! - `checkpoints/NNNNNN/eval.json` (its evaluation complete);
//! - `checkpoints/NNNNNN/time.json` (where the generation's wall clock went, and the run's
//!   clock when the checkpoint was made: what a time budget and the learning curve read);
//! - `best` (the self-play network when gating is on).
//!
//! A generation found half done is redone from its last complete step; nothing complete is
//! ever rewritten.
//!
//! The rooms: [`home`] (where the run lives: its paths, the object store it mirrors),
//! [`lease`] (one learner per run), [`reconcile`] (a local copy and its store agreeing),
//! `cycle` (the generation loop, in the order it runs), `selfplay_source` (games played here
//! or collected from workers), `training` (a generation's training, and network growth),
//! `evaluate` (matches, gating), [`records`] (what each step leaves) and [`error`]; this file
//! holds the run itself: opening it, its clock and its log.

mod cycle;
pub mod error;
mod evaluate;
pub mod home;
pub mod lease;
pub mod reconcile;
pub mod records;
mod selfplay_source;
mod training;

pub use error::RunError;
use error::io_error;
pub use home::{FINISHED, INCOMING, RunHome, RunPaths};
pub use records::{Evaluation, GenerationTime, RunVersions, SelfPlayDone, VERSIONS};

use crate::config::TrainConfig;
use crate::config_change::{ConfigChanges, config_changes};
use crate::tensorboard::TensorBoard;
use damas_arena::{EloEstimate, Wdl, balanced_openings};
use damas_nn::{BoardShape, Device, NetworkConfig, write_atomically};
use damas_rules::{Game, Position, Rules};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// How the loop reports progress; the command line draws bars, tests stay silent.
pub trait Progress {
    /// A phase starts with `total` units of work.
    fn start(&mut self, phase: &str, total: u64);
    /// `done` units of the phase are done; `message` says how it goes.
    fn update(&mut self, done: u64, message: &str);
    /// The phase is over.
    fn finish(&mut self);
    /// A line for the user (also written to `log.txt`).
    fn line(&mut self, text: &str);
}

/// Reports nothing.
pub struct Silent;

impl Progress for Silent {
    fn start(&mut self, _: &str, _: u64) {}
    fn update(&mut self, _: u64, _: &str) {}
    fn finish(&mut self) {}
    fn line(&mut self, _: &str) {}
}

/// What a finished run reports.
#[derive(Clone, Debug, Default)]
pub struct RunSummary {
    /// The last generation with a checkpoint.
    pub generation: u32,
    /// The final checkpoint against the first, if that match was configured.
    pub final_vs_first: Option<(Wdl, EloEstimate)>,
}

/// The loop over one run; see the module documentation.
pub struct Run<'a, V: Rules> {
    config: &'a TrainConfig,
    paths: RunPaths,
    board: TensorBoard,
    log: std::fs::File,
    progress: &'a mut dyn Progress,
    /// Start positions of the evaluation matches.
    openings: Vec<Game<V>>,
    /// Start positions of self-play (none: the variant's start).
    selfplay_openings: Vec<Position<V::Geometry>>,
    /// The endgame database self-play uses, if the config names one.
    selfplay_egdb: Option<std::sync::Arc<damas_egdb::Egdb<V>>>,
    /// No generation starts once the run's clock has passed this (`minutes` of the config).
    budget: Option<Duration>,
    /// Where the networks train and play (the config's `device`, opened).
    device: Device,
    /// Where the run is kept.
    home: RunHome,
}

impl<'a, V: Rules> Run<'a, V> {
    /// Opens (or creates) the run kept in `home` for `config`, whose text is `config_text`
    /// (copied into the run). Refuses a run made by a different variant or network. A run on
    /// an object store is first brought into the local directory (what it lacks).
    ///
    /// A run resumed with a config that differs from its own in anything but its budget
    /// ([`crate::config_change::BUDGET_KEYS`]) is refused unless `changes` accepts it.
    pub fn open(
        config: &'a TrainConfig,
        config_text: &str,
        mut home: RunHome,
        changes: ConfigChanges,
        progress: &'a mut dyn Progress,
    ) -> Result<Self, RunError> {
        // A device that cannot be used stops the run before it touches any file.
        let device = config.device.open()?;
        // The config's retry settings from the first request on.
        home.store = Arc::new(home.store.with_retry(&config.store.retry())?);
        // One learner per run: nothing is read or written before the lease is held.
        home.take_lease()?;
        home.check_copy()?;
        let paths = RunPaths::new(&home.root);
        for dir in [
            &paths.checkpoints,
            &paths.shards,
            &paths.games,
            &paths.tensorboard,
        ] {
            std::fs::create_dir_all(dir).map_err(io_error(dir))?;
        }
        let copy = paths.root.join("config.toml");
        let stored = home.store.get("config.toml")?;
        let previous = stored
            .as_deref()
            .and_then(|b| std::str::from_utf8(b).ok())
            .and_then(|text| TrainConfig::parse_on(text, Some(config.device)).ok());
        let mut changed = Vec::new();
        if let Some(previous) = previous {
            if previous.variant != config.variant || previous.network != config.network {
                return Err(RunError::Mismatch {
                    dir: paths.root.clone(),
                    found_variant: previous.variant.to_string(),
                    found_blocks: previous.network.blocks,
                    found_channels: previous.network.channels,
                    variant: config.variant.to_string(),
                    blocks: config.network.blocks,
                    channels: config.network.channels,
                });
            }
            // The text, not `config`: callers adjust the config in memory (a budget, the
            // external self-play switch) without changing the run's recipe.
            let resumed = TrainConfig::parse_on(config_text, Some(config.device))
                .unwrap_or_else(|_| config.clone());
            changed = config_changes(&previous, &resumed);
            let recipe: Vec<String> = changed
                .iter()
                .filter(|c| !c.is_budget())
                .map(ToString::to_string)
                .collect();
            if !recipe.is_empty() && changes == ConfigChanges::Refuse {
                return Err(RunError::ConfigChanged {
                    dir: paths.root.clone(),
                    changes: recipe,
                });
            }
        }
        let selfplay_openings = config.selfplay.read_openings::<V>()?;
        let selfplay_egdb = config.selfplay.read_egdb::<V>()?;
        // Workers stop when `finished` stays in the store for a while; a resumed run takes it
        // back before anything slow (the pull of a long run takes minutes), so that workers
        // started with it keep going.
        home.store.delete(FINISHED)?;
        let reconciled = home.reconcile()?;
        home.pull()?;
        write_atomically(&copy, config_text.as_bytes()).map_err(io_error(&copy))?;
        // What workers must write for this learner to read their shards.
        let versions = paths.root.join(records::VERSIONS);
        let text = serde_json::to_vec_pretty(&records::RunVersions::ours()).expect("serialises");
        write_atomically(&versions, &text).map_err(io_error(&versions))?;
        home.publish(&[copy.clone(), versions])?;
        // Earlier processes' TensorBoard events of this machine once, whole (one stopped
        // between a write and its upload left the store's copy short; other machines' files
        // may be short copies here); from here on each generation uploads only this
        // process's file.
        let events =
            TensorBoard::written_here(&paths.tensorboard).map_err(io_error(&paths.tensorboard))?;
        home.publish(&events)?;
        let log_path = paths.root.join("log.txt");
        let mut log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(io_error(&log_path))?;
        if !reconciled.is_empty() {
            let text = format!(
                "local copy and store reconciled: {} files uploaded, generations {:?} dropped \
                 from the copy, {} files taken from the store, {} workers' shards deleted again",
                reconciled.uploaded,
                reconciled.dropped_generations,
                reconciled.refetched,
                reconciled.redone_deletions
            );
            progress.line(&text);
            let _ = writeln!(log, "{text}");
        }
        if !changed.is_empty() {
            let list: Vec<String> = changed.iter().map(ToString::to_string).collect();
            let text = format!("resumed with a changed config: {}", list.join(", "));
            progress.line(&text);
            let _ = writeln!(log, "{text}");
        }
        let evaluation = &config.evaluation;
        let openings = balanced_openings::<V>(
            (evaluation
                .baseline_games
                .max(evaluation.previous_games)
                .max(evaluation.final_games) as usize)
                .div_ceil(2)
                .max(1),
            evaluation.opening_plies,
            60,
            config.seed,
        );
        Ok(Run {
            config,
            board: TensorBoard::new(&paths.tensorboard).map_err(io_error(&paths.tensorboard))?,
            paths,
            log,
            progress,
            openings,
            selfplay_openings,
            selfplay_egdb,
            budget: config.minutes.map(|m| Duration::from_secs_f64(m * 60.0)),
            device,
            home,
        })
    }

    /// The run's clock at the end of `generation` (0 before the first).
    fn clock_after(&self, generation: u32) -> f64 {
        GenerationTime::read(&self.paths.checkpoint(generation)).map_or(0.0, |t| t.elapsed)
    }

    /// Writes the TensorBoard events out; a write that failed since the last flush (a full
    /// disk) stops the run with the event file named.
    fn flush_board(&mut self) -> Result<(), RunError> {
        self.board.flush().map_err(|source| RunError::Io {
            path: self.board.path().to_path_buf(),
            source,
        })
    }

    /// The run's files.
    pub fn paths(&self) -> &RunPaths {
        &self.paths
    }

    fn say(&mut self, text: &str) {
        self.progress.line(text);
        let _ = writeln!(self.log, "{text}");
        let _ = self.log.flush();
    }

    fn network_config(&self) -> NetworkConfig {
        NetworkConfig::sized(BoardShape::of::<V>(), self.config.network)
    }
}

/// Runs the training loop of a config file in `runs/<name>` for the variant it names.
pub fn train(
    file: &crate::config::ConfigFile,
    runs: &Path,
    progress: &mut dyn Progress,
) -> Result<RunSummary, RunError> {
    train_in(
        file,
        RunHome::local(&runs.join(&file.config.name)),
        ConfigChanges::Refuse,
        progress,
    )
}

/// Runs the training loop of a config file in the run kept in `home`; a config that differs
/// from the run's own is refused or accepted as `changes` says.
pub fn train_in(
    file: &crate::config::ConfigFile,
    home: RunHome,
    changes: ConfigChanges,
    progress: &mut dyn Progress,
) -> Result<RunSummary, RunError> {
    struct Visit<'a>(
        &'a crate::config::ConfigFile,
        RunHome,
        ConfigChanges,
        &'a mut dyn Progress,
    );
    impl damas_rules::VariantVisitor for Visit<'_> {
        type Output = Result<RunSummary, RunError>;
        fn visit<V: Rules>(self) -> Self::Output {
            let Visit(file, home, changes, progress) = self;
            Run::<V>::open(&file.config, &file.text, home, changes, progress)?.run()
        }
    }
    file.config
        .variant
        .visit(Visit(file, home, changes, progress))
}
