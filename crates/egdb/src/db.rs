//! A set of tables for one variant, opened from a directory, and probing.

use crate::signature::Signature;
use crate::table::{Table, TableError};
use crate::value::Probe;
use damas_rules::{Position, Rules};
use std::any::Any;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

/// The directory of `V`'s tables under a database root: `ROOT/<variant>/`.
pub fn variant_dir<V: Rules>(root: &Path) -> PathBuf {
    root.join(V::NAME)
}

/// Solved tables of one variant, in memory, by signature.
#[derive(Clone, Debug)]
pub struct Egdb<V: Rules> {
    tables: HashMap<Signature, Table<V>>,
}

impl<V: Rules> Default for Egdb<V> {
    fn default() -> Self {
        Egdb {
            tables: HashMap::new(),
        }
    }
}

impl<V: Rules> Egdb<V> {
    /// No tables.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every table of `V` under the database root `root` (`ROOT/<variant>/*.egdb`). A damaged
    /// or foreign file is an error naming it; a missing directory is an error too.
    pub fn open(root: &Path) -> Result<Self, TableError> {
        let dir = variant_dir::<V>(root);
        let entries = std::fs::read_dir(&dir).map_err(|source| TableError::Io {
            path: dir.clone(),
            source,
        })?;
        let mut db = Egdb::new();
        for entry in entries {
            let entry = entry.map_err(|source| TableError::Io {
                path: dir.clone(),
                source,
            })?;
            let path = entry.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let Some(stem) = name.strip_suffix(".egdb") else {
                continue;
            };
            let signature: Signature = stem.parse().map_err(|e| TableError::Invalid {
                path: path.clone(),
                reason: format!("{e}"),
            })?;
            db.insert(Table::load(&path, signature)?);
        }
        Ok(db)
    }

    /// [`Egdb::open`], shared: while one opened copy of `root`'s tables for `V` is alive
    /// anywhere in the process, every caller gets it instead of reading the files again (the
    /// players and the adjudicator of a match hold one copy between them).
    pub fn open_shared(root: &Path) -> Result<Arc<Self>, TableError> {
        type Open = HashMap<PathBuf, Weak<dyn Any + Send + Sync>>;
        static OPEN: Mutex<Option<Open>> = Mutex::new(None);
        let dir = variant_dir::<V>(root);
        let key = std::fs::canonicalize(&dir).unwrap_or(dir);
        let mut open = OPEN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let open = open.get_or_insert_with(HashMap::new);
        if let Some(db) = open
            .get(&key)
            .and_then(Weak::upgrade)
            .and_then(|any| any.downcast::<Self>().ok())
        {
            return Ok(db);
        }
        let db = Arc::new(Self::open(root)?);
        let shared: Arc<dyn Any + Send + Sync> = db.clone();
        open.insert(key, Arc::downgrade(&shared));
        Ok(db)
    }

    /// Adds (or replaces) a table.
    pub fn insert(&mut self, table: Table<V>) {
        self.tables.insert(table.signature(), table);
    }

    /// The table of `signature`, if loaded.
    pub fn table(&self, signature: Signature) -> Option<&Table<V>> {
        self.tables.get(&signature)
    }

    /// The signatures loaded, sorted.
    pub fn signatures(&self) -> Vec<Signature> {
        let mut all: Vec<_> = self.tables.keys().copied().collect();
        all.sort();
        all
    }

    /// The most pieces `n` such that every signature of `n` pieces or fewer is loaded (0: none).
    pub fn complete_pieces(&self) -> u32 {
        (1..=32)
            .take_while(|&n| {
                Signature::up_to(n)
                    .iter()
                    .all(|s| self.tables.contains_key(s))
            })
            .last()
            .unwrap_or(0)
    }

    /// Whether any table is loaded.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// The value of `position` for the side to move, if its material has a table (and its men
    /// stand where men can).
    #[inline]
    pub fn probe(&self, position: &Position<V::Geometry>) -> Option<Probe> {
        let table = self.tables.get(&Signature::of(position))?;
        table
            .indexer()
            .covers(position)
            .then(|| table.probe(position))
    }
}
