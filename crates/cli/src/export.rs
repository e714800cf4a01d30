//! `damas export --model DIR --format onnx|safetensors --out FILE`: a checkpoint's network
//! for other engines, with the encoding contract (docs/model-format.md) in the file's metadata.

use crate::out::outln;
use damas_models::files::{ExportFormat, export};
use std::path::PathBuf;

/// The file formats `damas export` writes.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Format {
    /// An ONNX model (opset 18, dynamic batch axis) for any ONNX runtime.
    Onnx,
    /// The weights under their module paths, for engines with their own inference code.
    Safetensors,
}

/// Arguments of `damas export`.
#[derive(clap::Args)]
pub struct Args {
    /// The checkpoint directory, or a run directory for its newest checkpoint (`--model`, as
    /// every other command names it; `--checkpoint` is the older name).
    #[arg(long, alias = "checkpoint")]
    model: PathBuf,
    /// The file format.
    #[arg(long, value_enum, default_value = "onnx")]
    format: Format,
    /// The file to write (replaced atomically if it exists).
    #[arg(long)]
    out: PathBuf,
}

/// Runs `damas export`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let format = match args.format {
        Format::Onnx => ExportFormat::Onnx,
        Format::Safetensors => ExportFormat::Safetensors,
    };
    let exported = export(&args.model, format, &args.out)?;
    outln!(
        "wrote {} ({} bytes) from {}",
        args.out.display(),
        exported.bytes,
        exported.checkpoint.display()
    );
    Ok(())
}
