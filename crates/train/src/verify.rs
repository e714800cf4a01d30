//! Checking a run directory: every complete checkpoint loads (metadata and weights) and every
//! shard decodes for the run's variant (`damas train --check`, the kill soak's final check).

use crate::config::TrainConfig;
use crate::run::{RunError, RunPaths};
use damas_nn::checkpoint::load_network;
use damas_rules::{Rules, VariantVisitor};
use damas_selfplay::{Shard, list_shards};
use std::path::Path;

/// What a checked run holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunContents {
    /// Complete checkpoints (all load).
    pub checkpoints: usize,
    /// The last checkpoint's generation.
    pub last_generation: Option<u32>,
    /// Generations whose self-play is complete (`shards/genN.done`).
    pub generations_played: usize,
    /// Shard files (all decode).
    pub shards: usize,
    /// Samples in them.
    pub samples: usize,
}

/// Loads every checkpoint and reads every shard of the run `config` names under `runs`.
pub fn check_run(config: &TrainConfig, runs: &Path) -> Result<RunContents, RunError> {
    check_run_at(config, &runs.join(&config.name))
}

/// Loads every checkpoint and reads every shard of the run of `config` in directory `root`.
pub fn check_run_at(config: &TrainConfig, root: &Path) -> Result<RunContents, RunError> {
    struct Check(RunPaths);
    impl VariantVisitor for Check {
        type Output = Result<RunContents, RunError>;
        fn visit<V: Rules>(self) -> Self::Output {
            check::<V>(&self.0)
        }
    }
    config.variant.visit(Check(RunPaths::new(root)))
}

fn check<V: Rules>(paths: &RunPaths) -> Result<RunContents, RunError> {
    let device = damas_nn::cpu();
    let generations = paths.generations()?;
    for &generation in &generations {
        load_network::<V>(&paths.checkpoint(generation), &device)?;
    }
    let mut contents = RunContents {
        checkpoints: generations.len(),
        last_generation: generations.last().copied(),
        ..RunContents::default()
    };
    let io = |source| RunError::Io {
        path: paths.shards.clone(),
        source,
    };
    for shard in list_shards(&paths.shards).map_err(io)? {
        contents.samples += Shard::read_for::<V>(&shard)?.samples.len();
        contents.shards += 1;
    }
    contents.generations_played = std::fs::read_dir(&paths.shards)
        .map_err(io)?
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".done"))
        .count();
    Ok(contents)
}
