//! Self-play settings, read from TOML (the `[selfplay]` table of a training config, or a file of
//! its own). Unknown keys are errors; missing keys take the defaults below.

use damas_mcts::SearchConfig;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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
    /// Temperature of the move choice (PUCT) during the first `temperature_plies` plies.
    pub temperature: f32,
    /// Plies played with `temperature`; later moves take the most visited move.
    pub temperature_plies: u32,
    /// Uniformly random plies played before the search takes over, for opening diversity.
    pub opening_plies: u32,
    /// A file of start positions, one FEN per line (`#` starts a comment); games cycle through
    /// them before their random plies.
    pub openings: Option<PathBuf>,
    /// A side whose search value stays below this resigns (-1 or less: never).
    pub resign_threshold: f32,
    /// Consecutive own moves below the threshold before resigning.
    pub resign_moves: u32,
    /// Fraction of games in which resignation is disabled, to count false resignations.
    pub resign_check_fraction: f32,
    /// Games still going after this many plies are adjudicated drawn.
    pub max_plies: u32,
    /// Game-playing threads.
    pub workers: usize,
    /// Games in flight per worker; their leaves share each evaluation batch.
    pub games_per_worker: usize,
    /// Threads of the rayon pool the network's CPU kernels run on.
    pub inference_threads: usize,
    /// Games per shard file.
    pub games_per_shard: u32,
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
            resign_check_fraction: 0.1,
            max_plies: 300,
            workers: 1,
            games_per_worker: 32,
            inference_threads: 2,
            games_per_shard: 64,
        }
    }
}

/// Why a config file (self-play or training) could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// The TOML is malformed or has unknown or mistyped keys.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The parser's message, with the line and the key.
        message: String,
    },
}

impl SelfPlayConfig {
    /// Reads a self-play config from a TOML file.
    pub fn read(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        toml::from_str(&text).map_err(|e| ConfigError::Invalid {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }
}
