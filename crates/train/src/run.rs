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

use crate::config::TrainConfig;
use crate::config_change::{ConfigChanges, config_changes};
use crate::replay::ReplayWindow;
use crate::tensorboard::TensorBoard;
use crate::trainer::{TrainMetrics, Trainer};
use damas_arena::{
    AlphaBetaPlayer, BoxedFactory, EloEstimate, GameRules, MctsPlayer, Player, PlayerFactory, Wdl,
    balanced_openings, elo_estimate, run_match,
};
use damas_engine::Limits;
use damas_mcts::{Evaluator, StaticEvaluator};
use damas_models::{Model, ModelError};
use damas_nn::{
    BoardShape, CheckpointError, CheckpointMeta, Device, DeviceError, NetworkConfig, NetworkSize,
    checkpoint_dir, list_checkpoints, write_atomically,
};
use damas_rules::{Game, Position, Rules};
use damas_selfplay::{
    ConfigError, EngineGames, Shard, ShardError, ShardWriter, engine_games_into_shards,
    play_into_shards,
};
use damas_store::{Location, RunStore, StoreError};
use rand::rngs::StdRng;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

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

/// Why a run stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A file of the run could not be written.
    #[error("cannot write {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// A checkpoint could not be read or written.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// A checkpoint's network could not be opened for play.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A shard could not be read or written.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The self-play settings do not work (an openings file that does not read).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The config's device cannot be used.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The run's store could not be read or written.
    #[error("run store")]
    Store(#[from] StoreError),
    /// The run was started with a config that differs from this one in its recipe.
    #[error(
        "{dir} was started with another config; this one changes {}: a run keeps the config \
         it started with (give the new config another `name` for a new run in runs/<name>/, \
         or pass --config-changed=accept to go on with the new values)",
        changes.join(", ")
    )]
    ConfigChanged {
        /// The run directory.
        dir: PathBuf,
        /// Each changed key with its old and new value.
        changes: Vec<String>,
    },
    /// The run directory holds a different run.
    #[error(
        "{dir} holds a run of {found_variant} with a {found_blocks}x{found_channels} network; \
         this config asks for {variant} with {blocks}x{channels} (use another name)"
    )]
    Mismatch {
        /// The run directory.
        dir: PathBuf,
        /// The variant of the run it holds.
        found_variant: String,
        /// Its network's blocks.
        found_blocks: usize,
        /// Its network's channels.
        found_channels: usize,
        /// The variant asked for.
        variant: String,
        /// The network's blocks asked for.
        blocks: usize,
        /// The network's channels asked for.
        channels: usize,
    },
}

/// The store key that tells workers the run is over (it holds the last generation).
pub const FINISHED: &str = "finished";

/// The store folder workers upload their shards to.
pub const INCOMING: &str = "incoming";

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The files of a run.
#[derive(Clone, Debug)]
pub struct RunPaths {
    /// `runs/<name>`.
    pub root: PathBuf,
    /// `checkpoints/`.
    pub checkpoints: PathBuf,
    /// `shards/`.
    pub shards: PathBuf,
    /// `games/`.
    pub games: PathBuf,
    /// `tensorboard/`.
    pub tensorboard: PathBuf,
}

impl RunPaths {
    /// The paths of run directory `root`.
    pub fn new(root: &Path) -> Self {
        RunPaths {
            root: root.to_path_buf(),
            checkpoints: root.join("checkpoints"),
            shards: root.join("shards"),
            games: root.join("games"),
            tensorboard: root.join("tensorboard"),
        }
    }

    /// Checkpoint directory of generation `generation`.
    pub fn checkpoint(&self, generation: u32) -> PathBuf {
        checkpoint_dir(&self.checkpoints, generation)
    }

    /// Generations with a complete checkpoint, in order.
    pub fn generations(&self) -> Result<Vec<u32>, RunError> {
        Ok(list_checkpoints(&self.checkpoints)?)
    }
}

/// Where a run is kept: the local directory the loop works in, and the store the run lives in,
/// which is that same directory or an object store the directory mirrors. Every file the loop
/// completes is published to the store in an order that keeps the store resumable (shards
/// before their generation's marker, a checkpoint's `meta.json` after its other files).
pub struct RunHome {
    /// The local directory (for a run on an object store: its local copy).
    pub root: PathBuf,
    /// Where the run lives.
    pub store: RunStore,
}

impl RunHome {
    /// A run kept in the local directory `root`.
    pub fn local(root: &Path) -> Self {
        RunHome {
            root: root.to_path_buf(),
            store: RunStore::open(&Location::Local(root.to_path_buf()), &[])
                .expect("a local store opens without contacting anything"),
        }
    }

    /// A run in `store`, worked on in the local directory `cache` when the store is remote.
    pub fn new(store: RunStore, cache: &Path) -> Self {
        let root = store.local_root().unwrap_or(cache).to_path_buf();
        RunHome { root, store }
    }

    /// Whether the local directory is a copy of a remote store.
    fn mirrored(&self) -> bool {
        self.store.local_root().is_none()
    }

    /// The store key of a file of the local directory.
    fn key(&self, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(&self.root).ok()?;
        let parts: Vec<_> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }

    /// Copies files of the local directory to the store, in the order given (nothing to do
    /// when the store is the directory).
    pub fn publish(&self, files: &[PathBuf]) -> Result<(), RunError> {
        if !self.mirrored() {
            return Ok(());
        }
        for path in files {
            let Some(key) = self.key(path) else { continue };
            let bytes = std::fs::read(path).map_err(io_error(path))?;
            self.store.put(&key, &bytes)?;
        }
        Ok(())
    }

    /// Publishes every file of directory `dir`, `meta.json` last (a checkpoint counts as
    /// published once its `meta.json` is).
    fn publish_dir(&self, dir: &Path) -> Result<(), RunError> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(io_error(dir))?
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.is_file())
            .collect();
        files.sort_by_key(|path| (path.ends_with("meta.json"), path.clone()));
        self.publish(&files)
    }

    /// Fetches every object of the store that the local directory lacks (but the workers'
    /// `incoming/` shards), checkpoints' `meta.json` last; returns how many.
    pub fn pull(&self) -> Result<usize, RunError> {
        if !self.mirrored() {
            return Ok(0);
        }
        Ok(self
            .store
            .fetch_missing("", &self.root, |key| key.starts_with("incoming/"))?)
    }
}

/// Statistics of one generation's self-play, kept in `shards/genNNNNNN.done`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SelfPlayDone {
    /// Games played.
    pub games: u32,
    /// Samples recorded.
    pub samples: u64,
    /// Plies played.
    pub plies: u64,
    /// White's wins, draws, Black's wins (White is not the first to move in every variant).
    pub results: (u32, u32, u32),
    /// Resignations; resignation-check games in which a side would have resigned; of those,
    /// the ones it would not have lost.
    pub resignations: (u32, u32, u32),
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Share of the time inside the network.
    pub network_share: f64,
    /// Share of the leaves the evaluation cache answered.
    #[serde(default)]
    pub cache_hit_rate: f64,
    /// Positions the network evaluated.
    #[serde(default)]
    pub evaluations: u64,
    /// Mean positions per network batch (how well the device's batches were filled).
    #[serde(default)]
    pub mean_batch: f64,
    /// With external self-play: the workers' shards (`incoming/` keys) this generation took.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub consumed: Vec<String>,
    /// With external self-play: shards dropped for being played by too old a network.
    #[serde(default)]
    pub stale_dropped: u32,
}

/// One checkpoint's evaluation, kept in `checkpoints/NNNNNN/eval.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Results against the alpha-beta baseline.
    pub baseline: Option<Wdl>,
    /// Elo against the baseline with its interval.
    pub baseline_elo: Option<EloEstimate>,
    /// Results against the previous checkpoint.
    pub previous: Option<Wdl>,
    /// Elo against the previous checkpoint.
    pub previous_elo: Option<EloEstimate>,
    /// Whether it became the self-play network.
    pub promoted: bool,
}

/// Where one generation's wall-clock time went, in seconds, kept in
/// `checkpoints/NNNNNN/time.json`. The run's clock counts only time spent in the loop, so a
/// stopped and resumed run reads as if it had run straight through (less the lost work).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GenerationTime {
    /// Playing the self-play games (shards written as they fill).
    pub selfplay: f64,
    /// Optimisation steps.
    pub training: f64,
    /// Reading the replay window and writing the checkpoint.
    pub io: f64,
    /// The evaluation matches.
    pub evaluation: f64,
    /// The run's clock when this checkpoint was written.
    pub trained_at: f64,
    /// The run's clock when this generation ended (its evaluation included).
    pub elapsed: f64,
}

impl GenerationTime {
    /// The record of checkpoint `dir`, if it has one.
    pub fn read(dir: &Path) -> Option<GenerationTime> {
        let text = std::fs::read_to_string(dir.join("time.json")).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Writes the record into checkpoint `dir`, atomically.
    fn write(&self, dir: &Path) -> Result<(), RunError> {
        let path = dir.join("time.json");
        let text = serde_json::to_string_pretty(self).expect("serializable");
        write_atomically(&path, text.as_bytes()).map_err(io_error(&path))
    }
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
        home: RunHome,
        changes: ConfigChanges,
        progress: &'a mut dyn Progress,
    ) -> Result<Self, RunError> {
        // A device that cannot be used stops the run before it touches any file.
        let device = config.device.open()?;
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
        home.pull()?;
        write_atomically(&copy, config_text.as_bytes()).map_err(io_error(&copy))?;
        home.publish(std::slice::from_ref(&copy))?;
        // Workers stop when they see `finished`; a resumed run takes it back.
        home.store.delete(FINISHED)?;
        let log_path = paths.root.join("log.txt");
        let mut log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(io_error(&log_path))?;
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

    /// Runs generations until `config.generations` have checkpoints and evaluations.
    pub fn run(&mut self) -> Result<RunSummary, RunError> {
        damas_nn::set_inference_threads(self.config.training.threads);
        if self.paths.generations()?.is_empty() {
            let trainer = Trainer::<V>::new(
                &self.network_config(),
                &self.config.training,
                self.config.seed,
                &self.device,
            );
            let meta = CheckpointMeta::new::<V>(self.network_config());
            trainer.save(&self.paths.checkpoint(0), &meta, vec![])?;
            self.home.publish_dir(&self.paths.checkpoint(0))?;
            self.say(&format!(
                "{}: new run of {}, generation 0 is an untrained network",
                self.config.name,
                V::NAME
            ));
        }
        self.say(&format!(
            "device {}; self-play: {} games in flight per worker, {} leaves per game per batch",
            self.config.device,
            self.config.selfplay.games_per_worker,
            self.config.selfplay.search.leaves_per_batch
        ));
        let mut generation = *self
            .paths
            .generations()?
            .last()
            .expect("generation 0 exists");
        if generation > 0 && !self.paths.checkpoint(generation).join("time.json").exists() {
            // Stopped after the checkpoint: finish its evaluation, and record its time from
            // what is known (self-play's seconds; the training's were lost with the process).
            let evaluated = Instant::now();
            if !self.paths.checkpoint(generation).join("eval.json").exists() {
                self.evaluate(generation)?;
            }
            let marker = self.paths.shards.join(format!("gen{generation:06}.done"));
            let selfplay = std::fs::read_to_string(marker)
                .ok()
                .and_then(|text| serde_json::from_str::<SelfPlayDone>(&text).ok())
                .map_or(0.0, |done| done.seconds);
            let trained_at = self.clock_after(generation - 1) + selfplay;
            let evaluation = evaluated.elapsed().as_secs_f64();
            let time = GenerationTime {
                selfplay,
                evaluation,
                trained_at,
                elapsed: trained_at + evaluation,
                ..GenerationTime::default()
            };
            time.write(&self.paths.checkpoint(generation))?;
            self.publish_generation_end(generation)?;
        }
        if generation > 0 {
            self.say(&format!("resuming after generation {generation}"));
        }
        while generation < self.config.generations {
            let clock = self.clock_after(generation);
            if let Some(budget) = self.budget
                && clock >= budget.as_secs_f64()
            {
                self.say(&format!(
                    "time budget of {:.1} minutes spent after generation {generation} ({:.1} min)",
                    budget.as_secs_f64() / 60.0,
                    clock / 60.0
                ));
                break;
            }
            generation += 1;
            let started = Instant::now();
            let done = self.self_play(generation)?;
            let selfplay_seconds = started.elapsed().as_secs_f64();
            let (metrics, mut time) = self.train(generation, &done)?;
            time.selfplay = selfplay_seconds;
            time.trained_at = clock + time.selfplay + time.training + time.io;
            let train_seconds = time.training;
            let evaluated = Instant::now();
            let evaluation = self.evaluate(generation)?;
            time.evaluation = evaluated.elapsed().as_secs_f64();
            time.elapsed = time.trained_at + time.evaluation;
            time.write(&self.paths.checkpoint(generation))?;
            for (tag, seconds) in [
                ("time/selfplay_seconds", time.selfplay),
                ("time/training_seconds", time.training),
                ("time/io_seconds", time.io),
                ("time/evaluation_seconds", time.evaluation),
            ] {
                self.board.scalar(tag, seconds, u64::from(generation));
            }
            // The generation in a few lines of at most about 100 characters: positions and
            // losses, where the games came from (here: their length, how full the network's
            // batches were, cache hits; from workers: their shards), time, the baseline match.
            let secs = |s: f64| {
                if s < 10.0 {
                    format!("{s:.1}s")
                } else {
                    format!("{s:.0}s")
                }
            };
            let mut text = format!(
                "generation {generation}: {} games, {} positions, policy loss {:.3}, value loss \
                 {:.3}, value acc. {:.1}%",
                done.games,
                done.samples,
                metrics.policy_loss,
                metrics.value_loss,
                100.0 * metrics.value_accuracy,
            );
            if done.consumed.is_empty() {
                text += &format!(
                    "\n  self-play: {:.1} plies a game, mean batch {:.1}, cache hits {:.1}%",
                    done.plies as f64 / f64::from(done.games.max(1)),
                    done.mean_batch,
                    100.0 * done.cache_hit_rate,
                );
            } else {
                text += &format!(
                    "\n  from {} worker shards ({} stale dropped)",
                    done.consumed.len(),
                    done.stale_dropped
                );
            }
            let clock = if time.elapsed < 60.0 {
                secs(time.elapsed)
            } else {
                format!("{:.1} min", time.elapsed / 60.0)
            };
            text += &format!(
                "\n  time: self-play {}, training {}, i/o {}, evaluation {}; run clock {clock}",
                secs(selfplay_seconds),
                secs(train_seconds),
                secs(time.io),
                secs(time.evaluation),
            );
            if let Some((wdl, elo)) = evaluation.baseline.zip(evaluation.baseline_elo) {
                text += &format!(
                    "\n  vs baseline: {:.1}% (W/D/L {}/{}/{}), {elo}",
                    100.0 * wdl.score(),
                    wdl.wins,
                    wdl.draws,
                    wdl.losses
                );
            }
            self.say(&text);
            self.board.scalar(
                "time/selfplay_to_training_ratio",
                selfplay_seconds / train_seconds.max(1e-9),
                u64::from(generation),
            );
            self.flush_board()?;
            self.publish_generation_end(generation)?;
        }
        let mut summary = RunSummary {
            generation,
            final_vs_first: None,
        };
        if self.config.evaluation.final_games > 0 && generation > 0 {
            let wdl = self.net_match(
                generation,
                0,
                self.config.evaluation.final_games,
                "final vs first",
            )?;
            let elo = elo_estimate(wdl);
            self.say(&format!(
                "final checkpoint {generation} vs first (0): {:.1}% ({}/{}/{} in {} games), {elo}",
                100.0 * wdl.score(),
                wdl.wins,
                wdl.draws,
                wdl.losses,
                wdl.games()
            ));
            summary.final_vs_first = Some((wdl, elo));
        }
        self.flush_board()?;
        self.publish_generation_end(generation)?;
        self.home
            .store
            .put(FINISHED, format!("{generation}\n").as_bytes())?;
        Ok(summary)
    }

    /// Publishes what a generation leaves besides its shards and checkpoint: its evaluation and
    /// time records, the gating choice, the log and the TensorBoard events.
    fn publish_generation_end(&self, generation: u32) -> Result<(), RunError> {
        if !self.home.mirrored() {
            return Ok(());
        }
        let dir = self.paths.checkpoint(generation);
        let mut files: Vec<PathBuf> = [
            dir.join("eval.json"),
            dir.join("time.json"),
            self.paths.root.join("best"),
            self.paths.root.join("log.txt"),
        ]
        .into_iter()
        .filter(|path| path.exists())
        .collect();
        files.extend(
            std::fs::read_dir(&self.paths.tensorboard)
                .map_err(io_error(&self.paths.tensorboard))?
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| path.is_file()),
        );
        self.home.publish(&files)
    }

    /// The generation whose network plays self-play games: the latest, or with gating the
    /// last one promoted.
    fn self_play_generation(&self, before: u32) -> u32 {
        if !self.config.evaluation.gating {
            return before;
        }
        std::fs::read_to_string(self.paths.root.join("best"))
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .filter(|&best| best <= before)
            .unwrap_or(0)
    }

    /// Generation `generation`'s self-play, played here or collected from workers; its
    /// shards and marker are published before it returns.
    fn self_play(&mut self, generation: u32) -> Result<SelfPlayDone, RunError> {
        let prefix = format!("gen{generation:06}");
        let marker = self.paths.shards.join(format!("{prefix}.done"));
        if let Ok(text) = std::fs::read_to_string(&marker)
            && let Ok(done) = serde_json::from_str::<SelfPlayDone>(&text)
        {
            return Ok(done);
        }
        // Leftovers of an interrupted self-play of this generation are incomplete: start over.
        for dir in [&self.paths.shards, &self.paths.games] {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                if entry.file_name().to_string_lossy().starts_with(&prefix) {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        if self.home.mirrored() {
            for folder in ["shards", "games"] {
                for key in self.home.store.list(folder)? {
                    if key[folder.len() + 1..].starts_with(&prefix) {
                        self.home.store.delete(&key)?;
                    }
                }
            }
        }
        let done = if self.config.distributed.external_selfplay {
            self.collect_worker_games(generation, &prefix)?
        } else {
            self.play_games(generation, &prefix)?
        };
        let step = u64::from(generation);
        let board = &mut self.board;
        board.scalar(
            "selfplay/positions_per_second",
            done.samples as f64 / done.seconds.max(1e-9),
            step,
        );
        board.scalar(
            "selfplay/game_length",
            done.plies as f64 / f64::from(done.games.max(1)),
            step,
        );
        let games = f64::from(done.games.max(1));
        let (white, draws, black) = done.results;
        board.scalar("selfplay/white_wins", f64::from(white) / games, step);
        board.scalar("selfplay/draws", f64::from(draws) / games, step);
        board.scalar("selfplay/black_wins", f64::from(black) / games, step);
        let mut files = Vec::new();
        for dir in [&self.paths.games, &self.paths.shards] {
            for entry in std::fs::read_dir(dir).map_err(io_error(dir))?.flatten() {
                if entry.file_name().to_string_lossy().starts_with(&prefix) {
                    files.push(entry.path());
                }
            }
        }
        self.home.publish(&files)?;
        let text = serde_json::to_string_pretty(&done).expect("serializable");
        write_atomically(&marker, text.as_bytes()).map_err(io_error(&marker))?;
        self.home.publish(std::slice::from_ref(&marker))?;
        // Only now, with the marker kept, may the workers' copies go.
        for key in &done.consumed {
            self.home.store.delete(key)?;
        }
        Ok(done)
    }

    /// Plays generation `generation`'s games here, into shards named `prefix-NNNNNN`: with the
    /// network (or in generation 1 the static evaluation, or the engine's own games when the
    /// run has a warm start).
    fn play_games(&mut self, generation: u32, prefix: &str) -> Result<SelfPlayDone, RunError> {
        let warm_start = &self.config.warm_start;
        let engine_games = generation == 1 && warm_start.games > 0;
        let player = self.self_play_generation(generation - 1);
        // No evaluator when the engine plays.
        let (evaluator, model): (Option<Arc<dyn Evaluator<V>>>, String) = if engine_games {
            (None, format!("alphabeta:depth={}", warm_start.depth))
        } else if generation == 1 && self.config.bootstrap_with_static_eval {
            (
                Some(Arc::new(StaticEvaluator::<V>::default())),
                "static-eval".into(),
            )
        } else {
            (
                Some(self.load_evaluator(player)?),
                format!("{}/{player:06}", self.config.name),
            )
        };
        let mut writer = ShardWriter::new::<V>(
            &self.paths.shards,
            &self.paths.games,
            prefix,
            &model,
            self.config.selfplay.games_per_shard,
        )
        .with_generation(player);
        let games = if engine_games {
            warm_start.games
        } else {
            self.config.games_per_generation
        };
        self.progress.start(
            &format!("generation {generation} self-play"),
            u64::from(games),
        );
        let seed = self.config.seed ^ u64::from(generation).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let progress = &mut *self.progress;
        let on_game = |stats: &damas_selfplay::Stats, seconds: f64| {
            progress.update(
                u64::from(stats.games),
                &format!(
                    "{:.1} positions/s, {:.1} plies avg, W/D/L {}/{}/{}",
                    stats.samples as f64 / seconds.max(1e-9),
                    stats.average_plies(),
                    stats.white_wins,
                    stats.draws,
                    stats.black_wins
                ),
            );
        };
        let report = if let Some(evaluator) = evaluator {
            play_into_shards::<V, _>(
                &self.config.selfplay,
                &evaluator.as_ref(),
                games,
                seed,
                &self.selfplay_openings,
                &mut writer,
                on_game,
            )
        } else {
            let settings = EngineGames {
                depth: warm_start.depth,
                opening_plies: warm_start.opening_plies,
                max_plies: self.config.selfplay.max_plies,
                workers: self.config.selfplay.workers,
            };
            engine_games_into_shards::<V>(
                &settings,
                games,
                seed,
                &self.selfplay_openings,
                &mut writer,
                on_game,
            )
        };
        self.progress.finish();
        let report = report?;
        let stats = &report.stats;
        let done = SelfPlayDone {
            games: stats.games,
            samples: stats.samples,
            plies: stats.plies,
            results: (stats.white_wins, stats.draws, stats.black_wins),
            resignations: (
                stats.resignations,
                stats.would_resign,
                stats.false_resignations,
            ),
            seconds: report.seconds,
            network_share: report.network_share(),
            cache_hit_rate: report.cache.hit_rate(),
            evaluations: report.evaluations,
            mean_batch: report.mean_batch(),
            ..SelfPlayDone::default()
        };
        let step = u64::from(generation);
        let board = &mut self.board;
        let lengths: Vec<f64> = report.lengths.iter().map(|&n| f64::from(n)).collect();
        board.histogram("selfplay/game_lengths", &lengths, 20, step);
        board.scalar("selfplay/network_time_share", done.network_share, step);
        board.scalar("selfplay/cache_hit_rate", done.cache_hit_rate, step);
        board.scalar("selfplay/mean_batch", done.mean_batch, step);
        board.scalar(
            "selfplay/evaluations_per_sample",
            done.evaluations as f64 / done.samples.max(1) as f64,
            step,
        );
        Ok(done)
    }

    /// The `incoming/` shards earlier generations took (their copies may still be there if a
    /// stop came between the marker and the deletion).
    fn consumed_before(&self, generation: u32) -> std::collections::HashSet<String> {
        (1..generation)
            .filter_map(|g| {
                let marker = self.paths.shards.join(format!("gen{g:06}.done"));
                let text = std::fs::read_to_string(marker).ok()?;
                Some(serde_json::from_str::<SelfPlayDone>(&text).ok()?.consumed)
            })
            .flatten()
            .collect()
    }

    /// Generation `generation`'s games from workers: waits until `incoming/` holds at least
    /// `games_per_generation` games played by a network no more than `max_staleness`
    /// generations older than the newest, and copies their shards in as `prefix-<name>`.
    /// Every shard is decoded and checked before it counts; a damaged one is dropped.
    fn collect_worker_games(
        &mut self,
        generation: u32,
        prefix: &str,
    ) -> Result<SelfPlayDone, RunError> {
        let started = Instant::now();
        let newest = self.self_play_generation(generation - 1);
        let oldest = newest.saturating_sub(self.config.distributed.max_staleness);
        let wanted = self.config.games_per_generation;
        let poll = Duration::from_secs_f64(self.config.distributed.poll_seconds);
        let mut seen = self.consumed_before(generation);
        let mut done = SelfPlayDone::default();
        let mut waits = 0u32;
        self.progress.start(
            &format!("generation {generation} worker games"),
            u64::from(wanted),
        );
        while done.games < wanted {
            let mut progressed = false;
            for key in self.home.store.list(INCOMING)? {
                if done.games >= wanted {
                    break;
                }
                let Some(name) = key
                    .strip_prefix("incoming/")
                    .filter(|name| name.ends_with(".shard") && !name.contains('/'))
                else {
                    continue;
                };
                if seen.contains(&key) {
                    continue;
                }
                seen.insert(key.clone());
                let played_by = name
                    .strip_prefix('g')
                    .and_then(|rest| rest.get(..6))
                    .and_then(|digits| digits.parse::<u32>().ok());
                if played_by.is_some_and(|g| g < oldest) {
                    self.home.store.delete(&key)?;
                    done.stale_dropped += 1;
                    continue;
                }
                let Some(bytes) = self.home.store.get(&key)? else {
                    continue;
                };
                let shard = match Shard::from_bytes(&bytes, Path::new(&key)) {
                    Ok(shard) if shard.header.variant == V::NAME => shard,
                    Ok(shard) => {
                        let text = format!(
                            "{key}: a shard of {}, not {}: dropped",
                            shard.header.variant,
                            V::NAME
                        );
                        self.say(&text);
                        self.home.store.delete(&key)?;
                        continue;
                    }
                    Err(error) => {
                        self.say(&format!("{error}: dropped"));
                        self.home.store.delete(&key)?;
                        continue;
                    }
                };
                if shard.header.generation.is_none_or(|g| g < oldest) {
                    self.home.store.delete(&key)?;
                    done.stale_dropped += 1;
                    continue;
                }
                let path = self.paths.shards.join(format!("{prefix}-{name}"));
                write_atomically(&path, &bytes).map_err(io_error(&path))?;
                let header = &shard.header;
                done.games += header.games;
                done.samples += shard.samples.len() as u64;
                done.plies += header.plies;
                done.results.0 += header.results[0];
                done.results.1 += header.results[1];
                done.results.2 += header.results[2];
                done.consumed.push(key);
                progressed = true;
                self.progress.update(
                    u64::from(done.games),
                    &format!("{} shards from workers", done.consumed.len()),
                );
            }
            if done.games < wanted && !progressed {
                waits += 1;
                if waits.is_multiple_of(60) {
                    let text = format!(
                        "generation {generation}: {} of {wanted} games after {:.0}s; waiting for \
                         workers (`damas worker --run {}`)",
                        done.games,
                        started.elapsed().as_secs_f64(),
                        self.home.store.location()
                    );
                    self.say(&text);
                }
                std::thread::sleep(poll);
            }
        }
        self.progress.finish();
        done.seconds = started.elapsed().as_secs_f64();
        Ok(done)
    }

    /// The network of checkpoint `generation` as an evaluator.
    fn load_evaluator(&self, generation: u32) -> Result<Arc<dyn Evaluator<V>>, RunError> {
        let model = Model::<V>::open_path(&self.paths.checkpoint(generation), &self.device)?;
        Ok(model.evaluator())
    }

    /// Samples made by every generation up to `generation` (from the self-play markers).
    fn total_samples(&self, generation: u32) -> u64 {
        (1..=generation)
            .filter_map(|g| {
                let marker = self.paths.shards.join(format!("gen{g:06}.done"));
                let text = std::fs::read_to_string(marker).ok()?;
                Some(serde_json::from_str::<SelfPlayDone>(&text).ok()?.samples)
            })
            .sum()
    }

    /// Trains generation `generation` and writes its checkpoint; the time it took (training
    /// and i/o; the rest of the record is the caller's).
    fn train(
        &mut self,
        generation: u32,
        done: &SelfPlayDone,
    ) -> Result<(TrainMetrics, GenerationTime), RunError> {
        let loading = Instant::now();
        let previous = self.paths.checkpoint(generation - 1);
        let (trainer, meta) = Trainer::<V>::resume(&previous, &self.config.training, &self.device)?;
        let training = &self.config.training;
        let total = self.total_samples(generation);
        let window_size = ReplayWindow::size_for(training, total);
        let window = ReplayWindow::load::<V>(&self.paths.shards, window_size)?;
        let mut time = GenerationTime {
            io: loading.elapsed().as_secs_f64(),
            ..GenerationTime::default()
        };
        let training_started = Instant::now();
        let steps = ((done.samples as f64 * training.samples_per_new_sample)
            / training.batch_size as f64)
            .ceil() as u64;
        let mut rng: StdRng =
            rand::SeedableRng::seed_from_u64(self.config.seed ^ u64::from(generation) << 20);
        let (mut trainer, meta) = match self.grow(generation, &meta, &window, &mut rng)? {
            Some(mut grown) => {
                // The new network joins the run's step count (and its learning-rate schedule).
                grown.0.set_step(trainer.step());
                grown
            }
            None => (trainer, meta),
        };
        let phase = format!("generation {generation} training");
        self.fit(&mut trainer, &window, steps, &mut rng, &phase, false);
        time.training = training_started.elapsed().as_secs_f64();
        let saving = Instant::now();
        let metrics = trainer.take_metrics();
        self.board.scalar(
            "train/window_samples",
            window.len() as f64,
            u64::from(generation),
        );
        let mut meta = CheckpointMeta {
            generation,
            search: Some(self.evaluation_search()),
            ..meta
        };
        meta.metrics.extend([
            ("policy_loss".to_string(), metrics.policy_loss),
            ("value_loss".to_string(), metrics.value_loss),
            ("policy_entropy".to_string(), metrics.policy_entropy),
            ("value_accuracy".to_string(), metrics.value_accuracy),
            ("material_loss".to_string(), metrics.material_loss),
            ("moves_left_loss".to_string(), metrics.moves_left_loss),
            ("total_samples".to_string(), total as f64),
            ("window_samples".to_string(), window.len() as f64),
        ]);
        let dir = self.paths.checkpoint(generation);
        let config_copy = std::fs::read(self.paths.root.join("config.toml")).unwrap_or_default();
        trainer.save(&dir, &meta, vec![("config.toml", config_copy)])?;
        self.home.publish_dir(&dir)?;
        time.io += saving.elapsed().as_secs_f64();
        Ok((metrics, time))
    }

    /// `steps` optimisation steps of `trainer` on batches drawn from `window`, each step's
    /// losses to TensorBoard (a growth candidate's under `growth/`, at its own step).
    fn fit(
        &mut self,
        trainer: &mut Trainer<V>,
        window: &ReplayWindow,
        steps: u64,
        rng: &mut StdRng,
        phase: &str,
        candidate: bool,
    ) {
        let tag = |name: &str| {
            if candidate {
                format!("growth/{}", name.replace('/', "_"))
            } else {
                name.to_string()
            }
        };
        self.progress.start(phase, steps);
        for i in 0..steps {
            if window.is_empty() {
                break;
            }
            let batch = window.sample(self.config.training.batch_size, rng);
            let metrics = trainer.train_step(&batch);
            let step = trainer.step();
            let board = &mut self.board;
            board.scalar(&tag("loss/policy"), metrics.policy_loss, step);
            board.scalar(&tag("loss/value"), metrics.value_loss, step);
            board.scalar(&tag("train/policy_entropy"), metrics.policy_entropy, step);
            board.scalar(&tag("train/value_accuracy"), metrics.value_accuracy, step);
            board.scalar(&tag("loss/material"), metrics.material_loss, step);
            board.scalar(&tag("loss/moves_left"), metrics.moves_left_loss, step);
            board.scalar(&tag("train/learning_rate"), trainer.learning_rate(), step);
            self.progress.update(
                i + 1,
                &format!(
                    "policy {:.3} value {:.3}",
                    metrics.policy_loss, metrics.value_loss
                ),
            );
        }
        self.progress.finish();
    }

    /// With `[growth]`, when a network of another size is due than the one of `current` (the
    /// checkpoint before `generation`): its candidate (fresh, or kept in `candidates/BxC/` from
    /// an earlier try) trains on the window, is kept, and plays the current network. Returns
    /// it, with the metadata of its checkpoints, if it takes over.
    fn grow(
        &mut self,
        generation: u32,
        current: &CheckpointMeta,
        window: &ReplayWindow,
        rng: &mut StdRng,
    ) -> Result<Option<(Trainer<V>, CheckpointMeta)>, RunError> {
        let growth = self.config.growth.clone();
        let minutes = self.clock_after(generation - 1) / 60.0;
        let due = growth.size_due(self.config.network, generation, minutes);
        let size = NetworkSize {
            blocks: current.network.blocks,
            channels: current.network.channels,
        };
        if due == size {
            return Ok(None);
        }
        let name = format!("{}x{}", due.blocks, due.channels);
        let dir = self.paths.root.join("candidates").join(&name);
        let (mut candidate, meta) = if dir.join("meta.json").exists() {
            Trainer::<V>::resume(&dir, &self.config.training, &self.device)?
        } else {
            let network = NetworkConfig::sized(BoardShape::of::<V>(), due);
            let seed = self.config.seed ^ u64::from(generation) << 40;
            let trainer = Trainer::<V>::new(&network, &self.config.training, seed, &self.device);
            (trainer, CheckpointMeta::new::<V>(network))
        };
        let meta = CheckpointMeta {
            generation,
            search: Some(self.evaluation_search()),
            ..meta
        };
        let phase = format!("generation {generation}: {name} candidate training");
        self.fit(&mut candidate, window, growth.steps, rng, &phase, true);
        candidate.take_metrics();
        candidate.save(&dir, &meta, vec![])?;
        let score = if growth.gate_games > 0 {
            let new = self.mcts_factory_at(&dir)?;
            let old = self.mcts_factory(generation - 1)?;
            let what = format!("{name} candidate vs {}x{}", size.blocks, size.channels);
            let wdl = self.play(&*new, &*old, growth.gate_games, &what);
            self.board
                .scalar("growth/candidate_score", wdl.score(), u64::from(generation));
            Some(wdl.score())
        } else {
            None
        };
        let takes_over = score.is_none_or(|s| s >= growth.gate_score);
        let verdict = if takes_over {
            "takes over"
        } else {
            "trains on and tries again next generation"
        };
        self.say(&format!(
            "generation {generation}: the {name} network after {} steps on the window{}: {verdict}",
            candidate.step(),
            score.map_or(String::new(), |s| format!(
                " scored {:.1}% in {} games against the {}x{}",
                100.0 * s,
                growth.gate_games,
                size.blocks,
                size.channels
            )),
        ));
        Ok(takes_over.then_some((candidate, meta)))
    }

    /// A match between two checkpoints under MCTS; results for the first.
    fn net_match(
        &mut self,
        first: u32,
        second: u32,
        games: u32,
        what: &str,
    ) -> Result<Wdl, RunError> {
        let a = self.mcts_factory(first)?;
        let b = self.mcts_factory(second)?;
        Ok(self.play(&*a, &*b, games, what))
    }

    /// The search the network players of the evaluation use (and the checkpoints carry).
    fn evaluation_search(&self) -> damas_mcts::SearchConfig {
        self.config.evaluation.search(&self.config.selfplay)
    }

    fn mcts_factory(&self, generation: u32) -> Result<BoxedFactory<V>, RunError> {
        self.mcts_factory_at(&self.paths.checkpoint(generation))
    }

    /// The evaluation's MCTS player over the checkpoint in `dir`.
    fn mcts_factory_at(&self, dir: &Path) -> Result<BoxedFactory<V>, RunError> {
        let model = Model::<V>::open_path(dir, &self.device)?;
        Ok(MctsPlayer::factory(
            model.evaluator(),
            self.evaluation_search(),
            None,
        ))
    }

    fn play(
        &mut self,
        first: PlayerFactory<'_, V>,
        second: PlayerFactory<'_, V>,
        games: u32,
        what: &str,
    ) -> Wdl {
        let mut total = Wdl::default();
        self.progress.start(what, u64::from(games));
        let rules = GameRules {
            max_plies: self.config.selfplay.max_plies,
            ..GameRules::default()
        };
        let progress = &mut *self.progress;
        run_match(
            first,
            second,
            &self.openings,
            games,
            &[],
            self.config.evaluation.concurrency,
            &rules,
            self.config.seed,
            |game| {
                total += game.first_result();
                progress.update(
                    u64::from(total.games()),
                    &format!(
                        "{:.1}% ({}/{}/{})",
                        100.0 * total.score(),
                        total.wins,
                        total.draws,
                        total.losses
                    ),
                );
                true
            },
        );
        self.progress.finish();
        total
    }

    fn evaluate(&mut self, generation: u32) -> Result<Evaluation, RunError> {
        let evaluation_config = self.config.evaluation.clone();
        let mut evaluation = Evaluation::default();
        let step = u64::from(generation);
        if evaluation_config.baseline_games > 0 {
            let net = self.mcts_factory(generation)?;
            let depth = evaluation_config.baseline_depth;
            let baseline = move |seed| {
                Box::new(AlphaBetaPlayer::<V>::new(Limits::depth(depth), seed))
                    as Box<dyn Player<V>>
            };
            let wdl = self.play(
                &*net,
                &baseline,
                evaluation_config.baseline_games,
                "vs baseline",
            );
            let elo = elo_estimate(wdl);
            self.board
                .scalar("eval/score_vs_baseline", wdl.score(), step);
            self.board.scalar("eval/elo_vs_baseline", elo.elo, step);
            evaluation.baseline = Some(wdl);
            evaluation.baseline_elo = Some(elo);
        }
        let current = self.self_play_generation(generation - 1);
        if evaluation_config.previous_games > 0 {
            let wdl = self.net_match(
                generation,
                current,
                evaluation_config.previous_games,
                "vs previous",
            )?;
            let elo = elo_estimate(wdl);
            self.board
                .scalar("eval/score_vs_previous", wdl.score(), step);
            self.board.scalar("eval/elo_vs_previous", elo.elo, step);
            evaluation.previous = Some(wdl);
            evaluation.previous_elo = Some(elo);
        }
        evaluation.promoted = !evaluation_config.gating
            || evaluation
                .previous
                .is_none_or(|wdl| wdl.score() >= evaluation_config.gate_score);
        if evaluation_config.gating {
            let best = if evaluation.promoted {
                generation
            } else {
                current
            };
            let path = self.paths.root.join("best");
            write_atomically(&path, format!("{best}\n").as_bytes()).map_err(io_error(&path))?;
        }
        let path = self.paths.checkpoint(generation).join("eval.json");
        let text = serde_json::to_string_pretty(&evaluation).expect("serializable");
        write_atomically(&path, text.as_bytes()).map_err(io_error(&path))?;
        Ok(evaluation)
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
