//! Checkpoints on disk: a directory holding `meta.json` (what the network is for and how it was
//! made), `model.bpk` (burn's own weight format) and, for training runs, `optimizer.bpk`.
//! A checkpoint is written into a hidden temporary directory and renamed into place, so a
//! checkpoint directory that exists is always complete.

use crate::encoding::{BoardShape, ENCODING_VERSION};
use crate::network::{Network, NetworkConfig};
use burn::prelude::*;
use burn::store::ModuleRecord;
use burn::tensor::Bytes;
use damas_mcts::SearchConfig;
use damas_rules::Rules;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Version of the checkpoint layout.
pub const CHECKPOINT_FORMAT: u32 = 1;

/// The contents of `meta.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointMeta {
    /// Version of this layout ([`CHECKPOINT_FORMAT`]).
    pub format: u32,
    /// The variant's short name.
    pub variant: String,
    /// The input and policy encoding's version.
    pub encoding_version: u32,
    /// The network's shape.
    pub network: NetworkConfig,
    /// Training steps taken so far.
    pub step: u64,
    /// Self-play generation that produced it (0: untrained).
    pub generation: u32,
    /// Whatever the trainer measured (losses, scores).
    #[serde(default)]
    pub metrics: BTreeMap<String, f64>,
    /// The search the network was evaluated with during training: how it plays wherever it is
    /// used without other instructions (absent in untrained networks and older checkpoints).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchConfig>,
}

impl CheckpointMeta {
    /// The metadata of a fresh network for variant `V`.
    pub fn new<V: Rules>(network: NetworkConfig) -> Self {
        CheckpointMeta {
            format: CHECKPOINT_FORMAT,
            variant: V::NAME.to_string(),
            encoding_version: ENCODING_VERSION,
            network,
            step: 0,
            generation: 0,
            metrics: BTreeMap::new(),
            search: None,
        }
    }
}

/// Why a checkpoint could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// A file could not be read or written.
    #[error("{path}: {reason}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason (in the message, not a separate source, so it is said once).
        reason: std::io::Error,
    },
    /// `meta.json` is not valid.
    #[error("{path}: not a checkpoint's meta.json: {message}")]
    Meta {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The checkpoint is for another variant.
    #[error("{path}: checkpoint is for variant `{found}`, not `{expected}`")]
    WrongVariant {
        /// The checkpoint.
        path: PathBuf,
        /// Its variant.
        found: String,
        /// The variant asked for.
        expected: String,
    },
    /// The checkpoint uses another input or policy encoding, or another layout.
    #[error(
        "{path}: checkpoint uses {what} version {found}, this program reads version {expected}"
    )]
    WrongVersion {
        /// The checkpoint.
        path: PathBuf,
        /// Which version.
        what: &'static str,
        /// Its version.
        found: u32,
        /// The version this program reads.
        expected: u32,
    },
    /// The weights file does not fit the network described in `meta.json`.
    #[error("{path}: weights do not load: {message}")]
    Weights {
        /// The file.
        path: PathBuf,
        /// What burn reported.
        message: String,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> CheckpointError + '_ {
    move |reason| CheckpointError::Io {
        path: path.to_path_buf(),
        reason,
    }
}

/// Reads and checks `meta.json` of the checkpoint in `dir` for variant `V`.
pub fn read_meta<V: Rules>(dir: &Path) -> Result<CheckpointMeta, CheckpointError> {
    let meta = read_any_meta(dir)?;
    if meta.variant != V::NAME {
        return Err(CheckpointError::WrongVariant {
            path: dir.to_path_buf(),
            found: meta.variant,
            expected: V::NAME.to_string(),
        });
    }
    if meta.network.board != BoardShape::of::<V>() {
        return Err(CheckpointError::Meta {
            path: dir.join("meta.json"),
            message: "the network's board does not match the variant".into(),
        });
    }
    Ok(meta)
}

/// Reads `meta.json` of the checkpoint in `dir`, whatever its variant, and checks its versions.
pub fn read_any_meta(dir: &Path) -> Result<CheckpointMeta, CheckpointError> {
    let path = dir.join("meta.json");
    let text = fs::read_to_string(&path).map_err(io_error(&path))?;
    let meta: CheckpointMeta = serde_json::from_str(&text).map_err(|e| CheckpointError::Meta {
        path: path.clone(),
        message: e.to_string(),
    })?;
    let versions = [
        ("checkpoint format", meta.format, CHECKPOINT_FORMAT),
        ("encoding", meta.encoding_version, ENCODING_VERSION),
    ];
    for (what, found, expected) in versions {
        if found != expected {
            return Err(CheckpointError::WrongVersion {
                path: dir.to_path_buf(),
                what,
                found,
                expected,
            });
        }
    }
    // A size out of range would make burn panic when the network is built.
    meta.network
        .size()
        .validate("network")
        .map_err(|e| CheckpointError::Meta {
            path,
            message: e.to_string(),
        })?;
    Ok(meta)
}

/// Loads the network of the checkpoint in `dir` for variant `V` onto `device`.
pub fn load_network<V: Rules>(
    dir: &Path,
    device: &Device,
) -> Result<(Network, CheckpointMeta), CheckpointError> {
    let meta = read_meta::<V>(dir)?;
    let path = dir.join("model.bpk");
    let bytes = fs::read(&path).map_err(io_error(&path))?;
    let weights = |message: String| CheckpointError::Weights {
        path: path.clone(),
        message,
    };
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes))
        .map_err(|e| weights(format!("{e:?}")))?;
    let network = meta
        .network
        .init(device)
        .try_load_record(record)
        .map_err(|e| weights(format!("{e:?}")))?;
    Ok((network, meta))
}

/// The checkpoints in `dir` (a run's `checkpoints/`): the numbers of the complete ones (those
/// with a `meta.json`), in order. A missing directory holds none.
pub fn list_checkpoints(dir: &Path) -> Result<Vec<u32>, CheckpointError> {
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let mut numbers: Vec<u32> = fs::read_dir(dir)
        .map_err(io_error(dir))?
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.path().join("meta.json").exists())
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .collect();
    numbers.sort_unstable();
    Ok(numbers)
}

/// The directory of checkpoint `number` in a run's `checkpoints/` directory.
pub fn checkpoint_dir(dir: &Path, number: u32) -> PathBuf {
    dir.join(format!("{number:06}"))
}

pub use damas_store::write_atomically;

/// Files of a checkpoint besides the network: name and contents.
pub type ExtraFiles = Vec<(&'static str, Vec<u8>)>;

/// Writes a checkpoint directory `dir` atomically: `meta.json`, `model.bpk` and `extra` files
/// go into a temporary sibling directory that is then renamed to `dir`. An existing `dir` is
/// replaced only once the new one is complete.
pub fn save_checkpoint(
    dir: &Path,
    meta: &CheckpointMeta,
    network: &Network,
    extra: ExtraFiles,
) -> Result<(), CheckpointError> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "checkpoint".into());
    let parent = dir.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(io_error(parent))?;
    let temp = parent.join(format!(".{name}.tmp"));
    if temp.exists() {
        fs::remove_dir_all(&temp).map_err(io_error(&temp))?;
    }
    fs::create_dir(&temp).map_err(io_error(&temp))?;
    // `valid()` first: batch norm's running statistics keep their latest update pending until
    // a sync, and a record taken straight from a training network missed it (the checkpoint
    // answered up to 0.07 away from the network that was trained).
    let weights =
        network
            .valid()
            .into_record()
            .into_bytes()
            .map_err(|e| CheckpointError::Weights {
                path: dir.join("model.bpk"),
                message: format!("{e:?}"),
            })?;
    let meta_json = serde_json::to_vec_pretty(meta).expect("metadata serializes");
    let files = [("model.bpk", weights.to_vec()), ("meta.json", meta_json)]
        .into_iter()
        .chain(extra);
    for (file, contents) in files {
        let path = temp.join(file);
        fs::write(&path, contents).map_err(io_error(&path))?;
        fs::File::open(&path)
            .and_then(|f| f.sync_all())
            .map_err(io_error(&path))?;
    }
    if dir.exists() {
        let old = parent.join(format!(".{name}.old"));
        fs::rename(dir, &old).map_err(io_error(dir))?;
        fs::rename(&temp, dir).map_err(io_error(dir))?;
        fs::remove_dir_all(&old).map_err(io_error(&old))?;
    } else {
        fs::rename(&temp, dir).map_err(io_error(dir))?;
    }
    Ok(())
}
