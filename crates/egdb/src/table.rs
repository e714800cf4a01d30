//! One solved table (a signature, both sides to move) and its file.
//!
//! File layout, format 1: the 8 bytes `DAMASEGD`; the header's length (u32, little endian) and
//! the header as JSON ([`TableHeader`]: format, variant, rule-set id, signature, sizes, counts,
//! CRC-32 of the payload); then one zstd frame holding the payload: the win/draw/loss of every
//! index at 2 bits each (four to a byte, White to move first), then each index's distance in
//! plies (one byte each where all fit, else two, little endian). A damaged, truncated or
//! foreign file is refused with its path and what is wrong.

use crate::index::Indexer;
use crate::signature::Signature;
use crate::value::{Probe, Value, Wdl};
use damas_rules::{Color, Position, Rules};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The first bytes of every table file.
pub const MAGIC: &[u8; 8] = b"DAMASEGD";
/// Version of the table layout.
pub const TABLE_FORMAT: u32 = 1;
/// zstd's level for tables: small files, still fast to write.
const ZSTD_LEVEL: i32 = 9;

/// The rule-set id written into tables: a CRC-32 of the variant's rules as data, so a table
/// solved under other rules (a changed rule set, another variant) is refused.
pub fn rules_id<V: Rules>() -> String {
    format!(
        "{:08x}",
        crc32fast::hash(format!("{:?}", V::RULES).as_bytes())
    )
}

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

/// What a table file says about itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableHeader {
    /// Layout version ([`TABLE_FORMAT`]).
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
    /// CRC-32 of the uncompressed payload.
    pub payload_crc32: u32,
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

/// A solved table: every position of one signature, both sides to move.
#[derive(Clone, Debug)]
pub struct Table<V: Rules> {
    indexer: Indexer<V>,
    values: Vec<u16>,
    counts: Counts,
    placements: u64,
    max_plies: u32,
}

impl<V: Rules> Table<V> {
    /// A table from its solved values (White to move first, then Black).
    pub fn new(indexer: Indexer<V>, values: Vec<u16>) -> Self {
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

    /// Longest win or loss in plies.
    pub fn max_plies(&self) -> u32 {
        self.max_plies
    }

    /// Where `position` (of this signature) sits in [`Self::values`].
    pub fn slot(&self, position: &Position<V::Geometry>) -> usize {
        let turn = (position.turn() == Color::Black) as u64;
        (turn * self.indexer.size() + self.indexer.index(position)) as usize
    }

    /// The value of `position`, which must have this signature.
    #[inline]
    pub fn value(&self, position: &Position<V::Geometry>) -> Value {
        Value(self.values[self.slot(position)])
    }

    /// The value of `position` as a probe answer.
    pub fn probe(&self, position: &Position<V::Geometry>) -> Probe {
        let v = self.value(position);
        Probe {
            wdl: v.wdl().unwrap_or(Wdl::Draw),
            plies: v.plies(),
        }
    }

    /// Every index's value, White to move first.
    pub fn values(&self) -> &[u16] {
        &self.values
    }

    /// The file name of this table in a variant's directory.
    pub fn file_name(signature: Signature) -> String {
        format!("{signature}.egdb")
    }

    /// The header this table is written with.
    fn header(&self, payload_crc32: u32) -> TableHeader {
        TableHeader {
            format: TABLE_FORMAT,
            variant: V::NAME.to_string(),
            rules_id: rules_id::<V>(),
            signature: self.signature().to_string(),
            indices: self.indexer.size(),
            placements: self.placements,
            counts: self.counts,
            max_plies: self.max_plies,
            payload_crc32,
        }
    }

    /// The payload: packed win/draw/loss, then distances.
    fn payload(&self) -> Vec<u8> {
        let n = self.values.len();
        let wide = self.max_plies > u8::MAX as u32;
        let mut out = Vec::with_capacity(n.div_ceil(4) + n * (1 + wide as usize));
        for chunk in self.values.chunks(4) {
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
        for &v in &self.values {
            let plies = Value(v).plies().unwrap_or(0) as u16;
            if wide {
                out.extend_from_slice(&plies.to_le_bytes());
            } else {
                out.push(plies as u8);
            }
        }
        out
    }

    /// Writes the table to `path` atomically.
    pub fn save(&self, path: &Path) -> Result<u64, TableError> {
        let io = |source| TableError::Io {
            path: path.to_path_buf(),
            source,
        };
        let payload = self.payload();
        let header = serde_json::to_vec(&self.header(crc32fast::hash(&payload)))
            .expect("a header serialises");
        let compressed = zstd::bulk::compress(&payload, ZSTD_LEVEL).map_err(io)?;
        let mut file = Vec::with_capacity(12 + header.len() + compressed.len());
        file.extend_from_slice(MAGIC);
        file.extend_from_slice(&(header.len() as u32).to_le_bytes());
        file.extend_from_slice(&header);
        file.extend_from_slice(&compressed);
        damas_store::write_atomically(path, &file).map_err(io)?;
        Ok(file.len() as u64)
    }

    /// Reads the table of `signature` from `path`, refusing a damaged or foreign file.
    pub fn load(path: &Path, signature: Signature) -> Result<Self, TableError> {
        let bytes = std::fs::read(path).map_err(|source| TableError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let invalid = |reason: String| TableError::Invalid {
            path: path.to_path_buf(),
            reason,
        };
        let header = read_header(&bytes).map_err(invalid)?;
        let (header, body) = header;
        let expect = |what: &str, found: &str, wanted: &str| {
            if found == wanted {
                Ok(())
            } else {
                Err(invalid(format!(
                    "{what} is {found}, expected {wanted} (a table of another {what})"
                )))
            }
        };
        expect("variant", &header.variant, V::NAME)?;
        expect("rule set", &header.rules_id, &rules_id::<V>())?;
        expect("signature", &header.signature, &signature.to_string())?;
        let indexer = Indexer::<V>::new(signature);
        if header.indices != indexer.size() {
            return Err(invalid(format!(
                "{} indices per side, the index of {signature} has {}",
                header.indices,
                indexer.size()
            )));
        }
        let n = 2 * indexer.size() as usize;
        let wide = header.max_plies > u8::MAX as u32;
        let expected_len = n.div_ceil(4) + n * (1 + wide as usize);
        let payload = zstd::bulk::decompress(body, expected_len)
            .map_err(|e| invalid(format!("payload does not decompress: {e}")))?;
        if payload.len() != expected_len {
            return Err(invalid(format!(
                "payload is {} bytes, expected {expected_len}",
                payload.len()
            )));
        }
        if crc32fast::hash(&payload) != header.payload_crc32 {
            return Err(invalid("payload checksum does not match".into()));
        }
        let (wdl, plies) = payload.split_at(n.div_ceil(4));
        let mut values = Vec::with_capacity(n);
        for i in 0..n {
            let code = (wdl[i / 4] >> (2 * (i % 4))) & 3;
            let d = if wide {
                u16::from_le_bytes([plies[2 * i], plies[2 * i + 1]]) as u32
            } else {
                plies[i] as u32
            };
            if d > Value::MAX_PLIES {
                return Err(invalid(format!(
                    "distance {d} at index {i} is out of range"
                )));
            }
            values.push(match code {
                0 => Value::DRAW,
                1 => Value::win(d),
                2 => Value::loss(d),
                _ => Value::INVALID,
            });
        }
        let table = Table::new(indexer, values.into_iter().map(|v| v.0).collect());
        if table.counts != header.counts || table.max_plies != header.max_plies {
            return Err(invalid("counts do not match the header".into()));
        }
        Ok(table)
    }
}

/// The header and the compressed body of a table file.
pub fn read_header(bytes: &[u8]) -> Result<(TableHeader, &[u8]), String> {
    let rest = bytes
        .strip_prefix(MAGIC.as_slice())
        .ok_or("not a table file (no DAMASEGD mark)")?;
    if rest.len() < 4 {
        return Err("truncated header".into());
    }
    let len = u32::from_le_bytes(rest[..4].try_into().expect("4 bytes")) as usize;
    let rest = &rest[4..];
    if rest.len() < len {
        return Err("truncated header".into());
    }
    let header: TableHeader =
        serde_json::from_slice(&rest[..len]).map_err(|e| format!("bad header: {e}"))?;
    if header.format != TABLE_FORMAT {
        return Err(format!(
            "table format {} (this build reads format {TABLE_FORMAT})",
            header.format
        ));
    }
    Ok((header, &rest[len..]))
}
