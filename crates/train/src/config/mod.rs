//! A training run's config file (`configs/<name>.toml`). Every section and key has a default;
//! unknown keys are errors that name the key and the line.

use damas_mcts::InvalidValue;
use damas_nn::{DeviceChoice, NetworkSize};
use damas_rules::Variant;
use damas_selfplay::SelfPlayConfig;
pub use damas_selfplay::{ConfigError, ConfigProblem};
use damas_store::RetrySettings;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Duration;

mod file;
pub use file::{BASE_KEY, ConfigFile, SelfPlaySettings};

/// The whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    /// Run name: the run lives in `runs/<name>/`.
    pub name: String,
    /// Variant to learn.
    #[serde(with = "variant_name")]
    pub variant: Variant,
    /// Generations to run (self-play, training, evaluation each); a resumed run stops here too.
    pub generations: u32,
    /// Wall-clock budget in minutes: no generation starts once the run's clock (time spent in
    /// the loop, across resumes) has passed it; the generation in progress is finished.
    #[serde(default)]
    pub minutes: Option<f64>,
    /// Self-play games per generation.
    pub games_per_generation: u32,
    /// The first generation's games use the alpha-beta engine's static evaluation instead of
    /// the untrained network (a cheap bootstrap).
    #[serde(default)]
    pub bootstrap_with_static_eval: bool,
    /// Seed of everything random in the run.
    #[serde(default)]
    pub seed: u64,
    /// Where the networks train and play: `cpu` (default), `wgpu`, `cuda` or `cuda:N`. It
    /// also sets the defaults of `selfplay.games_per_worker` and `selfplay.search.leaves_per_batch`.
    #[serde(default)]
    pub device: DeviceChoice,
    /// Network size.
    #[serde(default)]
    pub network: NetworkSize,
    /// Self-play settings.
    #[serde(default)]
    pub selfplay: SelfPlayConfig,
    /// Optimisation settings.
    #[serde(default)]
    pub training: TrainingSection,
    /// Evaluation after each generation.
    #[serde(default)]
    pub evaluation: EvaluationSection,
    /// Self-play by `damas worker` processes on other machines.
    #[serde(default)]
    pub distributed: DistributedSection,
    /// How requests to an object store that fail are retried.
    #[serde(default)]
    pub store: StoreSection,
    /// The first generation's games played by the alpha-beta engine instead.
    #[serde(default)]
    pub warm_start: WarmStartSection,
    /// Larger networks taking over during the run.
    #[serde(default)]
    pub growth: GrowthSection,
}

/// `[growth]`: the network grows during the run, as KataGo's did. When a stage is due, a fresh
/// network of the stage's size trains `steps` steps on the replay window, then plays
/// `gate_games` games against the current network and takes over if it scores at least
/// `gate_score`; otherwise the old network trains on and the candidate (kept in the run's
/// `candidates/` folder) trains further and tries again next generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GrowthSection {
    /// The sizes and when each is due, in order (none: the network keeps `[network]`'s size).
    pub stages: Vec<GrowthStage>,
    /// Training steps of a candidate on the replay window per try, before it plays.
    pub steps: u64,
    /// Games of a candidate against the network it would replace (0: it takes over at once).
    pub gate_games: u32,
    /// The score a candidate needs in those games.
    pub gate_score: f64,
}

impl Default for GrowthSection {
    fn default() -> Self {
        GrowthSection {
            stages: Vec::new(),
            steps: 1000,
            gate_games: 20,
            gate_score: 0.5,
        }
    }
}

/// One stage of `[growth]`: a network size and when it is due, after a generation or after
/// some minutes of the run's clock (one of the two; every stage of a run uses the same one).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrowthStage {
    /// Due from this generation on.
    #[serde(default)]
    pub generation: Option<u32>,
    /// Due once the run's clock has passed this many minutes.
    #[serde(default)]
    pub minute: Option<f64>,
    /// Residual blocks of the stage's network.
    pub blocks: usize,
    /// Channels of the stage's network.
    pub channels: usize,
}

impl GrowthStage {
    /// The stage's network size.
    pub fn size(&self) -> NetworkSize {
        NetworkSize {
            blocks: self.blocks,
            channels: self.channels,
        }
    }

    /// Whether the stage is due at `generation` with `minutes` on the run's clock.
    pub fn is_due(&self, generation: u32, minutes: f64) -> bool {
        self.generation.is_some_and(|g| generation >= g)
            || self.minute.is_some_and(|m| minutes >= m)
    }
}

impl GrowthSection {
    /// The network size due at `generation` with `minutes` on the run's clock: the last stage
    /// due, else `base`.
    pub fn size_due(&self, base: NetworkSize, generation: u32, minutes: f64) -> NetworkSize {
        self.stages
            .iter()
            .rev()
            .find(|s| s.is_due(generation, minutes))
            .map_or(base, GrowthStage::size)
    }

    /// Checks every value against its range, and that the stages say when in one way and
    /// in order.
    pub fn validate(&self) -> Result<(), InvalidValue> {
        InvalidValue::check(
            (0.0..=1.0).contains(&self.gate_score),
            "growth",
            "gate_score",
            self.gate_score,
            "0 to 1",
        )?;
        InvalidValue::check(
            (1..=10_000_000).contains(&self.steps),
            "growth",
            "steps",
            self.steps,
            "1 to 10000000",
        )?;
        let by_generation = self.stages.first().is_some_and(|s| s.generation.is_some());
        let mut last = f64::NEG_INFINITY;
        for (i, stage) in self.stages.iter().enumerate() {
            let section = format!("growth.stages[{i}]");
            stage.size().validate(&section)?;
            let when = match (stage.generation, stage.minute) {
                (Some(g), None) if by_generation => f64::from(g),
                (None, Some(m)) if !by_generation && m.is_finite() && m >= 0.0 => m,
                (generation, minute) => {
                    return Err(InvalidValue {
                        key: section,
                        value: format!("generation {generation:?}, minute {minute:?}"),
                        allowed: "one of `generation` or `minute` (minutes at least 0), the same \
                                  one in every stage"
                            .into(),
                    });
                }
            };
            InvalidValue::check(
                when > last,
                &section,
                if by_generation {
                    "generation"
                } else {
                    "minute"
                },
                when,
                "later than the stage before",
            )?;
            last = when;
        }
        Ok(())
    }
}

/// `[warm_start]`: generation 1 trains on the alpha-beta engine's games against itself (the
/// policy target is the engine's move, the value target the result) instead of self-play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WarmStartSection {
    /// Engine games of generation 1 (0: no warm start).
    pub games: u32,
    /// The engine's search depth.
    pub depth: u32,
    /// Uniformly random plies before the engine takes over, for variety.
    pub opening_plies: u32,
}

impl Default for WarmStartSection {
    fn default() -> Self {
        WarmStartSection {
            games: 0,
            depth: 4,
            opening_plies: 6,
        }
    }
}

impl WarmStartSection {
    /// Checks every value against its range.
    pub fn validate(&self) -> Result<(), InvalidValue> {
        InvalidValue::check(
            (1..=30).contains(&self.depth),
            "warm_start",
            "depth",
            self.depth,
            "1 to 30",
        )?;
        InvalidValue::check(
            self.opening_plies <= 100,
            "warm_start",
            "opening_plies",
            self.opening_plies,
            "0 to 100",
        )
    }
}

/// `[distributed]`: self-play by workers (`damas worker`) instead of the learner itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DistributedSection {
    /// The learner plays no games: each generation trains on the shards workers upload to the
    /// run's `incoming/` folder (`damas train --external-selfplay` sets it too).
    pub external_selfplay: bool,
    /// A shard played by a network more than this many generations older than the newest
    /// checkpoint is dropped, not trained on (0: only the newest network's games count).
    pub max_staleness: u32,
    /// Seconds between two looks at `incoming/` while the learner waits for games.
    pub poll_seconds: f64,
}

impl Default for DistributedSection {
    fn default() -> Self {
        DistributedSection {
            external_selfplay: false,
            max_staleness: 1,
            poll_seconds: 1.0,
        }
    }
}

impl DistributedSection {
    /// Checks every value against its range.
    pub fn validate(&self) -> Result<(), InvalidValue> {
        InvalidValue::check(
            self.poll_seconds.is_finite() && (0.01..=600.0).contains(&self.poll_seconds),
            "distributed",
            "poll_seconds",
            self.poll_seconds,
            "0.01 to 600",
        )
    }
}

/// `[store]`: retries of an object store's failed requests (object_store's retry settings;
/// a run in a directory makes no requests). The learner and every worker read them from the
/// run's config; they may change on any resume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StoreSection {
    /// Attempts after the first for a request that failed with a server error (5xx), a reset
    /// connection or a timeout (0: none).
    pub retries: usize,
    /// No retry starts this many seconds after the request's first attempt.
    pub retry_timeout_seconds: f64,
    /// Seconds before the first retry; each later wait about doubles (with jitter) ...
    pub backoff_initial_seconds: f64,
    /// ... up to this many seconds.
    pub backoff_max_seconds: f64,
    /// One attempt that takes longer than this many seconds fails (and is retried).
    pub request_timeout_seconds: f64,
}

impl Default for StoreSection {
    fn default() -> Self {
        let settings = RetrySettings::default();
        StoreSection {
            retries: settings.retries,
            retry_timeout_seconds: settings.retry_timeout.as_secs_f64(),
            backoff_initial_seconds: settings.backoff_initial.as_secs_f64(),
            backoff_max_seconds: settings.backoff_max.as_secs_f64(),
            request_timeout_seconds: settings.request_timeout.as_secs_f64(),
        }
    }
}

impl StoreSection {
    /// The settings the store takes.
    pub fn retry(&self) -> RetrySettings {
        RetrySettings {
            retries: self.retries,
            retry_timeout: Duration::from_secs_f64(self.retry_timeout_seconds),
            backoff_initial: Duration::from_secs_f64(self.backoff_initial_seconds),
            backoff_max: Duration::from_secs_f64(self.backoff_max_seconds),
            request_timeout: Duration::from_secs_f64(self.request_timeout_seconds),
        }
    }

    /// Checks every value against its range.
    pub fn validate(&self) -> Result<(), InvalidValue> {
        InvalidValue::check(
            self.retries <= 100,
            "store",
            "retries",
            self.retries,
            "0 to 100",
        )?;
        for (key, value, low, high) in [
            (
                "retry_timeout_seconds",
                self.retry_timeout_seconds,
                0.0,
                3600.0,
            ),
            (
                "backoff_initial_seconds",
                self.backoff_initial_seconds,
                0.001,
                600.0,
            ),
            (
                "backoff_max_seconds",
                self.backoff_max_seconds,
                0.001,
                600.0,
            ),
            (
                "request_timeout_seconds",
                self.request_timeout_seconds,
                0.1,
                3600.0,
            ),
        ] {
            InvalidValue::check(
                value.is_finite() && (low..=high).contains(&value),
                "store",
                key,
                value,
                &format!("{low} to {high}"),
            )?;
        }
        InvalidValue::check(
            self.backoff_max_seconds >= self.backoff_initial_seconds,
            "store",
            "backoff_max_seconds",
            self.backoff_max_seconds,
            "at least backoff_initial_seconds",
        )
    }
}

/// The variant as its name in the file.
mod variant_name {
    use damas_rules::Variant;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(variant: &Variant, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(variant.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Variant, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// Which optimiser.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Optimizer {
    /// Adam with L2 added to the gradient.
    Adam,
    /// SGD with Nesterov momentum 0.9 and L2.
    Sgd,
}

/// `[training]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainingSection {
    /// Positions per training step.
    pub batch_size: usize,
    /// Training samples drawn per new self-play sample (caps steps so a small window is not
    /// overfitted): steps = new samples x this / batch size.
    pub samples_per_new_sample: f64,
    /// Smallest replay window (samples), while there are that many.
    pub window_min: usize,
    /// Largest replay window (samples); also bounds the memory the window takes.
    pub window_max: usize,
    /// Between those, the window holds this fraction of all samples ever made (it grows with
    /// the data, as KataGo's shuffler's does).
    pub window_fraction: f64,
    /// The optimiser.
    pub optimizer: Optimizer,
    /// Learning rate schedule: (first step, rate) pairs, piecewise constant.
    pub learning_rate: Vec<(u64, f64)>,
    /// L2 penalty on the weights.
    pub l2: f32,
    /// Weight of the value loss against the policy loss.
    pub value_weight: f32,
    /// Share of the search's root value q in the value target, the rest being the game's
    /// result z (0: the result alone; q becomes win/draw/loss as max(q,0), 1-|q|, max(-q,0)).
    pub search_value_weight: f32,
    /// Weight of the auxiliary loss on the game's final material balance (KataGo's score
    /// head: a denser signal than win/draw/loss; 0: not trained).
    pub material_weight: f32,
    /// Weight of the auxiliary loss on the plies left to the game's end (Lc0's moves-left
    /// head; 0: not trained).
    pub moves_left_weight: f32,
    /// Threads of the rayon pool burn's kernels run on.
    pub threads: usize,
}

impl Default for TrainingSection {
    fn default() -> Self {
        TrainingSection {
            batch_size: 256,
            samples_per_new_sample: 4.0,
            window_min: 20_000,
            window_max: 500_000,
            window_fraction: 0.5,
            optimizer: Optimizer::Adam,
            learning_rate: vec![(0, 1e-3)],
            l2: 1e-4,
            value_weight: 1.0,
            search_value_weight: 0.0,
            material_weight: 0.0,
            moves_left_weight: 0.0,
            threads: 2,
        }
    }
}

impl TrainingSection {
    /// The learning rate at `step`.
    pub fn learning_rate_at(&self, step: u64) -> f64 {
        self.learning_rate
            .iter()
            .rev()
            .find(|(from, _)| *from <= step)
            .or(self.learning_rate.first())
            .map_or(1e-3, |(_, rate)| *rate)
    }
}

/// `[evaluation]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvaluationSection {
    /// Games against the alpha-beta baseline per generation (0: none).
    pub baseline_games: u32,
    /// The baseline's search depth.
    pub baseline_depth: u32,
    /// Games against the previous checkpoint per generation (0: none).
    pub previous_games: u32,
    /// Simulations per move of the network players (none: self-play's full search's). The
    /// checkpoints carry this search, so they play the same way wherever they are used.
    pub simulations: Option<u32>,
    /// Gating: the new network becomes the self-play network only if it scores at least
    /// `gate_score` against the current one.
    pub gating: bool,
    /// Score needed to pass the gate.
    pub gate_score: f64,
    /// Games played at once.
    pub concurrency: usize,
    /// Random plies of the evaluation openings (each played with both colours).
    pub opening_plies: u32,
    /// Games between the final checkpoint and the untrained first one when the run ends
    /// (0: none); the log prints the score with its error bar.
    pub final_games: u32,
}

impl Default for EvaluationSection {
    fn default() -> Self {
        EvaluationSection {
            baseline_games: 20,
            baseline_depth: 2,
            previous_games: 20,
            simulations: None,
            gating: false,
            gate_score: 0.55,
            concurrency: 2,
            opening_plies: 4,
            final_games: 0,
        }
    }
}

impl TrainingSection {
    /// Checks every value against its range.
    pub fn validate(&self) -> Result<(), InvalidValue> {
        let check = |ok, key, value: &dyn std::fmt::Display, allowed| {
            InvalidValue::check(ok, "training", key, value, allowed)
        };
        check(
            (1..=65_536).contains(&self.batch_size),
            "batch_size",
            &self.batch_size,
            "1 to 65536",
        )?;
        check(
            self.samples_per_new_sample.is_finite() && self.samples_per_new_sample > 0.0,
            "samples_per_new_sample",
            &self.samples_per_new_sample,
            "a positive number",
        )?;
        check(
            self.window_min <= self.window_max,
            "window_min",
            &self.window_min,
            "at most `training.window_max`",
        )?;
        check(
            self.window_max >= 1,
            "window_max",
            &self.window_max,
            "at least 1",
        )?;
        check(
            self.window_fraction > 0.0 && self.window_fraction <= 1.0,
            "window_fraction",
            &self.window_fraction,
            "more than 0, at most 1",
        )?;
        let schedule = format!("{:?}", self.learning_rate);
        check(
            !self.learning_rate.is_empty(),
            "learning_rate",
            &schedule,
            "at least one [step, rate] pair",
        )?;
        check(
            self.learning_rate
                .iter()
                .all(|&(_, rate)| rate.is_finite() && rate > 0.0),
            "learning_rate",
            &schedule,
            "positive rates",
        )?;
        check(
            self.learning_rate.windows(2).all(|w| w[0].0 < w[1].0),
            "learning_rate",
            &schedule,
            "steps in increasing order",
        )?;
        check(
            self.l2.is_finite() && self.l2 >= 0.0,
            "l2",
            &self.l2,
            "0 or more",
        )?;
        check(
            self.value_weight.is_finite() && self.value_weight >= 0.0,
            "value_weight",
            &self.value_weight,
            "0 or more",
        )?;
        check(
            (0.0..=1.0).contains(&self.search_value_weight),
            "search_value_weight",
            &self.search_value_weight,
            "0 to 1",
        )?;
        check(
            self.material_weight.is_finite() && self.material_weight >= 0.0,
            "material_weight",
            &self.material_weight,
            "0 or more",
        )?;
        check(
            self.moves_left_weight.is_finite() && self.moves_left_weight >= 0.0,
            "moves_left_weight",
            &self.moves_left_weight,
            "0 or more",
        )?;
        check(
            (1..=256).contains(&self.threads),
            "threads",
            &self.threads,
            "1 to 256",
        )
    }
}

impl EvaluationSection {
    /// Checks every value against its range.
    pub fn validate(&self) -> Result<(), InvalidValue> {
        let check = |ok, key, value: &dyn std::fmt::Display, allowed| {
            InvalidValue::check(ok, "evaluation", key, value, allowed)
        };
        check(
            (1..=30).contains(&self.baseline_depth),
            "baseline_depth",
            &self.baseline_depth,
            "1 to 30",
        )?;
        if let Some(simulations) = self.simulations {
            check(
                (1..=1_000_000).contains(&simulations),
                "simulations",
                &simulations,
                "1 to 1000000",
            )?;
        }
        check(
            (0.0..=1.0).contains(&self.gate_score),
            "gate_score",
            &self.gate_score,
            "0 to 1",
        )?;
        check(
            (1..=256).contains(&self.concurrency),
            "concurrency",
            &self.concurrency,
            "1 to 256",
        )?;
        check(
            self.opening_plies <= 100,
            "opening_plies",
            &self.opening_plies,
            "0 to 100",
        )
    }

    /// The search the network players use: self-play's, at the evaluation's simulations.
    pub fn search(&self, selfplay: &SelfPlayConfig) -> damas_mcts::SearchConfig {
        let mut search = selfplay.search.clone();
        if let Some(simulations) = self.simulations {
            search.simulations = simulations;
        }
        search
    }
}

impl TrainConfig {
    /// Checks every value of every section against its range.
    pub fn validate(&self) -> Result<(), InvalidValue> {
        InvalidValue::check(
            !self.name.is_empty()
                && !self.name.contains(['/', '\\'])
                && !self.name.starts_with('.'),
            "",
            "name",
            format!("{:?}", self.name),
            "a plain directory name",
        )?;
        InvalidValue::check(
            self.games_per_generation >= 1,
            "",
            "games_per_generation",
            self.games_per_generation,
            "at least 1",
        )?;
        if let Some(minutes) = self.minutes {
            InvalidValue::check(
                minutes.is_finite() && minutes > 0.0 && minutes <= 1e7,
                "",
                "minutes",
                minutes,
                "a positive number, at most 10000000",
            )?;
        }
        self.network.validate("network")?;
        self.selfplay.validate("selfplay")?;
        self.training.validate()?;
        self.evaluation.validate()?;
        self.distributed.validate()?;
        self.store.validate()?;
        self.growth.validate()?;
        self.warm_start.validate()
    }

    /// Reads and checks a config file.
    pub fn read(path: &Path) -> Result<TrainConfig, ConfigError> {
        ConfigFile::read(path).map(|file| file.config)
    }

    /// Parses and checks config text.
    pub fn parse(text: &str) -> Result<Self, ConfigProblem> {
        Self::parse_on(text, None)
    }

    /// Parses and checks config text, with `device` in place of the text's `device` key when
    /// given; self-play batch sizes the text leaves out follow the device.
    pub fn parse_on(text: &str, device: Option<DeviceChoice>) -> Result<Self, ConfigProblem> {
        let syntax = |e: toml::de::Error| ConfigProblem::Syntax(e.to_string());
        let mut config: TrainConfig = toml::from_str(text).map_err(syntax)?;
        let table: toml::Table = toml::from_str(text).map_err(syntax)?;
        if let Some(device) = device {
            config.device = device;
        }
        let selfplay = table.get("selfplay").and_then(toml::Value::as_table);
        config
            .selfplay
            .fill_device_defaults(selfplay, config.device);
        config.validate()?;
        Ok(config)
    }
}
