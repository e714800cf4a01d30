//! The records a run keeps beside its checkpoints: self-play statistics, evaluations and
//! where each generation's time went.

use super::RunError;
use super::error::io_error;
use damas_arena::{EloEstimate, Wdl};
use damas_nn::write_atomically;
use serde::{Deserialize, Serialize};
use std::path::Path;

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
    /// Games ended by entering the endgame database.
    #[serde(default)]
    pub database_results: u32,
    /// Search leaves the endgame database answered instead of the network.
    #[serde(default)]
    pub database_hits: u64,
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
    pub(super) fn write(&self, dir: &Path) -> Result<(), RunError> {
        let path = dir.join("time.json");
        let text = serde_json::to_string_pretty(self).expect("serializable");
        write_atomically(&path, text.as_bytes()).map_err(io_error(&path))
    }
}

/// The store key of [`RunVersions`].
pub const VERSIONS: &str = "versions.json";

/// The formats a run's learner reads, published for its workers to check before they play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunVersions {
    /// The shard layout ([`damas_selfplay::shard::SHARD_FORMAT`]).
    pub shard_format: u32,
    /// The position and move encoding ([`damas_nn::ENCODING_VERSION`]).
    pub encoding_version: u32,
}

impl RunVersions {
    /// The versions this program reads and writes.
    pub fn ours() -> Self {
        RunVersions {
            shard_format: damas_selfplay::shard::SHARD_FORMAT,
            encoding_version: damas_nn::ENCODING_VERSION,
        }
    }
}
