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
    /// A run's shards (`genNNNNNN-*`) count only once their generation's marker
    /// (`genNNNNNN.done`) is there: a shard no marker names is the remains of a self-play that
    /// never finished, or of another learner's history, and is never trained on.
    pub fn load<V: Rules>(dir: &Path, size: usize) -> Result<Self, ShardError> {
        let mut paths = list_shards(dir).map_err(|source| ShardError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        paths.retain(|path| marked(dir, path));
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

/// Whether the shard at `path` may be trained on: a run's shard (`genNNNNNN-*`) only once its
/// generation's marker is in `dir`; any other name (shards made outside a run) always.
fn marked(dir: &Path, path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.get(..9) {
        Some(prefix)
            if prefix.starts_with("gen") && prefix[3..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            dir.join(format!("{prefix}.done")).exists()
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_shard_counts_only_once_its_generation_is_marked() {
        let dir = std::env::temp_dir().join(format!("damas-replay-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let shard = dir.join("gen000003-000001.shard");
        assert!(
            !marked(&dir, &shard),
            "self-play of generation 3 not finished"
        );
        std::fs::write(dir.join("gen000003.done"), "{}").unwrap();
        assert!(marked(&dir, &shard));
        assert!(!marked(
            &dir,
            &dir.join("gen000004-g000003-w1-000000.shard")
        ));
        assert!(
            marked(&dir, &dir.join("selfplay-000000.shard")),
            "made outside a run"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
