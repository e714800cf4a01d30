//! Self-play: many games at once on a few threads, each move searched by MCTS over a shared
//! batched evaluator, written as versioned training shards and PDN.
//!
//! - [`config`]: [`SelfPlayConfig`] (search, playout cap randomisation, temperature, openings,
//!   resignation, threads).
//! - [`play`]: the worker loop and [`play_games`].
//! - [`shard`]: the shard file format.
//! - [`output`]: [`ShardWriter`] and running [`Stats`].

pub mod config;
pub mod output;
pub mod play;
pub mod shard;

pub use config::{ConfigError, SelfPlayConfig};
pub use output::{ShardWriter, Stats};
pub use play::{GameRecord, TimedEvaluator, play_games};
pub use shard::{Sample, Shard, ShardError, ShardHeader, list_shards};

/// Reads a file of start positions for `V`: one FEN per line; blank lines and lines starting
/// with `#` are skipped. Errors name the file and line.
pub fn read_openings<V: damas_rules::Rules>(
    path: &std::path::Path,
) -> Result<Vec<damas_rules::Position<V::Geometry>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    damas_rules::parse_fen_lines::<V>(&text).map_err(|e| format!("{}: {e}", path.display()))
}
