//! Self-play: many games at once on a few threads, each move searched by MCTS over a shared
//! batched evaluator, written as versioned training shards and PDN.
//!
//! - [`config`]: [`SelfPlayConfig`] (search, playout cap randomisation, temperature, openings,
//!   resignation, threads).
//! - [`play`]: the worker loop and [`play_games`].
//! - [`shard`]: the shard file format.
//! - [`output`]: [`ShardWriter`] and running [`Stats`].
//! - [`engine_games`]: the alpha-beta engine's games as samples, for a warm start.
//! - [`drive`]: [`play_into_shards`], games played straight into shard files.

pub mod config;
pub mod drive;
pub mod engine_games;
pub mod output;
pub mod play;
pub mod shard;

pub use config::{ConfigError, ConfigProblem, SelfPlayConfig};
pub use drive::{
    JobError, SelfPlayJob, SelfPlayReport, engine_games_into_shards, play_into_shards, run_job,
};
pub use engine_games::{EngineGames, play_engine_games};
pub use output::{ShardWriter, Stats};
pub use play::{GameRecord, TimedEvaluator, material_balance, play_games};
pub use shard::{AuxTargets, Sample, Shard, ShardError, ShardHeader, list_shards};
