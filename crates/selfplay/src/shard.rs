//! Training shards: the samples of a batch of self-play games in one versioned, checksummed
//! file, written atomically.
//!
//! Layout: the 8 bytes `DAMASHRD`, the CRC-32 of the rest (little endian), then the
//! [`Shard`] in bincode's standard configuration (serde). A truncated or altered file fails
//! the checksum before anything is decoded.

use damas_nn::{PackedPosition, write_atomically};
use damas_rules::Rules;
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};

/// The first bytes of every shard file.
pub const MAGIC: &[u8; 8] = b"DAMASHRD";

/// Decoding claims at most 256 MiB in all: a damaged length (a string or list said to be
/// gigabytes long) is an error before anything is allocated, not an aborted process. Real
/// shards hold a few megabytes.
const DECODE_LIMIT: bincode::config::Configuration<
    bincode::config::LittleEndian,
    bincode::config::Varint,
    bincode::config::Limit<{ 256 << 20 }>,
> = bincode::config::standard().with_limit::<{ 256 << 20 }>();

/// Version of the shard layout. Version 2 added the generation of the network that played
/// and the games' plies and results, version 3 each sample's auxiliary targets; versions 1
/// and 2 are still read (their samples have no auxiliary targets).
pub const SHARD_FORMAT: u32 = 3;

/// What a shard holds and how it was made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardHeader {
    /// Version of this layout ([`SHARD_FORMAT`]).
    pub format: u32,
    /// The variant's short name.
    pub variant: String,
    /// The input and policy encoding's version ([`damas_nn::ENCODING_VERSION`]).
    pub encoding_version: u32,
    /// The player that made the games (a checkpoint path, or the stand-in evaluator's name).
    pub model: String,
    /// Games whose samples are in the shard.
    pub games: u32,
    /// The run generation of the network that played (0: the untrained network or the
    /// bootstrap evaluator); `None` outside a run and in version 1 shards.
    pub generation: Option<u32>,
    /// Plies played in those games (0 in version 1 shards).
    pub plies: u64,
    /// The games' results: White's wins, draws, Black's wins (zeros in version 1 shards).
    pub results: [u32; 3],
}

/// The header of version 1, read for old runs.
#[derive(Deserialize)]
struct HeaderV1 {
    format: u32,
    variant: String,
    encoding_version: u32,
    model: String,
    games: u32,
}

/// A sample of versions 1 and 2: no auxiliary targets.
#[derive(Deserialize)]
struct SampleV2 {
    position: PackedPosition,
    policy: Vec<(u16, f32)>,
    result: i8,
    search_value: f32,
    ply: u16,
}

impl From<SampleV2> for Sample {
    fn from(old: SampleV2) -> Sample {
        Sample {
            position: old.position,
            policy: old.policy,
            result: old.result,
            search_value: old.search_value,
            ply: old.ply,
            aux: None,
        }
    }
}

/// A version 1 shard.
#[derive(Deserialize)]
struct ShardV1 {
    header: HeaderV1,
    samples: Vec<SampleV2>,
}

/// A version 2 shard.
#[derive(Deserialize)]
struct ShardV2 {
    header: ShardHeader,
    samples: Vec<SampleV2>,
}

impl From<ShardV2> for Shard {
    fn from(old: ShardV2) -> Shard {
        Shard {
            header: old.header,
            samples: old.samples.into_iter().map(Sample::from).collect(),
        }
    }
}

impl From<ShardV1> for Shard {
    fn from(old: ShardV1) -> Shard {
        let h = old.header;
        Shard {
            header: ShardHeader {
                format: h.format,
                variant: h.variant,
                encoding_version: h.encoding_version,
                model: h.model,
                games: h.games,
                generation: None,
                plies: 0,
                results: [0; 3],
            },
            samples: old.samples.into_iter().map(Sample::from).collect(),
        }
    }
}

/// One recorded position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// The position from the side to move's view, with its draw counters.
    pub position: PackedPosition,
    /// The search's policy target: (policy index, probability), summing to 1.
    pub policy: Vec<(u16, f32)>,
    /// The game's final result for the side to move: 1 win, 0 draw, -1 loss.
    pub result: i8,
    /// The search's value of the position for the side to move.
    pub search_value: f32,
    /// Ply number in the game (0: first move).
    pub ply: u16,
    /// What the game's end says besides its result (`None` in version 1 and 2 shards).
    pub aux: Option<AuxTargets>,
}

/// Targets of the auxiliary heads, taken from the game's last position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuxTargets {
    /// Plies from this position to the game's end.
    pub plies_left: u16,
    /// Material at the end (men 1, kings 3), the side to move's minus the opponent's.
    pub material: i8,
}

/// A shard: header and samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shard {
    /// What the shard holds.
    pub header: ShardHeader,
    /// The samples, in game order.
    pub samples: Vec<Sample>,
}

/// Why a shard could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// The file does not start like a shard.
    #[error("{path}: not a shard file (no DAMASHRD header)")]
    NotAShard {
        /// The file.
        path: PathBuf,
    },
    /// The checksum does not match: the file is truncated or damaged.
    #[error("{path}: shard is truncated or corrupted (checksum mismatch)")]
    Corrupt {
        /// The file.
        path: PathBuf,
    },
    /// The contents do not decode.
    #[error("{path}: shard does not decode: {message}")]
    Decode {
        /// The file.
        path: PathBuf,
        /// The decoder's message.
        message: String,
    },
    /// The shard has another layout or encoding version than this program reads.
    #[error("{path}: shard has {what} version {found}, this program reads version {expected}")]
    WrongVersion {
        /// The file.
        path: PathBuf,
        /// Which version.
        what: &'static str,
        /// The file's version.
        found: u32,
        /// The version this program reads.
        expected: u32,
    },
    /// The shard is for another variant.
    #[error("{path}: shard is for variant `{found}`, not `{expected}`")]
    WrongVariant {
        /// The file.
        path: PathBuf,
        /// Its variant.
        found: String,
        /// The variant asked for.
        expected: String,
    },
}

impl Shard {
    /// The shard's bytes as written to disk.
    pub fn to_bytes(&self) -> Vec<u8> {
        let body = bincode::serde::encode_to_vec(self, bincode::config::standard())
            .expect("a shard always encodes");
        let mut bytes = Vec::with_capacity(body.len() + 12);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        bytes.extend_from_slice(&body);
        bytes
    }

    /// Decodes a shard read from `path` (for messages), checking magic, checksum and versions.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Shard, ShardError> {
        let path = path.to_path_buf();
        if bytes.len() < 12 || &bytes[..8] != MAGIC {
            return Err(ShardError::NotAShard { path });
        }
        let crc = u32::from_le_bytes(bytes[8..12].try_into().expect("four bytes"));
        let body = &bytes[12..];
        if crc32fast::hash(body) != crc {
            return Err(ShardError::Corrupt { path });
        }
        let decode_error = |e: bincode::error::DecodeError| ShardError::Decode {
            path: path.clone(),
            message: e.to_string(),
        };
        // The format number comes first in every version.
        let (format, _): (u32, usize) =
            bincode::serde::decode_from_slice(body, DECODE_LIMIT).map_err(decode_error)?;
        // A newer program's layout is a version to report, not damage to guess at.
        if format > SHARD_FORMAT {
            return Err(ShardError::WrongVersion {
                path,
                what: "shard format",
                found: format,
                expected: SHARD_FORMAT,
            });
        }
        let (shard, used): (Shard, usize) = match format {
            1 => {
                let (old, used): (ShardV1, usize) =
                    bincode::serde::decode_from_slice(body, DECODE_LIMIT).map_err(decode_error)?;
                (old.into(), used)
            }
            2 => {
                let (old, used): (ShardV2, usize) =
                    bincode::serde::decode_from_slice(body, DECODE_LIMIT).map_err(decode_error)?;
                (old.into(), used)
            }
            _ => bincode::serde::decode_from_slice(body, DECODE_LIMIT).map_err(decode_error)?,
        };
        if used != body.len() {
            return Err(ShardError::Decode {
                path,
                message: format!("{} bytes left over", body.len() - used),
            });
        }
        let versions = [
            (
                "shard format",
                shard.header.format,
                if (1..SHARD_FORMAT).contains(&shard.header.format) {
                    shard.header.format
                } else {
                    SHARD_FORMAT
                },
            ),
            (
                "encoding",
                shard.header.encoding_version,
                damas_nn::ENCODING_VERSION,
            ),
        ];
        for (what, found, expected) in versions {
            if found != expected {
                return Err(ShardError::WrongVersion {
                    path,
                    what,
                    found,
                    expected,
                });
            }
        }
        Ok(shard)
    }

    /// Reads the shard at `path`.
    pub fn read(path: &Path) -> Result<Shard, ShardError> {
        let bytes = fs::read(path).map_err(|source| ShardError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Shard::from_bytes(&bytes, path)
    }

    /// Reads the shard at `path` and checks it is for `V`.
    pub fn read_for<V: Rules>(path: &Path) -> Result<Shard, ShardError> {
        let shard = Shard::read(path)?;
        if shard.header.variant != V::NAME {
            return Err(ShardError::WrongVariant {
                path: path.to_path_buf(),
                found: shard.header.variant,
                expected: V::NAME.to_string(),
            });
        }
        Ok(shard)
    }

    /// Writes the shard to `path` atomically (a temporary file renamed into place).
    pub fn write(&self, path: &Path) -> Result<(), ShardError> {
        write_atomically(path, &self.to_bytes()).map_err(|source| ShardError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// The shard files in `dir` (`*.shard`), sorted by name (oldest first, as they are numbered).
pub fn list_shards(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "shard"))
        .collect();
    paths.sort();
    Ok(paths)
}
