//! One solved table (a signature, both sides to move), whole in memory; its file is
//! [`crate::file`]'s.

use crate::file;
use crate::index::Indexer;
use crate::signature::Signature;
use crate::value::{Distance, Probe, Value, Wdl};
use damas_rules::{Position, Rules};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Positions won, drawn and lost for the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Won for the side to move.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost for the side to move.
    pub losses: u64,
}

impl Counts {
    /// All three.
    pub fn total(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Adds `other`.
    pub fn add(&mut self, other: &Counts) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }
}

/// Why a table file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// The file is not a table of this variant and signature, or is damaged.
    #[error("{path}: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

impl TableError {
    /// The file at `path` is damaged or foreign: `reason` says how.
    pub fn invalid(path: &Path, reason: impl Into<String>) -> Self {
        TableError::Invalid {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }
}

/// A solved table: every position of one signature, both sides to move.
#[derive(Clone, Debug)]
pub struct Table<V: Rules> {
    indexer: Indexer<V>,
    values: Vec<u16>,
    counts: Counts,
    placements: u64,
    max_plies: u32,
    distance: Distance,
}

impl<V: Rules> Table<V> {
    /// A table from its solved values (White to move first, then Black), their distances
    /// counting `distance`.
    pub fn new(indexer: Indexer<V>, values: Vec<u16>, distance: Distance) -> Self {
        assert_eq!(values.len() as u64, 2 * indexer.size());
        let mut counts = Counts::default();
        let mut max_plies = 0;
        let mut invalid = 0;
        for &v in &values {
            let v = Value(v);
            match v.wdl() {
                None => invalid += 1,
                Some(Wdl::Win) => counts.wins += 1,
                Some(Wdl::Draw) => counts.draws += 1,
                Some(Wdl::Loss) => counts.losses += 1,
            }
            max_plies = max_plies.max(v.plies().unwrap_or(0));
        }
        let placements = indexer.size() - invalid / 2;
        Table {
            indexer,
            values,
            counts,
            placements,
            max_plies,
            distance,
        }
    }

    /// The signature.
    pub fn signature(&self) -> Signature {
        self.indexer.signature()
    }

    /// The index.
    pub fn indexer(&self) -> &Indexer<V> {
        &self.indexer
    }

    /// Results over both sides to move.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Placements of the material (positions per side to move).
    pub fn placements(&self) -> u64 {
        self.placements
    }

    /// Longest win or loss in plies (what they count: [`Self::distance`]).
    pub fn max_plies(&self) -> u32 {
        self.max_plies
    }

    /// What the distances count.
    pub fn distance(&self) -> Distance {
        self.distance
    }

    /// Where `position` (of this signature) sits in [`Self::values`].
    pub fn slot(&self, position: &Position<V::Geometry>) -> usize {
        self.indexer.slot(position)
    }

    /// The value of `position`, which must have this signature.
    #[inline]
    pub fn value(&self, position: &Position<V::Geometry>) -> Value {
        Value(self.values[self.slot(position)])
    }

    /// The value of `position` as a probe answer.
    pub fn probe(&self, position: &Position<V::Geometry>) -> Probe {
        Probe::from(self.value(position))
    }

    /// Every index's value, White to move first.
    pub fn values(&self) -> &[u16] {
        &self.values
    }

    /// The file name of this table in a variant's directory.
    pub fn file_name(signature: Signature) -> String {
        format!("{signature}.egdb")
    }

    /// Writes the table to `path` atomically ([`crate::file`]'s layout); returns the file's
    /// size.
    pub fn save(&self, path: &Path) -> Result<u64, TableError> {
        file::save(self, path)
    }

    /// Reads the table of `signature` from `path` whole, refusing a damaged or foreign file.
    pub fn load(path: &Path, signature: Signature) -> Result<Self, TableError> {
        file::load(path, signature)
    }
}
