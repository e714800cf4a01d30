//! Why a run stops with an error.

use damas_models::ModelError;
use damas_nn::{CheckpointError, DeviceError};
use damas_selfplay::{ConfigError, ShardError};
use damas_store::StoreError;
use std::path::{Path, PathBuf};

/// Why a run stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A file of the run could not be written.
    #[error("cannot write {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// A checkpoint could not be read or written.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// A checkpoint's network could not be opened for play.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A shard could not be read or written.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The self-play settings do not work (an openings file that does not read).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The config's device cannot be used.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The run's store could not be read or written.
    #[error("run store")]
    Store(#[from] StoreError),
    /// Another learner holds the run, or took it over.
    #[error(transparent)]
    Lease(#[from] super::lease::LeaseError),
    /// The run was started with a config that differs from this one in its recipe.
    #[error(
        "{dir} was started with another config; this one changes {}: a run keeps the config \
         it started with (give the new config another `name` for a new run in runs/<name>/, \
         or pass --config-changed=accept to go on with the new values)",
        changes.join(", ")
    )]
    ConfigChanged {
        /// The run directory.
        dir: PathBuf,
        /// Each changed key with its old and new value.
        changes: Vec<String>,
    },
    /// The run directory holds a different run.
    #[error(
        "{dir} holds a run of {found_variant} with a {found_blocks}x{found_channels} network; \
         this config asks for {variant} with {blocks}x{channels} (use another name)"
    )]
    Mismatch {
        /// The run directory.
        dir: PathBuf,
        /// The variant of the run it holds.
        found_variant: String,
        /// Its network's blocks.
        found_blocks: usize,
        /// Its network's channels.
        found_channels: usize,
        /// The variant asked for.
        variant: String,
        /// The network's blocks asked for.
        blocks: usize,
        /// The network's channels asked for.
        channels: usize,
    },
    /// Workers keep uploading shards of another version than this learner reads.
    #[error(
        "{count} worker shards were of another version than this learner reads; run the learner \
         and its workers from one release (the shards are kept under rejected/ in the store)"
    )]
    VersionSkew {
        /// How many such shards this generation met.
        count: u32,
        /// The last one's error.
        #[source]
        source: ShardError,
    },
    /// This worker writes shards or encodes positions in another version than the run's
    /// learner reads (`versions.json` in the store).
    #[error(
        "the run's learner reads shard format {run_format} and encoding {run_encoding}; this \
         worker writes format {format} and encoding {encoding}: run workers from the learner's \
         release"
    )]
    WorkerVersion {
        /// The learner's shard format.
        run_format: u32,
        /// The learner's encoding version.
        run_encoding: u32,
        /// This worker's shard format.
        format: u32,
        /// This worker's encoding version.
        encoding: u32,
    },
    /// The local directory of a run on an object store is a copy of something else: another
    /// store's run, or a local run of the same name.
    #[error(
        "{dir} is {found}, not a copy of {location}; move it away or give --runs another directory"
    )]
    ForeignCopy {
        /// The local directory.
        dir: PathBuf,
        /// What it holds.
        found: String,
        /// The store this run lives in.
        location: String,
    },
}

impl RunError {
    /// Whether starting again cannot help: the config, the device, the versions, the run's
    /// lease or its local copy say no, and only a person can change that. Store and file
    /// errors may pass (a network fault, a full disk) and are worth a retry.
    pub fn is_permanent(&self) -> bool {
        match self {
            RunError::Io { .. } | RunError::Store(_) | RunError::Shard(_) => false,
            RunError::Lease(error) => !matches!(error, super::lease::LeaseError::Store(_)),
            RunError::Checkpoint(_)
            | RunError::Model(_)
            | RunError::Config(_)
            | RunError::Device(_)
            | RunError::ConfigChanged { .. }
            | RunError::Mismatch { .. }
            | RunError::VersionSkew { .. }
            | RunError::WorkerVersion { .. }
            | RunError::ForeignCopy { .. } => true,
        }
    }
}

/// The system's error for `path`, as a [`RunError`].
pub(crate) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.to_path_buf(),
        source,
    }
}
