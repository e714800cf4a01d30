//! The table file: its layout, writing, and reading whole or by block.
//!
//! Format 2: the 8 bytes `DAMASEGD`; the header's length (u32, little endian) and the header
//! as JSON ([`TableHeader`]: format, variant, rule-set id, signature, sizes, counts, block size,
//! CRC-32 of the block index); the block index, 12 bytes a block (end offset of its compressed
//! bytes from the first block's start, u64, and CRC-32 of its uncompressed bytes, u32, little
//! endian); then the blocks, each compressed alone by the header's codec ([`Codec`]: LZ4 since
//! 2026-12-07, zstd before and when the header names none). A block holds [`BLOCK_POSITIONS`]
//! consecutive indices (White to move first, then Black; the last block fewer): their
//! win/draw/loss at 2 bits each (four to a byte), then their distances in plies (to the next
//! conversion, or to the end where the header says so: [`Distance`]; one byte each where every
//! distance of the table fits, else two, little endian). Blocks let a prober unpack
//! only the few hundred bytes around a position from the mapped file ([`crate::disk`]).
//!
//! Format 1 (read only, into memory): the same header with the CRC-32 of the whole payload and
//! no block index, then one zstd frame of the whole payload laid out as one block.
//!
//! A damaged, truncated or foreign file is refused with its path and what is wrong.

use crate::index::Indexer;
use crate::signature::Signature;
use crate::table::{Counts, Table, TableError};
use crate::value::{Distance, Value, Wdl};
use damas_rules::Rules;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The first bytes of every table file.
pub const MAGIC: &[u8; 8] = b"DAMASEGD";
/// Version of the table layout written.
pub const TABLE_FORMAT: u32 = 2;
/// Indices a block holds (a multiple of 4, so a block's results fill whole bytes): 512 is
/// 128 bytes of results and 512 bytes of one-byte distances. Measured on Russian's four-piece
/// tables, memory-mapped, on 2026-12-07 (six alternated runs, 4,096 random positions): blocks
/// of 512 take 5.9 MB on disk and 1.85 us (median) a probe that unpacks its block; blocks of
/// 2,048 (the layout before) 4.5 MB and 2.69 us; cached probes 118-200 ns either way. With
/// positional reads instead of a mapping (2026-12-06), 512 was no faster than 2,048 and 8,192
/// took 3.97 MB and twice as long; format 1 (one frame a table) 3.51 MB.
pub const BLOCK_POSITIONS: usize = 512;
/// zstd's level for the tables of [`Codec::Zstd`] (written only by tests now).
const ZSTD_LEVEL: i32 = 9;
/// Bytes a block takes in the index.
const INDEX_ENTRY: usize = 12;

/// The rule-set id written into tables: a CRC-32 of the variant's rules as data, so a table
/// solved under other rules (a changed rule set, another variant) is refused.
pub fn rules_id<V: Rules>() -> String {
    format!(
        "{:08x}",
        crc32fast::hash(format!("{:?}", V::RULES).as_bytes())
    )
}

/// How a format-2 file's blocks are compressed.
///
/// Measured on Russian's four-piece tables, memory-mapped, on 2026-12-07 (twelve alternated
/// runs, 4,096 random positions): a probe that unpacks its block takes 1.12 us (median) with
/// LZ4 and 2.65 us with zstd; the files take 9.5 MB and 6.0 MB (docs/notebook/, "LZ4 for the
/// tables' blocks").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Codec {
    /// One zstd frame a block, level 9: the files written before LZ4, and any header without a
    /// codec.
    #[default]
    Zstd,
    /// One LZ4 block a block (the `lz4_flex` crate's block format, no frame): larger files,
    /// unpacked several times as fast.
    Lz4,
}

/// The codec new tables are written with.
pub const CODEC: Codec = Codec::Lz4;

impl Codec {
    /// `bytes` compressed alone.
    fn compress(self, bytes: &[u8]) -> Result<Vec<u8>, std::io::Error> {
        match self {
            Codec::Zstd => zstd::bulk::compress(bytes, ZSTD_LEVEL),
            Codec::Lz4 => Ok(lz4_flex::block::compress(bytes)),
        }
    }

    /// One block's compressed bytes unpacked into exactly `len` bytes.
    fn decompress(self, frame: &[u8], len: usize) -> Result<Vec<u8>, String> {
        match self {
            Codec::Zstd => {
                thread_local! {
                    /// One decompression context a thread: making one costs more than
                    /// unpacking a block.
                    static CONTEXT: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
                        const { RefCell::new(None) };
                }
                CONTEXT
                    .with_borrow_mut(|context| {
                        let context = match context {
                            Some(context) => context,
                            None => context.insert(zstd::bulk::Decompressor::new()?),
                        };
                        context.decompress(frame, len)
                    })
                    .map_err(|e| format!("does not decompress: {e}"))
            }
            Codec::Lz4 => {
                let mut bytes = vec![0u8; len];
                let unpacked = lz4_flex::block::decompress_into(frame, &mut bytes)
                    .map_err(|e| format!("does not decompress: {e}"))?;
                bytes.truncate(unpacked);
                Ok(bytes)
            }
        }
    }
}

/// What a table file says about itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableHeader {
    /// Layout version ([`TABLE_FORMAT`], or 1 for the files of the first layout).
    pub format: u32,
    /// The variant's short name.
    pub variant: String,
    /// [`rules_id`] of the rules it was solved under.
    pub rules_id: String,
    /// The material, as `w<men>.<kings>-b<men>.<kings>`.
    pub signature: String,
    /// Indices per side to move.
    pub indices: u64,
    /// Placements (indices that are positions), per side to move.
    pub placements: u64,
    /// Results over both sides to move.
    pub counts: Counts,
    /// Longest win or loss, in plies.
    pub max_plies: u32,
    /// Format 1: CRC-32 of the uncompressed payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_crc32: Option<u32>,
    /// Format 2: indices a block holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_positions: Option<u32>,
    /// Format 2: CRC-32 of the block index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_crc32: Option<u32>,
    /// Format 2: how the blocks are compressed (zstd where the header names none).
    #[serde(default)]
    pub codec: Codec,
    /// What the distances count (to the end of the game where the header names none: the
    /// files written before 2026-12-08; a build older than that refuses a header naming one).
    #[serde(default)]
    pub distance: Distance,
}

impl TableHeader {
    /// Whether distances take two bytes.
    pub fn wide(&self) -> bool {
        self.max_plies > u8::MAX as u32
    }
}

/// Where one block's compressed bytes are, and its checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    /// First byte in the file.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// CRC-32 of the uncompressed block.
    pub crc32: u32,
}

/// A format-2 file's header and block index, read without its blocks.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// The header, checked against the variant and signature.
    pub header: TableHeader,
    /// The blocks in index order.
    pub blocks: Vec<Block>,
    /// Indices a block holds.
    pub block_positions: usize,
    /// Indices over both sides to move.
    pub slots: usize,
}

impl Layout {
    /// Indices block `block` holds.
    pub fn block_len(&self, block: usize) -> usize {
        (self.slots - block * self.block_positions).min(self.block_positions)
    }
}

/// The uncompressed bytes of `values` laid out as one block.
fn encode_block(values: &[u16], wide: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoded_len(values.len(), wide));
    for chunk in values.chunks(4) {
        let mut byte = 0u8;
        for (i, &v) in chunk.iter().enumerate() {
            let code = match Value(v).wdl() {
                Some(Wdl::Draw) => 0,
                Some(Wdl::Win) => 1,
                Some(Wdl::Loss) => 2,
                None => 3,
            };
            byte |= code << (2 * i);
        }
        out.push(byte);
    }
    for &v in values {
        let plies = Value(v).plies().unwrap_or(0) as u16;
        if wide {
            out.extend_from_slice(&plies.to_le_bytes());
        } else {
            out.push(plies as u8);
        }
    }
    out
}

/// Uncompressed bytes of a block of `count` indices.
pub(crate) fn encoded_len(count: usize, wide: bool) -> usize {
    count.div_ceil(4) + count * (1 + wide as usize)
}

/// The result code and distance of index `at` of a block of `count` indices, from its
/// uncompressed bytes (of the length [`encoded_len`] gives).
fn entry(bytes: &[u8], count: usize, wide: bool, at: usize) -> (u8, u32) {
    let code = (bytes[at / 4] >> (2 * (at % 4))) & 3;
    let plies = &bytes[count.div_ceil(4)..];
    let d = if wide {
        u16::from_le_bytes([plies[2 * at], plies[2 * at + 1]]) as u32
    } else {
        plies[at] as u32
    };
    (code, d)
}

/// The value a result code and a distance stand for (a distance out of range: no position).
fn value_of(code: u8, d: u32) -> Value {
    match code {
        _ if d > Value::MAX_PLIES => Value::INVALID,
        0 => Value::DRAW,
        1 => Value::win(d),
        2 => Value::loss(d),
        _ => Value::INVALID,
    }
}

/// The values of a block of `count` indices from its uncompressed bytes (checked by
/// [`inflate_block`]); a distance out of range is an error.
fn decode_block(bytes: &[u8], count: usize, wide: bool) -> Result<Vec<u16>, String> {
    (0..count)
        .map(|i| match entry(bytes, count, wide, i) {
            (_, d) if d > Value::MAX_PLIES => {
                Err(format!("distance {d} at index {i} is out of range"))
            }
            (code, d) => Ok(value_of(code, d).0),
        })
        .collect()
}

/// Decompresses one block's frame with `codec` and checks it: its uncompressed bytes.
pub(crate) fn inflate_block(
    codec: Codec,
    frame: &[u8],
    count: usize,
    wide: bool,
    crc32: u32,
) -> Result<Vec<u8>, String> {
    let bytes = codec.decompress(frame, encoded_len(count, wide))?;
    if bytes.len() != encoded_len(count, wide) {
        return Err(format!(
            "{} bytes unpacked, expected {}",
            bytes.len(),
            encoded_len(count, wide)
        ));
    }
    if crc32fast::hash(&bytes) != crc32 {
        return Err("checksum does not match".into());
    }
    Ok(bytes)
}

/// Decompresses, checks and decodes one block's frame.
fn unpack_block(
    codec: Codec,
    frame: &[u8],
    count: usize,
    wide: bool,
    crc32: u32,
) -> Result<Vec<u16>, String> {
    decode_block(
        &inflate_block(codec, frame, count, wide, crc32)?,
        count,
        wide,
    )
}

/// The value of index `at` of a block of `count` indices, from its uncompressed bytes (checked
/// by [`inflate_block`]; a distance out of range reads as no position).
pub(crate) fn value_in_block(bytes: &[u8], count: usize, wide: bool, at: usize) -> Value {
    let (code, d) = entry(bytes, count, wide, at);
    value_of(code, d)
}

/// Writes `table` to `path` atomically in format 2, in blocks of [`BLOCK_POSITIONS`] packed
/// by [`CODEC`]; returns the file's size.
pub(crate) fn save<V: Rules>(table: &Table<V>, path: &Path) -> Result<u64, TableError> {
    save_in_blocks(table, path, BLOCK_POSITIONS, CODEC)
}

/// [`save`] in blocks of `block_positions` indices (a multiple of 4) packed by `codec`.
fn save_in_blocks<V: Rules>(
    table: &Table<V>,
    path: &Path,
    block_positions: usize,
    codec: Codec,
) -> Result<u64, TableError> {
    let io = |source| TableError::Io {
        path: path.to_path_buf(),
        source,
    };
    let wide = table.max_plies() > u8::MAX as u32;
    let frames: Vec<(Vec<u8>, u32)> = table
        .values()
        .par_chunks(block_positions)
        .map(|chunk| {
            let bytes = encode_block(chunk, wide);
            let frame = codec.compress(&bytes)?;
            Ok((frame, crc32fast::hash(&bytes)))
        })
        .collect::<Result<_, std::io::Error>>()
        .map_err(io)?;
    let mut index = Vec::with_capacity(frames.len() * INDEX_ENTRY);
    let mut end = 0u64;
    for (frame, crc) in &frames {
        end += frame.len() as u64;
        index.extend_from_slice(&end.to_le_bytes());
        index.extend_from_slice(&crc.to_le_bytes());
    }
    let header = TableHeader {
        format: TABLE_FORMAT,
        variant: V::NAME.to_string(),
        rules_id: rules_id::<V>(),
        signature: table.signature().to_string(),
        indices: table.indexer().size(),
        placements: table.placements(),
        counts: table.counts(),
        max_plies: table.max_plies(),
        payload_crc32: None,
        block_positions: Some(block_positions as u32),
        index_crc32: Some(crc32fast::hash(&index)),
        codec,
        distance: table.distance(),
    };
    let header = serde_json::to_vec(&header).expect("a header serialises");
    let mut file = Vec::with_capacity(12 + header.len() + index.len() + end as usize);
    file.extend_from_slice(MAGIC);
    file.extend_from_slice(&(header.len() as u32).to_le_bytes());
    file.extend_from_slice(&header);
    file.extend_from_slice(&index);
    for (frame, _) in &frames {
        file.extend_from_slice(frame);
    }
    damas_store::write_atomically(path, &file).map_err(io)?;
    Ok(file.len() as u64)
}

/// A table file opened for reading: its header checked against `V` and `signature`.
pub(crate) struct Opened {
    /// The open file, positioned after the header.
    pub file: File,
    /// The header.
    pub header: TableHeader,
    /// Bytes before the block index (format 2) or payload (format 1).
    pub header_end: u64,
    /// The file's length.
    pub len: u64,
}

/// Opens `path` and reads and checks its header.
pub(crate) fn open<V: Rules>(path: &Path, signature: Signature) -> Result<Opened, TableError> {
    let invalid = |reason: String| TableError::invalid(path, reason);
    let io = |source| TableError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut start = [0u8; 12];
    read_exact(&mut file, &mut start, "header").map_err(|e| e.at(path))?;
    if &start[..8] != MAGIC {
        return Err(invalid("not a table file (no DAMASEGD mark)".into()));
    }
    let header_len = u32::from_le_bytes(start[8..].try_into().expect("4 bytes")) as u64;
    if 12 + header_len > len {
        return Err(invalid("truncated header".into()));
    }
    let mut bytes = vec![0u8; header_len as usize];
    read_exact(&mut file, &mut bytes, "header").map_err(|e| e.at(path))?;
    let header: TableHeader =
        serde_json::from_slice(&bytes).map_err(|e| invalid(format!("bad header: {e}")))?;
    let expect = |what: &str, found: &str, wanted: &str| {
        if found == wanted {
            Ok(())
        } else {
            Err(invalid(format!(
                "{what} is {found}, expected {wanted} (a table of another {what})"
            )))
        }
    };
    if header.format != 1 && header.format != TABLE_FORMAT {
        return Err(invalid(format!(
            "table format {} (this build reads formats 1 and {TABLE_FORMAT})",
            header.format
        )));
    }
    expect("variant", &header.variant, V::NAME)?;
    expect("rule set", &header.rules_id, &rules_id::<V>())?;
    expect("signature", &header.signature, &signature.to_string())?;
    let size = Indexer::<V>::new(signature).size();
    if header.indices != size {
        return Err(invalid(format!(
            "{} indices per side, the index of {signature} has {size}",
            header.indices
        )));
    }
    Ok(Opened {
        file,
        header,
        header_end: 12 + header_len,
        len,
    })
}

/// A short read, named by what was being read.
struct ShortRead(String);

impl ShortRead {
    fn at(self, path: &Path) -> TableError {
        TableError::invalid(path, self.0)
    }
}

fn read_exact(file: &mut File, buf: &mut [u8], what: &str) -> Result<(), ShortRead> {
    file.read_exact(buf)
        .map_err(|e| ShortRead(format!("truncated {what} ({e})")))
}

/// Reads and checks a format-2 file's block index (the file positioned after the header).
pub(crate) fn read_layout(opened: &mut Opened, path: &Path) -> Result<Layout, TableError> {
    let invalid = |reason: String| TableError::invalid(path, reason);
    let header = &opened.header;
    let block_positions = header
        .block_positions
        .filter(|&b| b > 0 && b % 4 == 0)
        .ok_or_else(|| invalid("no valid block size in a format-2 header".into()))?
        as usize;
    let slots = 2 * header.indices as usize;
    let count = slots.div_ceil(block_positions);
    // Checked before the index is allocated: a damaged header must not ask for gigabytes.
    if opened.header_end + (count * INDEX_ENTRY) as u64 > opened.len {
        return Err(invalid(format!(
            "truncated block index ({count} blocks of {block_positions} positions need {} bytes)",
            count * INDEX_ENTRY
        )));
    }
    let mut index = vec![0u8; count * INDEX_ENTRY];
    read_exact(&mut opened.file, &mut index, "block index").map_err(|e| e.at(path))?;
    if Some(crc32fast::hash(&index)) != header.index_crc32 {
        return Err(invalid("block index checksum does not match".into()));
    }
    let data_start = opened.header_end + index.len() as u64;
    let mut blocks = Vec::with_capacity(count);
    let mut start = data_start;
    for entry in index.chunks_exact(INDEX_ENTRY) {
        let end = data_start + u64::from_le_bytes(entry[..8].try_into().expect("8 bytes"));
        let crc32 = u32::from_le_bytes(entry[8..].try_into().expect("4 bytes"));
        if end < start || end > opened.len {
            return Err(invalid(format!(
                "block {} ends at byte {end}, outside {start}..{} (truncated?)",
                blocks.len(),
                opened.len
            )));
        }
        blocks.push(Block { start, end, crc32 });
        start = end;
    }
    if start != opened.len {
        return Err(invalid(format!(
            "{} bytes after the last block",
            opened.len - start
        )));
    }
    Ok(Layout {
        header: header.clone(),
        blocks,
        block_positions,
        slots,
    })
}

/// Reads the table of `signature` from `path` whole, refusing a damaged or foreign file.
pub(crate) fn load<V: Rules>(path: &Path, signature: Signature) -> Result<Table<V>, TableError> {
    read_whole(open::<V>(path, signature)?, path, signature)
}

/// Reads the rest of a table file [`open`] checked the header of, whole: one frame (format 1)
/// or every block (format 2).
pub(crate) fn read_whole<V: Rules>(
    mut opened: Opened,
    path: &Path,
    signature: Signature,
) -> Result<Table<V>, TableError> {
    let invalid = |reason: String| TableError::invalid(path, reason);
    let header = opened.header.clone();
    let wide = header.wide();
    let layout = match header.format {
        1 => None,
        _ => Some(read_layout(&mut opened, path)?),
    };
    let mut body = Vec::new();
    opened
        .file
        .read_to_end(&mut body)
        .map_err(|source| TableError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    let values = match layout {
        None => {
            let slots = 2 * header.indices as usize;
            let crc = header
                .payload_crc32
                .ok_or_else(|| invalid("no payload checksum in a format-1 header".into()))?;
            unpack_block(Codec::Zstd, &body, slots, wide, crc)
                .map_err(|e| invalid(format!("payload {e}")))?
        }
        Some(layout) => {
            let base = layout.blocks.first().map_or(0, |b| b.start);
            let parts: Vec<Vec<u16>> = layout
                .blocks
                .par_iter()
                .enumerate()
                .map(|(i, b)| {
                    let frame = &body[(b.start - base) as usize..(b.end - base) as usize];
                    unpack_block(header.codec, frame, layout.block_len(i), wide, b.crc32)
                        .map_err(|e| invalid(format!("block {i} {e}")))
                })
                .collect::<Result<_, _>>()?;
            parts.concat()
        }
    };
    let table = Table::new(Indexer::<V>::new(signature), values, header.distance);
    if table.counts() != header.counts || table.max_plies() != header.max_plies {
        return Err(invalid("counts do not match the header".into()));
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::build;
    use damas_rules::variants::English;

    /// Files of the first layout (one frame for the whole payload) still read, into memory and
    /// when opened for probing from disk.
    #[test]
    fn format_one_files_still_read() {
        let dir = std::env::temp_dir().join(format!("damas-egdb-format1-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let signature: Signature = "w0.2-b0.1".parse().unwrap();
        let (db, _) = build::<English>(&dir, &[signature], |_, _, _| {}).unwrap();
        let table = db.table(signature).unwrap();
        let payload = encode_block(table.values(), false);
        let header = TableHeader {
            format: 1,
            variant: "english".into(),
            rules_id: rules_id::<English>(),
            signature: signature.to_string(),
            indices: table.indexer().size(),
            placements: table.placements(),
            counts: table.counts(),
            max_plies: table.max_plies(),
            payload_crc32: Some(crc32fast::hash(&payload)),
            block_positions: None,
            index_crc32: None,
            codec: Codec::Zstd,
            distance: table.distance(),
        };
        let header = serde_json::to_vec(&header).unwrap();
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&(header.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&header);
        bytes.extend_from_slice(&zstd::bulk::compress(&payload, 3).unwrap());
        let path = dir
            .join("english")
            .join(Table::<English>::file_name(signature));
        std::fs::write(&path, &bytes).unwrap();
        let loaded = Table::<English>::load(&path, signature).unwrap();
        assert_eq!(loaded.values(), table.values());
        match crate::disk::DiskTable::<English>::open(&path, signature, 0).unwrap() {
            crate::disk::Opened::Memory(t) => assert_eq!(t.values(), table.values()),
            crate::disk::Opened::Disk(_) => panic!("a format-1 file has no blocks"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Files in blocks of another size (2,048 positions before 2026-12-07) or packed by zstd
    /// (before LZ4, also 2026-12-07) probe the same values from disk, and read whole the same
    /// table, as the table they were written from.
    #[test]
    fn blocks_of_another_size_or_codec_still_read() {
        for (block_positions, codec) in [(2048, Codec::Zstd), (512, Codec::Zstd), (2048, CODEC)] {
            blocks_read_back(block_positions, codec);
        }
    }

    fn blocks_read_back(block_positions: usize, codec: Codec) {
        let dir = std::env::temp_dir().join(format!(
            "damas-egdb-blocks-{}-{block_positions}-{codec:?}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let signature: Signature = "w0.2-b0.1".parse().unwrap();
        let (db, _) = build::<English>(&dir, &[signature], |_, _, _| {}).unwrap();
        let table = db.table(signature).unwrap();
        let path = dir.join("old.egdb");
        save_in_blocks(table, &path, block_positions, codec).unwrap();
        assert_eq!(
            Table::<English>::load(&path, signature).unwrap().values(),
            table.values()
        );
        let opened = crate::disk::DiskTable::<English>::open(&path, signature, 0).unwrap();
        let crate::disk::Opened::Disk(disk) = opened else {
            panic!("a format-2 file is probed from disk")
        };
        assert_eq!(disk.block_bytes(), encoded_len(block_positions, false));
        let cache = crate::disk::BlockCache::new(1 << 20, disk.block_bytes());
        let mut probed = 0;
        for index in 0..table.indexer().size() {
            for turn in [damas_rules::Color::White, damas_rules::Color::Black] {
                if let Some(position) = table.indexer().decode(index, turn) {
                    assert_eq!(disk.value(&position, &cache), Some(table.value(&position)));
                    probed += 1;
                }
            }
        }
        assert!(
            probed > 2 * block_positions,
            "{probed} positions: more than one block"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
