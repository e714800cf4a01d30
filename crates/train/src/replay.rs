//! The replay window: the most recent samples, as many as the config allows for the amount of
//! data made so far, sampled uniformly into batches.

use crate::config::TrainingSection;
use damas_rules::Rules;
use damas_selfplay::{Sample, Shard, ShardError, list_shards};
use rand::Rng;
use rand::rngs::StdRng;
use std::path::Path;

/// The samples training draws from.
#[derive(Debug, Default)]
pub struct ReplayWindow {
    samples: Vec<Sample>,
}

impl ReplayWindow {
    /// The window size for `total` samples made so far: `window_fraction` of them, at least
    /// `window_min` and at most `window_max`, and never more than there are.
    pub fn size_for(config: &TrainingSection, total: u64) -> usize {
        let grown = (total as f64 * config.window_fraction) as usize;
        grown
            .clamp(config.window_min, config.window_max)
            .min(total as usize)
    }

    /// The newest `size` samples of `V`'s shards in `dir` (numbered, so name order is age order).
    pub fn load<V: Rules>(dir: &Path, size: usize) -> Result<Self, ShardError> {
        let paths = list_shards(dir).map_err(|source| ShardError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let mut newest_first: Vec<Vec<Sample>> = Vec::new();
        let mut count = 0;
        for path in paths.iter().rev() {
            if count >= size {
                break;
            }
            let mut samples = Shard::read_for::<V>(path)?.samples;
            if count + samples.len() > size {
                samples.drain(..count + samples.len() - size);
            }
            count += samples.len();
            newest_first.push(samples);
        }
        let samples = newest_first.into_iter().rev().flatten().collect();
        Ok(ReplayWindow { samples })
    }

    /// Samples in the window.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether the window is empty.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// `count` samples drawn uniformly with replacement.
    pub fn sample(&self, count: usize, rng: &mut StdRng) -> Vec<&Sample> {
        (0..count)
            .map(|_| &self.samples[rng.random_range(0..self.samples.len())])
            .collect()
    }
}
