//! Probing tables from their files: a probe reads and unpacks only the block that holds its
//! position (one positional read of a few kilobytes, one zstd frame), and unpacked blocks are
//! kept in a cache that the tables of one [`crate::Egdb`] share. The files stay on disk (the
//! operating system's page cache keeps the hot ones in memory, once for every process), so a
//! database larger than memory can be probed and a process holds only the cache.
//!
//! Memory-mapping the files would spare the read call but needs `unsafe` code, which this
//! workspace forbids; a cached block costs the same either way, and a block not cached costs
//! its unpacking (microseconds) in both.

use crate::file::{self, Layout};
use crate::index::Indexer;
use crate::signature::Signature;
use crate::table::{Table, TableError};
use crate::value::Value;
use damas_rules::{Position, Rules};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Cache bytes a database opened on disk gets unless told otherwise: 64 MiB, about 4,000
/// unpacked blocks of 8,192 positions.
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

/// Unpacked blocks, direct-mapped like an engine's transposition table: each block has one
/// slot it may live in, and a new block replaces whatever was there.
#[derive(Debug)]
pub struct BlockCache {
    slots: Box<[Mutex<Option<Cached>>]>,
}

#[derive(Debug)]
struct Cached {
    key: u64,
    values: Box<[u16]>,
}

impl BlockCache {
    /// A cache of about `bytes` bytes of unpacked blocks (at least 64 blocks).
    pub fn new(bytes: usize) -> Self {
        let blocks = (bytes / (2 * file::BLOCK_POSITIONS)).max(64);
        let slots = 1usize << (usize::BITS - 1 - blocks.leading_zeros());
        BlockCache {
            slots: (0..slots).map(|_| Mutex::new(None)).collect(),
        }
    }

    /// Blocks the cache holds at most.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    fn slot(&self, key: u64) -> &Mutex<Option<Cached>> {
        let hash = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        &self.slots[hash as usize & (self.slots.len() - 1)]
    }

    /// Value `at` of the block `key`, if that block is cached.
    fn get(&self, key: u64, at: usize) -> Option<u16> {
        let slot = self.slot(key).lock().unwrap_or_else(|p| p.into_inner());
        slot.as_ref().filter(|c| c.key == key).map(|c| c.values[at])
    }

    fn put(&self, key: u64, values: Box<[u16]>) {
        *self.slot(key).lock().unwrap_or_else(|p| p.into_inner()) = Some(Cached { key, values });
    }
}

/// One table probed from its file (format 2).
#[derive(Debug)]
pub(crate) struct DiskTable<V: Rules> {
    indexer: Indexer<V>,
    path: PathBuf,
    file: File,
    layout: Layout,
    /// This table's number in its database's cache keys.
    id: u32,
    /// The first block that could not be read, if any (its probes answer nothing).
    fault: OnceLock<String>,
}

/// A table opened for probing: from its file, or whole where the file has no blocks.
pub(crate) enum Opened<V: Rules> {
    /// Format 2: probed block by block.
    Disk(DiskTable<V>),
    /// Format 1: read whole.
    Memory(Table<V>),
}

impl<V: Rules> DiskTable<V> {
    /// Opens the table of `signature` at `path`, checking its header and block index (not
    /// its blocks: each is checked when first read). `id` numbers it in the cache.
    pub fn open(path: &Path, signature: Signature, id: u32) -> Result<Opened<V>, TableError> {
        let mut opened = file::open::<V>(path, signature)?;
        if opened.header.format == 1 {
            return Ok(Opened::Memory(Table::load(path, signature)?));
        }
        let layout = file::read_layout(&mut opened, path)?;
        Ok(Opened::Disk(DiskTable {
            indexer: Indexer::new(signature),
            path: path.to_path_buf(),
            file: opened.file,
            layout,
            id,
            fault: OnceLock::new(),
        }))
    }

    /// The index.
    pub fn indexer(&self) -> &Indexer<V> {
        &self.indexer
    }

    /// The first fault met reading this table, naming the file and block.
    pub fn fault(&self) -> Option<&str> {
        self.fault.get().map(String::as_str)
    }

    /// The value of `position` (of this signature), reading its block into `cache` if it is
    /// not there; `None` if the block cannot be read or is damaged (see [`Self::fault`]).
    pub fn value(&self, position: &Position<V::Geometry>, cache: &BlockCache) -> Option<Value> {
        let turn = (position.turn() == damas_rules::Color::Black) as usize;
        let slot = turn * self.indexer.size() as usize + self.indexer.index(position) as usize;
        let block = slot / self.layout.block_positions;
        let at = slot % self.layout.block_positions;
        let key = (self.id as u64) << 32 | block as u64;
        if let Some(v) = cache.get(key, at) {
            return Some(Value(v));
        }
        match self.read_block(block) {
            Ok(values) => {
                let v = values[at];
                cache.put(key, values.into_boxed_slice());
                Some(Value(v))
            }
            Err(reason) => {
                let _ = self
                    .fault
                    .set(format!("{}: block {block}: {reason}", self.path.display()));
                None
            }
        }
    }

    /// Reads, checks and unpacks block `block`.
    fn read_block(&self, block: usize) -> Result<Vec<u16>, String> {
        let b = self.layout.blocks[block];
        let mut frame = vec![0u8; (b.end - b.start) as usize];
        read_at(&self.file, &mut frame, b.start).map_err(|e| format!("cannot be read: {e}"))?;
        file::unpack_block(
            &frame,
            self.layout.block_len(block),
            self.layout.header.wide(),
            b.crc32,
        )
    }
}

/// Fills `buf` from `file` at byte `offset`, without moving a shared cursor (so threads
/// probe one open file at once).
#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}
