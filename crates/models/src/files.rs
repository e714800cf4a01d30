//! Writing models: an untrained network as a checkpoint (`damas model init`), and a checkpoint's
//! network exported for other engines (`damas export`), each written atomically.

use damas_nn::export::safetensors_bytes;
use damas_nn::{
    BoardShape, CheckpointError, CheckpointMeta, Device, NetworkConfig, NetworkSize, load_network,
    read_any_meta, save_checkpoint, write_atomically,
};
use damas_onnx::OnnxError;
use damas_rules::{Rules, Variant, VariantVisitor};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Why a model file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The path names no model.
    #[error("cannot export {path}")]
    NoModel {
        /// The path given.
        path: PathBuf,
        /// Why it names none.
        #[source]
        source: Box<crate::ModelError>,
    },
    /// The checkpoint to export does not read.
    #[error("{path}: not a checkpoint (export takes a checkpoint directory or a run directory)")]
    NotACheckpoint {
        /// The checkpoint directory.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: CheckpointError,
    },
    /// The network size asked for is out of its range.
    #[error("no network of that size")]
    Size(#[from] damas_mcts::InvalidValue),
    /// The new checkpoint could not be written.
    #[error("cannot write checkpoint {path}")]
    Checkpoint {
        /// The checkpoint directory.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: CheckpointError,
    },
    /// The checkpoint names a variant this program does not know.
    #[error("{path}: unknown variant `{name}`")]
    UnknownVariant {
        /// The checkpoint.
        path: PathBuf,
        /// The name it gives.
        name: String,
    },
    /// The ONNX exporter failed.
    #[error("cannot export {path} to ONNX")]
    Onnx {
        /// The checkpoint.
        path: PathBuf,
        /// The exporter's error.
        #[source]
        source: OnnxError,
    },
    /// The safetensors writer failed.
    #[error("cannot export {path} to safetensors: {message}")]
    Safetensors {
        /// The checkpoint.
        path: PathBuf,
        /// The writer's message.
        message: String,
    },
    /// The output file could not be written.
    #[error("cannot write {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
}

/// The formats a network is exported in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// An ONNX model (opset 18, dynamic batch axis) for any ONNX runtime.
    Onnx,
    /// The weights under their module paths, for engines with their own inference code.
    Safetensors,
}

impl FromStr for ExportFormat {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "onnx" => Ok(ExportFormat::Onnx),
            "safetensors" => Ok(ExportFormat::Safetensors),
            other => Err(format!("`{other}` is not a format (onnx, safetensors)")),
        }
    }
}

/// Writes an untrained network of `size` for `variant` (weights seeded by `seed`) as the
/// checkpoint directory `out`; a size out of its range is an error, not a network.
pub fn init_checkpoint(
    variant: Variant,
    size: NetworkSize,
    seed: u64,
    out: &Path,
    device: &Device,
) -> Result<(), WriteError> {
    size.validate("")?;
    struct Init<'a>(NetworkSize, u64, &'a Path, &'a Device);
    impl VariantVisitor for Init<'_> {
        type Output = Result<(), WriteError>;
        fn visit<V: Rules>(self) -> Self::Output {
            let Init(size, seed, out, device) = self;
            device.seed(seed);
            let config = NetworkConfig::sized(BoardShape::of::<V>(), size);
            let network = config.init(device);
            save_checkpoint(out, &CheckpointMeta::new::<V>(config), &network, Vec::new()).map_err(
                |source| WriteError::Checkpoint {
                    path: out.to_path_buf(),
                    source,
                },
            )
        }
    }
    variant.visit(Init(size, seed, out, device))
}

/// What `export` wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exported {
    /// The checkpoint exported (the newest one when a run directory was given).
    pub checkpoint: PathBuf,
    /// The bytes written.
    pub bytes: usize,
}

/// Exports the network of the checkpoint `model` names (a checkpoint directory, or a run
/// directory for its newest checkpoint) as `format` into the file `out` (replaced atomically).
pub fn export(model: &Path, format: ExportFormat, out: &Path) -> Result<Exported, WriteError> {
    let checkpoint = &crate::locate(model).map_err(|source| WriteError::NoModel {
        path: model.to_path_buf(),
        source: Box::new(source),
    })?;
    struct Export<'a>(&'a Path, ExportFormat, &'a Path);
    impl VariantVisitor for Export<'_> {
        type Output = Result<usize, WriteError>;
        fn visit<V: Rules>(self) -> Self::Output {
            let Export(checkpoint, format, out) = self;
            let device = damas_nn::cpu();
            let (network, meta) = load_network::<V>(checkpoint, &device).map_err(|source| {
                WriteError::NotACheckpoint {
                    path: checkpoint.to_path_buf(),
                    source,
                }
            })?;
            let bytes = match format {
                ExportFormat::Onnx => {
                    damas_onnx::onnx_bytes(&network, &meta).map_err(|source| WriteError::Onnx {
                        path: checkpoint.to_path_buf(),
                        source,
                    })?
                }
                ExportFormat::Safetensors => {
                    safetensors_bytes(&network, &meta).map_err(|message| {
                        WriteError::Safetensors {
                            path: checkpoint.to_path_buf(),
                            message,
                        }
                    })?
                }
            };
            write_atomically(out, &bytes).map_err(|source| WriteError::Io {
                path: out.to_path_buf(),
                source,
            })?;
            Ok(bytes.len())
        }
    }
    // The variant comes from the checkpoint itself.
    let meta = read_any_meta(checkpoint).map_err(|source| WriteError::NotACheckpoint {
        path: checkpoint.to_path_buf(),
        source,
    })?;
    let variant: Variant = meta
        .variant
        .parse()
        .map_err(|_| WriteError::UnknownVariant {
            path: checkpoint.to_path_buf(),
            name: meta.variant.clone(),
        })?;
    let bytes = variant.visit(Export(checkpoint, format, out))?;
    Ok(Exported {
        checkpoint: checkpoint.clone(),
        bytes,
    })
}
