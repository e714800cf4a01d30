//! Self-play settings, read from TOML (the `[selfplay]` table of a training config, or a file of
//! its own). Unknown keys are errors; missing keys take the defaults below.

use damas_egdb::Egdb;
use damas_mcts::{InvalidValue, SearchConfig};
use damas_nn::DeviceChoice;
use damas_rules::{Position, Rules};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How self-play games are generated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    /// The search; its `simulations` is the full search's budget.
    pub search: SearchConfig,
    /// Playout cap randomisation (KataGo): simulations of the cheap search that most moves get
    /// and that is not recorded. 0 searches every move fully.
    pub fast_simulations: u32,
    /// Fraction of moves that get the full search and become training samples.
    pub full_search_fraction: f32,
    /// Temperature of the move choice (PUCT) during the first `temperature_plies` searched
    /// plies. Gumbel ignores it: its moves are Gumbel-max draws from its improved policy, in
    /// cheap searches too ([`damas_mcts::RootNoise::MoveSampling`]).
    pub temperature: f32,
    /// Searched plies played with `temperature`, counted after the `opening_plies` random
    /// ones; later moves take the most visited move.
    pub temperature_plies: u32,
    /// Uniformly random plies played before the search takes over, for opening diversity.
    pub opening_plies: u32,
    /// A file of start positions, one FEN per line (`#` starts a comment); games cycle through
    /// them before their random plies. A relative path is taken from the working directory, as
    /// the run's copy of the config (in `runs/<name>/`) must find the same file.
    pub openings: Option<PathBuf>,
    /// A side whose search value stays below this resigns (-1 or less: never).
    pub resign_threshold: f32,
    /// Consecutive own moves below the threshold before resigning.
    pub resign_moves: u32,
    /// A side behind by at least this much material (men count 1, kings 3) is treated as if
    /// its search value were below the resignation threshold: decided games end early, with
    /// the same check games and false-resignation count (0: off; never in losing variants).
    pub adjudicate_material: u32,
    /// Fraction of games in which resignation is disabled, to count false resignations.
    pub resign_check_fraction: f32,
    /// Games still going after this many plies are adjudicated drawn.
    pub max_plies: u32,
    /// Game-playing threads.
    pub workers: usize,
    /// Games in flight per worker; their leaves share each evaluation batch.
    pub games_per_worker: usize,
    /// Threads of the rayon pool burn's CPU kernels run on. The network's CPU pass runs on each
    /// worker's own thread, so `workers` is what spreads self-play over cores.
    pub inference_threads: usize,
    /// Games per shard file.
    pub games_per_shard: u32,
    /// Evaluations remembered per cache generation (two generations are kept), shared by all
    /// games of the round (0: no cache).
    pub cache_positions: usize,
    /// An endgame database root (`damas egdb build --out DIR`), the variant's tables in
    /// `DIR/<variant>/`; none: no database. A relative path is taken from the working directory.
    pub egdb: Option<PathBuf>,
    /// With `egdb`: a game that reaches a position the database holds ends there, with the
    /// database's result (draw counters ignored) as the game result and the value target.
    pub egdb_adjudicate: bool,
    /// With `egdb`: the search takes positions the database holds as finished games with
    /// the database's value, instead of asking the network.
    pub egdb_search: bool,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            search: SearchConfig::default(),
            fast_simulations: 0,
            full_search_fraction: 1.0,
            temperature: 1.0,
            temperature_plies: 16,
            opening_plies: 4,
            openings: None,
            resign_threshold: -0.95,
            resign_moves: 3,
            adjudicate_material: 0,
            resign_check_fraction: 0.1,
            max_plies: 300,
            workers: 1,
            games_per_worker: 32,
            inference_threads: 2,
            games_per_shard: 64,
            cache_positions: 100_000,
            egdb: None,
            egdb_adjudicate: true,
            egdb_search: true,
        }
    }
}

/// What is wrong in a config's text (self-play or training).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigProblem {
    /// The TOML is malformed or has unknown or mistyped keys: the parser's message, with the
    /// line and the key.
    #[error("{0}")]
    Syntax(String),
    /// A key's value is out of its range.
    #[error("invalid value: {0}")]
    Value(#[from] InvalidValue),
    /// The variant is not known.
    #[error(transparent)]
    Variant(#[from] damas_rules::UnknownVariant),
    /// The `base` key is not a path.
    #[error("`base` must be the path of another config file, found {0}")]
    BaseNotAPath(String),
    /// A file is its own base, directly or through others (the chain of files).
    #[error("`base` files name each other in a circle: {0}")]
    BaseCycle(String),
}

/// Why a config file (self-play or training) could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The file's contents are not a valid config (the problem is part of the message, so it
    /// is said once).
    #[error("{path}: {problem}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: ConfigProblem,
    },
    /// The config named by the file's `base` key could not be used.
    #[error("{path}: its base {base}")]
    Base {
        /// The file.
        path: PathBuf,
        /// The base it names, as a path from the working directory.
        base: PathBuf,
        /// What is wrong with the base.
        #[source]
        source: Box<ConfigError>,
    },
    /// The endgame database does not open.
    #[error("endgame database {path}")]
    Egdb {
        /// The database root.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: damas_egdb::TableError,
    },
    /// A table of the endgame database was found damaged while playing (its positions were
    /// played on as if not in the tables; the games written are sound).
    #[error("endgame database damaged: {fault}; rebuild that table with `damas egdb build`")]
    EgdbDamaged {
        /// The file and block, and what is wrong.
        fault: String,
    },
    /// The openings file does not read.
    #[error("openings file {path}")]
    Openings {
        /// The file.
        path: PathBuf,
        /// The bad line.
        #[source]
        source: damas_rules::FenLineError,
    },
}

impl SelfPlayConfig {
    /// The temperature of the move choice after `searched_plies` searched plies of a game (the
    /// random opening plies not counted).
    pub fn move_temperature(&self, searched_plies: u32) -> f32 {
        if searched_plies < self.temperature_plies {
            self.temperature
        } else {
            0.0
        }
    }

    /// Checks every value against its range; `section` prefixes the keys in the error.
    pub fn validate(&self, section: &str) -> Result<(), InvalidValue> {
        let check = |ok, key, value: &dyn std::fmt::Display, allowed| {
            InvalidValue::check(ok, section, key, value, allowed)
        };
        let search = if section.is_empty() {
            "search".to_string()
        } else {
            format!("{section}.search")
        };
        self.search.validate(&search)?;
        check(
            self.fast_simulations <= self.search.simulations,
            "fast_simulations",
            &self.fast_simulations,
            "0 (off) to the full search's simulations",
        )?;
        check(
            self.full_search_fraction > 0.0 && self.full_search_fraction <= 1.0,
            "full_search_fraction",
            &self.full_search_fraction,
            "more than 0, at most 1",
        )?;
        check(
            self.temperature.is_finite() && self.temperature >= 0.0,
            "temperature",
            &self.temperature,
            "0 or more",
        )?;
        check(
            self.resign_threshold.is_finite() && self.resign_threshold <= 1.0,
            "resign_threshold",
            &self.resign_threshold,
            "at most 1 (-1 or less: never resign)",
        )?;
        check(
            self.resign_moves >= 1,
            "resign_moves",
            &self.resign_moves,
            "at least 1",
        )?;
        check(
            (0.0..=1.0).contains(&self.resign_check_fraction),
            "resign_check_fraction",
            &self.resign_check_fraction,
            "0 to 1",
        )?;
        check(
            self.max_plies >= 1,
            "max_plies",
            &self.max_plies,
            "at least 1",
        )?;
        check(
            (1..=256).contains(&self.workers),
            "workers",
            &self.workers,
            "1 to 256",
        )?;
        check(
            (1..=65_536).contains(&self.games_per_worker),
            "games_per_worker",
            &self.games_per_worker,
            "1 to 65536",
        )?;
        check(
            (1..=256).contains(&self.inference_threads),
            "inference_threads",
            &self.inference_threads,
            "1 to 256",
        )?;
        check(
            self.adjudicate_material <= 100,
            "adjudicate_material",
            &self.adjudicate_material,
            "0 (off) to 100",
        )?;
        check(
            self.cache_positions <= 100_000_000,
            "cache_positions",
            &self.cache_positions,
            "0 (off) to 100000000",
        )?;
        check(
            (1..=512).contains(&self.games_per_shard),
            "games_per_shard",
            &self.games_per_shard,
            "1 to 512",
        )
    }

    /// The start positions of `openings` for `V` (none if no file is given).
    pub fn read_openings<V: Rules>(&self) -> Result<Vec<Position<V::Geometry>>, ConfigError> {
        let Some(path) = &self.openings else {
            return Ok(Vec::new());
        };
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.clone(),
            source,
        })?;
        damas_rules::parse_fen_lines::<V>(&text).map_err(|source| ConfigError::Openings {
            path: path.clone(),
            source,
        })
    }

    /// The endgame database the `egdb` key names, opened (`None` without the key); a copy
    /// already open in this process is shared, not read again.
    pub fn read_egdb<V: Rules>(&self) -> Result<Option<Arc<Egdb<V>>>, ConfigError> {
        let Some(root) = &self.egdb else {
            return Ok(None);
        };
        let db = Egdb::<V>::open_shared(root).map_err(|source| ConfigError::Egdb {
            path: root.clone(),
            source,
        })?;
        Ok(Some(db))
    }

    /// Fails naming the first damaged table `egdb` met while probing, if any: call it after
    /// playing with the database [`Self::read_egdb`] opened.
    pub fn check_egdb<V: Rules>(egdb: Option<&Arc<Egdb<V>>>) -> Result<(), ConfigError> {
        match egdb.and_then(|db| db.faults().into_iter().next()) {
            Some(fault) => Err(ConfigError::EgdbDamaged { fault }),
            None => Ok(()),
        }
    }

    /// The defaults for self-play whose network runs on `device`: an accelerator gets
    /// many more games in flight and leaves per batch, so that its batches fill it.
    pub fn defaults_for(device: DeviceChoice) -> Self {
        let mut config = SelfPlayConfig::default();
        if device.is_accelerator() {
            config.games_per_worker = 256;
            config.search.leaves_per_batch = 8;
        }
        config
    }

    /// Sets the batch-size keys that `table` (this config's TOML table) does not give to
    /// their defaults for `device`; keys the file gives are kept.
    pub fn fill_device_defaults(&mut self, table: Option<&toml::Table>, device: DeviceChoice) {
        let defaults = Self::defaults_for(device);
        let given =
            |table: Option<&toml::Table>, key: &str| table.is_some_and(|t| t.contains_key(key));
        if !given(table, "games_per_worker") {
            self.games_per_worker = defaults.games_per_worker;
        }
        let search = table
            .and_then(|t| t.get("search"))
            .and_then(toml::Value::as_table);
        if !given(search, "leaves_per_batch") {
            self.search.leaves_per_batch = defaults.search.leaves_per_batch;
        }
    }

    /// Reads a self-play config from a TOML file, with the batch defaults of `device`.
    pub fn read(path: &Path, device: DeviceChoice) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, device).map_err(|problem| ConfigError::Invalid {
            path: path.to_path_buf(),
            problem,
        })
    }

    /// Parses and checks self-play config text (the `[selfplay]` table's keys), with the
    /// batch defaults of `device` for the keys it does not give.
    pub fn parse(text: &str, device: DeviceChoice) -> Result<Self, ConfigProblem> {
        let syntax = |e: toml::de::Error| ConfigProblem::Syntax(e.to_string());
        let mut config: SelfPlayConfig = toml::from_str(text).map_err(syntax)?;
        let table: toml::Table = toml::from_str(text).map_err(syntax)?;
        config.fill_device_defaults(Some(&table), device);
        config.validate("")?;
        Ok(config)
    }
}
