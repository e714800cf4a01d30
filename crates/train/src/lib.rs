//! Training: `damas train` runs generation after generation of self-play, training and
//! evaluation in one run directory, resumable at any point.
//!
//! - [`config`]: the run's TOML config.
//! - [`config_change`]: what a resumed run's config changes, refused unless accepted.
//! - [`replay`]: the replay window over the newest shards.
//! - [`trainer`]: the burn model, optimiser and training step.
//! - [`tensorboard`]: TensorBoard output.
//! - [`run`]: the loop and its files.
//! - [`learning`]: strength against training time (`damas bench learning`).
//! - [`verify`]: checking a run directory's files.
//! - [`worker`]: `damas worker`, self-play for a learner elsewhere.

pub mod bench;
pub mod config;
pub mod config_change;
pub mod learning;
pub mod replay;
pub mod run;
pub mod tensorboard;
pub mod trainer;
pub mod verify;
pub mod worker;

pub use config::{ConfigFile, SelfPlaySettings, TrainConfig};
pub use config_change::{ConfigChange, ConfigChanges, config_changes};
pub use run::{
    GenerationTime, Progress, Run, RunError, RunHome, RunPaths, RunSummary, Silent, train, train_in,
};
pub use trainer::{StepPath, TrainMetrics, Trainer, value_target};
pub use verify::{RunContents, check_run, check_run_at};
pub use worker::{WorkerOptions, WorkerSummary, run_worker};
