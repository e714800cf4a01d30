//! Training: `damas train` runs generation after generation of self-play, training and
//! evaluation in one run directory, resumable at any point.
//!
//! - [`config`]: the run's TOML config.
//! - [`replay`]: the replay window over the newest shards.
//! - [`trainer`]: the burn model, optimiser and training step.
//! - [`events`]: TensorBoard output, and a reader of event files.
//! - [`run`]: the loop and its files.

pub mod config;
pub mod events;
pub mod replay;
pub mod run;
pub mod trainer;

pub use config::TrainConfig;
pub use run::{Progress, Run, RunError, RunPaths, RunSummary, Silent};
pub use trainer::{TrainMetrics, Trainer};
