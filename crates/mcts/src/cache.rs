//! A cache of evaluations in front of any evaluator (Lc0's NNCache): positions met again, by
//! transposition, in another game of the same worker or in the next move's search, are answered
//! without the network.
//!
//! The key is everything an evaluation depends on: the position's Zobrist hash, the draw
//! counters as the variant's draw rules see them (`Game::draw_progress`: king-only plies, plies
//! without a capture and repetitions, each 0 where its rule is absent and capped at its limit,
//! exactly what the network's encoding reads), and the legal moves in their order (the priors
//! follow it). Two generations of
//! entries bound the memory: when the newer one is full the older is dropped.

use crate::evaluator::{Evaluation, Evaluator, Leaf};
use damas_rules::Rules;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Hits and lookups of a [`CachedEvaluator`] so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Leaves answered from the cache.
    pub hits: u64,
    /// Leaves asked for.
    pub lookups: u64,
}

impl CacheStats {
    /// Share of the lookups answered from the cache.
    pub fn hit_rate(&self) -> f64 {
        self.hits as f64 / self.lookups.max(1) as f64
    }
}

/// The two generations of entries.
#[derive(Default)]
struct Entries {
    newer: HashMap<u64, Evaluation>,
    older: HashMap<u64, Evaluation>,
}

/// An evaluator that remembers the evaluations of up to about `2 x capacity` positions.
pub struct CachedEvaluator<E> {
    inner: E,
    capacity: usize,
    entries: Mutex<Entries>,
    hits: AtomicU64,
    lookups: AtomicU64,
}

/// The cache key of a leaf (see the module documentation).
pub fn leaf_key<V: Rules>(leaf: &Leaf<'_, V>) -> u64 {
    let game = leaf.game;
    let mut hasher = DefaultHasher::new();
    game.hash().hash(&mut hasher);
    game.draw_progress().hash(&mut hasher);
    leaf.moves.len().hash(&mut hasher);
    for mv in leaf.moves {
        (mv.from_bit(), mv.to_bit(), mv.is_removal()).hash(&mut hasher);
        mv.captured().for_each(|square| square.hash(&mut hasher));
    }
    hasher.finish()
}

impl<E> CachedEvaluator<E> {
    /// `inner` behind a cache of `capacity` entries per generation (0: no cache, every leaf
    /// goes to `inner`).
    pub fn new(inner: E, capacity: usize) -> Self {
        CachedEvaluator {
            inner,
            capacity,
            entries: Mutex::default(),
            hits: AtomicU64::new(0),
            lookups: AtomicU64::new(0),
        }
    }

    /// Hits and lookups so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            lookups: self.lookups.load(Ordering::Relaxed),
        }
    }

    /// The evaluator behind the cache.
    pub fn inner(&self) -> &E {
        &self.inner
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        // A panic elsewhere cannot leave the maps half-updated: each insert is one call.
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<V: Rules, E: Evaluator<V>> Evaluator<V> for CachedEvaluator<E> {
    fn evaluate(&self, leaves: &[Leaf<'_, V>]) -> Vec<Evaluation> {
        if self.capacity == 0 {
            return self.inner.evaluate(leaves);
        }
        let keys: Vec<u64> = leaves.iter().map(leaf_key).collect();
        let mut answers: Vec<Option<Evaluation>> = {
            let entries = self.entries();
            keys.iter()
                .map(|key| {
                    entries
                        .newer
                        .get(key)
                        .or_else(|| entries.older.get(key))
                        .cloned()
                })
                .collect()
        };
        let missing: Vec<usize> = (0..leaves.len())
            .filter(|&i| answers[i].is_none())
            .collect();
        self.lookups
            .fetch_add(leaves.len() as u64, Ordering::Relaxed);
        self.hits
            .fetch_add((leaves.len() - missing.len()) as u64, Ordering::Relaxed);
        if !missing.is_empty() {
            let asked: Vec<Leaf<'_, V>> = missing
                .iter()
                .map(|&i| Leaf {
                    game: leaves[i].game,
                    moves: leaves[i].moves,
                })
                .collect();
            let fresh = self.inner.evaluate(&asked);
            let mut entries = self.entries();
            for (&i, evaluation) in missing.iter().zip(fresh) {
                if entries.newer.len() >= self.capacity {
                    entries.older = std::mem::take(&mut entries.newer);
                }
                entries.newer.insert(keys[i], evaluation.clone());
                answers[i] = Some(evaluation);
            }
        }
        answers
            .into_iter()
            .map(|a| a.expect("every leaf answered"))
            .collect()
    }
}
