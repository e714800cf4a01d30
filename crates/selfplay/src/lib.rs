//! Self-play: many games at once on a few threads, each move searched by MCTS over a shared
//! batched evaluator, written as versioned training shards and PDN.
//!
//! - [`config`]: [`SelfPlayConfig`] (search, playout cap randomisation, temperature, openings,
//!   resignation, threads).
//! - [`play`]: the worker loop and [`play_games`].
//! - [`shard`]: the shard file format.
//! - [`output`]: [`ShardWriter`] and running [`Stats`].
//! - [`drive`]: [`play_into_shards`], games played straight into shard files.

pub mod config;
pub mod drive;
pub mod output;
pub mod play;
pub mod shard;

pub use config::{ConfigError, ConfigProblem, SelfPlayConfig};
pub use drive::{JobError, SelfPlayJob, SelfPlayReport, play_into_shards, run_job};
pub use output::{ShardWriter, Stats};
pub use play::{GameRecord, TimedEvaluator, play_games};
pub use shard::{Sample, Shard, ShardError, ShardHeader, list_shards};
