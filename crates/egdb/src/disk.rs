//! Probing tables from their files: each file is memory-mapped, a probe decompresses only the
//! block that holds its position (a few hundred bytes, compressed alone), and decompressed blocks
//! are kept in a cache that the tables of one [`crate::Egdb`] share. The files stay on disk (the
//! operating system's page cache keeps the hot ones in memory, once for every process), so a
//! database larger than memory can be probed and a process holds only the cache.

use crate::file::{self, Layout};
use crate::index::Indexer;
use crate::signature::Signature;
use crate::table::{Table, TableError};
use crate::value::Value;
use damas_rules::{Position, Rules};
use memmap2::Mmap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Cache bytes a database opened on disk gets unless told otherwise: 64 MiB, about 100,000
/// decompressed blocks of [`crate::file::BLOCK_POSITIONS`] positions (640 bytes each).
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

/// Blocks a set of the cache holds.
const WAYS: usize = 4;

/// Decompressed blocks, in sets of [`WAYS`] like a CPU's cache: a block may live in any way of
/// the one set its key hashes to, the set keeps its blocks most recently used first, and a new
/// block evicts the least recently used. Blocks stay packed (2 bits and a distance a position)
/// and a probe decodes its one entry.
#[derive(Debug)]
pub struct BlockCache {
    sets: Box<[Mutex<[Option<Cached>; WAYS]>]>,
}

#[derive(Debug)]
struct Cached {
    key: u64,
    bytes: Box<[u8]>,
}

impl BlockCache {
    /// A cache of at most about `bytes` bytes of blocks of up to `block_bytes` bytes each
    /// (unpacked; at least 64 blocks).
    pub fn new(bytes: usize, block_bytes: usize) -> Self {
        let blocks = (bytes / block_bytes.max(1)).max(64);
        let sets = blocks / WAYS;
        BlockCache {
            sets: (0..sets).map(|_| Mutex::new(Default::default())).collect(),
        }
    }

    /// Blocks the cache holds at most.
    pub fn capacity(&self) -> usize {
        self.sets.len() * WAYS
    }

    /// Drops every cached block.
    pub fn clear(&self) {
        for set in &self.sets {
            *set.lock().unwrap_or_else(|p| p.into_inner()) = Default::default();
        }
    }

    fn set(&self, key: u64) -> std::sync::MutexGuard<'_, [Option<Cached>; WAYS]> {
        let hash = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        self.sets[hash as usize % self.sets.len()]
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// `read(bytes)` of the block `key`, if that block is cached (it becomes the most
    /// recently used of its set).
    fn get<T>(&self, key: u64, read: impl FnOnce(&[u8]) -> T) -> Option<T> {
        let mut set = self.set(key);
        let way = set
            .iter()
            .position(|c| c.as_ref().is_some_and(|c| c.key == key))?;
        set[..=way].rotate_right(1);
        set[0].as_ref().map(|c| read(&c.bytes))
    }

    /// Caches the block `key`, evicting its set's least recently used.
    fn put(&self, key: u64, bytes: Box<[u8]>) {
        let mut set = self.set(key);
        set.rotate_right(1);
        set[0] = Some(Cached { key, bytes });
    }
}

/// One table probed from its file (format 2).
#[derive(Debug)]
pub(crate) struct DiskTable<V: Rules> {
    indexer: Indexer<V>,
    path: PathBuf,
    /// The whole file, mapped.
    map: Mmap,
    layout: Layout,
    /// This table's number in its database's cache keys.
    id: u32,
    /// The first block found damaged, if any (its probes answer nothing).
    fault: OnceLock<String>,
}

/// A table opened for probing: from its file, or whole where the file has no blocks.
pub(crate) enum Opened<V: Rules> {
    /// Format 2: probed block by block.
    Disk(Box<DiskTable<V>>),
    /// Format 1: read whole.
    Memory(Table<V>),
}

impl<V: Rules> DiskTable<V> {
    /// Opens the table of `signature` at `path`, checking its header and block index (not
    /// its blocks: each is checked when first read). `id` numbers it in the cache.
    pub fn open(path: &Path, signature: Signature, id: u32) -> Result<Opened<V>, TableError> {
        let mut opened = file::open::<V>(path, signature)?;
        if opened.header.format == 1 {
            return Ok(Opened::Memory(file::read_whole(opened, path, signature)?));
        }
        let layout = file::read_layout(&mut opened, path)?;
        let map = map(&opened.file, path)?;
        if map.len() as u64 != opened.len {
            return Err(TableError::invalid(path, "changed while it was opened"));
        }
        Ok(Opened::Disk(Box::new(DiskTable {
            indexer: Indexer::new(signature),
            path: path.to_path_buf(),
            map,
            layout,
            id,
            fault: OnceLock::new(),
        })))
    }

    /// Bytes of one of this table's blocks unpacked, as the cache holds it.
    pub fn block_bytes(&self) -> usize {
        file::encoded_len(self.layout.block_positions, self.layout.header.wide())
    }

    /// The index.
    pub fn indexer(&self) -> &Indexer<V> {
        &self.indexer
    }

    /// The first damaged block met in this table, naming the file and block.
    pub fn fault(&self) -> Option<&str> {
        self.fault.get().map(String::as_str)
    }

    /// The value of `position` (of this signature), reading its block into `cache` if it is
    /// not there; `None` if the block is damaged (see [`Self::fault`]). An I/O error under the
    /// mapping is not an answer but a fault of the process (SIGBUS), as for any mapped file.
    pub fn value(&self, position: &Position<V::Geometry>, cache: &BlockCache) -> Option<Value> {
        let slot = self.indexer.slot(position);
        let block = slot / self.layout.block_positions;
        let at = slot % self.layout.block_positions;
        let key = (self.id as u64) << 32 | block as u64;
        let count = self.layout.block_len(block);
        let wide = self.layout.header.wide();
        if let Some(v) = cache.get(key, |bytes| file::value_in_block(bytes, count, wide, at)) {
            return Some(v);
        }
        match self.read_block(block) {
            Ok(bytes) => {
                let v = file::value_in_block(&bytes, count, wide, at);
                cache.put(key, bytes.into_boxed_slice());
                Some(v)
            }
            Err(reason) => {
                let _ = self
                    .fault
                    .set(format!("{}: block {block}: {reason}", self.path.display()));
                None
            }
        }
    }

    /// Decompresses and checks block `block`: its uncompressed bytes.
    fn read_block(&self, block: usize) -> Result<Vec<u8>, String> {
        let b = self.layout.blocks[block];
        // In bounds: the block index was checked against the file's length when it was opened.
        let frame = &self.map[b.start as usize..b.end as usize];
        file::inflate_block(
            self.layout.header.codec,
            frame,
            self.layout.block_len(block),
            self.layout.header.wide(),
            b.crc32,
        )
    }
}

/// `file` (at `path`) mapped into memory, read-only, for probes that touch a block here and
/// there (no read-ahead where the system takes the hint).
#[allow(unsafe_code)]
fn map(file: &File, path: &Path) -> Result<Mmap, TableError> {
    // SAFETY: the mapping is only read, and its bytes must not change while it lives. Table
    // files are written whole under another name and renamed into place (`file::save`), so a
    // rebuilt table is a new file and this mapping keeps the old one; nothing in this project
    // writes into a table file in place. A file truncated in place by hand while mapped would
    // fault the process, as it would any program that maps files (Scan, Kingsrow's drivers).
    let map = unsafe { Mmap::map(file) }.map_err(|source| TableError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Random);
    Ok(map)
}
