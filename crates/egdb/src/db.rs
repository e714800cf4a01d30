//! A set of tables for one variant, opened from a directory, and probing.

use crate::disk::{BlockCache, DEFAULT_CACHE_BYTES, DiskTable, Opened};
use crate::index::Indexer;
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

/// Where a database's tables are probed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Storage {
    /// Every table read whole into memory (2 bytes a position): what solving and verifying
    /// need, and the fastest probes.
    Memory,
    /// Tables left in their files, read a block at a time into a shared cache of about this
    /// many bytes ([`crate::disk`]): memory stays at the cache's size whatever the tables'.
    Files {
        /// The cache's size in bytes.
        cache_bytes: usize,
    },
}

impl Default for Storage {
    /// On disk with a [`DEFAULT_CACHE_BYTES`] cache: how players and self-play open tables.
    fn default() -> Self {
        Storage::Files {
            cache_bytes: DEFAULT_CACHE_BYTES,
        }
    }
}

/// One table of a database, wherever it is probed from.
#[derive(Debug)]
enum Stored<V: Rules> {
    Memory(Table<V>),
    Disk(Box<DiskTable<V>>),
}

/// Solved tables of one variant, by signature, probed from memory or from their files.
#[derive(Debug)]
pub struct Egdb<V: Rules> {
    tables: HashMap<Signature, Stored<V>>,
    cache: Option<BlockCache>,
}

impl<V: Rules> Default for Egdb<V> {
    fn default() -> Self {
        Egdb {
            tables: HashMap::new(),
            cache: None,
        }
    }
}

impl<V: Rules> Egdb<V> {
    /// No tables.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every table of `V` under the database root `root` (`ROOT/<variant>/*.egdb`), read whole
    /// into memory. A damaged or foreign file is an error naming it; a missing directory is an
    /// error too.
    pub fn open(root: &Path) -> Result<Self, TableError> {
        Self::open_with(root, Storage::Memory)
    }

    /// [`Egdb::open`], the tables stored as `storage` says. On disk, each file's header and
    /// block index are checked now and each block when it is first read.
    pub fn open_with(root: &Path, storage: Storage) -> Result<Self, TableError> {
        let dir = variant_dir::<V>(root);
        let entries = std::fs::read_dir(&dir).map_err(|source| TableError::Io {
            path: dir.clone(),
            source,
        })?;
        let mut db = Egdb::new();
        let mut paths = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| TableError::Io {
                path: dir.clone(),
                source,
            })?;
            paths.push(entry.path());
        }
        paths.sort();
        for path in paths {
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let Some(stem) = name.strip_suffix(".egdb") else {
                continue;
            };
            let signature: Signature = stem
                .parse()
                .map_err(|e| TableError::invalid(&path, format!("{e}")))?;
            // One file per signature: a name that parses but is not the one the build writes
            // (`w01.0-b1.1`) would stand for the same table twice.
            if stem != signature.to_string() {
                return Err(TableError::invalid(
                    &path,
                    format!("not a table's name (the table of {signature} is {signature}.egdb)"),
                ));
            }
            let stored = match storage {
                Storage::Memory => Stored::Memory(Table::load(&path, signature)?),
                Storage::Files { .. } => {
                    let id = db.tables.len() as u32;
                    match DiskTable::open(&path, signature, id)? {
                        Opened::Disk(table) => Stored::Disk(table),
                        Opened::Memory(table) => Stored::Memory(table),
                    }
                }
            };
            db.tables.insert(signature, stored);
        }
        if let Storage::Files { cache_bytes } = storage {
            let block_bytes = db
                .tables
                .values()
                .filter_map(|t| match t {
                    Stored::Disk(table) => Some(table.block_bytes()),
                    Stored::Memory(_) => None,
                })
                .max()
                .unwrap_or(crate::file::encoded_len(
                    crate::file::BLOCK_POSITIONS,
                    false,
                ));
            db.cache = Some(BlockCache::new(cache_bytes, block_bytes));
        }
        Ok(db)
    }

    /// [`Egdb::open_with`] the default [`Storage`] (on disk), shared: while one opened copy of
    /// `root`'s tables for `V` is alive anywhere in the process, every caller gets it instead
    /// of opening the files again (the players and the adjudicator of a match hold one copy
    /// and one cache between them).
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
        let db = Arc::new(Self::open_with(root, Storage::default())?);
        let shared: Arc<dyn Any + Send + Sync> = db.clone();
        open.insert(key, Arc::downgrade(&shared));
        Ok(db)
    }

    /// Adds (or replaces) a table.
    pub fn insert(&mut self, table: Table<V>) {
        self.tables.insert(table.signature(), Stored::Memory(table));
    }

    /// The table of `signature`, if it is loaded into memory (not for tables probed from
    /// their files).
    pub fn table(&self, signature: Signature) -> Option<&Table<V>> {
        match self.tables.get(&signature)? {
            Stored::Memory(table) => Some(table),
            Stored::Disk(_) => None,
        }
    }

    /// The index of the table of `signature`, wherever it is stored.
    pub fn indexer(&self, signature: Signature) -> Option<&Indexer<V>> {
        Some(match self.tables.get(&signature)? {
            Stored::Memory(table) => table.indexer(),
            Stored::Disk(table) => table.indexer(),
        })
    }

    /// Damaged blocks met probing tables from their files, one per table, each naming the file
    /// and block; their positions probe as not in the tables.
    pub fn faults(&self) -> Vec<String> {
        let mut faults: Vec<String> = self
            .tables
            .values()
            .filter_map(|t| match t {
                Stored::Disk(table) => table.fault().map(str::to_string),
                Stored::Memory(_) => None,
            })
            .collect();
        faults.sort();
        faults
    }

    /// Drops every block cached from the files, so that the next probe of each unpacks it
    /// again (benchmarks); tables in memory are not affected.
    pub fn clear_cache(&self) {
        if let Some(cache) = &self.cache {
            cache.clear();
        }
    }

    /// The signatures loaded, sorted.
    pub fn signatures(&self) -> Vec<Signature> {
        let mut all: Vec<_> = self.tables.keys().copied().collect();
        all.sort();
        all
    }

    /// The most pieces of any table loaded (0 when none is).
    pub fn most_pieces(&self) -> u32 {
        self.tables.keys().map(|s| s.pieces()).max().unwrap_or(0)
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
        let value = match self.tables.get(&Signature::of(position))? {
            Stored::Memory(table) => table
                .indexer()
                .covers(position)
                .then(|| table.value(position))?,
            Stored::Disk(table) => {
                let cache = self.cache.as_ref().expect("a database on disk has a cache");
                table.indexer().covers(position).then_some(())?;
                table.value(position, cache)?
            }
        };
        Some(Probe::from(value))
    }
}
