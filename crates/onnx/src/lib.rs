//! ONNX for Damas Zero networks: [`export`] writes a network as an ONNX model with the encoding
//! contract in its metadata; [`runtime`] reads such a file with tract (an independent, pure-Rust
//! ONNX runtime), checks it is for the variant at hand, and evaluates positions for the search.

pub mod export;
pub mod runtime;

pub use export::onnx_bytes;
pub use runtime::{ModelInfo, OnnxEvaluator, OnnxModel};

use std::path::PathBuf;

/// Why an ONNX model could not be written or used.
#[derive(Debug, thiserror::Error)]
pub enum OnnxError {
    /// Tracing or serialising the network failed.
    #[error("ONNX export failed: {0}")]
    Export(String),
    /// The file could not be read.
    #[error("{path}: {reason}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason (in the message, not a separate source, so it is said once).
        reason: std::io::Error,
    },
    /// The file is not an ONNX model, or not one of ours.
    #[error("{path}: {message}")]
    NotAModel {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The model is for another variant.
    #[error("{path}: model is for variant `{found}`, not `{expected}`")]
    WrongVariant {
        /// The file.
        path: PathBuf,
        /// Its variant.
        found: String,
        /// The variant asked for.
        expected: String,
    },
    /// The model uses another version of the input and policy encoding.
    #[error("{path}: model uses encoding version {found}, this build reads version {expected}")]
    WrongEncoding {
        /// The file.
        path: PathBuf,
        /// Its encoding version.
        found: String,
        /// The version this build uses.
        expected: u32,
    },
    /// The runtime could not run the model.
    #[error("{path}: cannot run the model: {message}")]
    Runtime {
        /// The file.
        path: PathBuf,
        /// The runtime's reason.
        message: String,
    },
}
