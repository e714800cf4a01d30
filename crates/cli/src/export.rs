//! `damas export --checkpoint DIR --format onnx|safetensors --out FILE`: a checkpoint's network
//! for other engines, with the encoding contract (docs/model-format.md) in the file's metadata.

use anyhow::Context;
use damas_nn::export::safetensors_bytes;
use damas_rules::{Rules, VariantVisitor};
use damas_selfplay::shard::write_atomically;
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
    /// The checkpoint directory.
    #[arg(long)]
    checkpoint: PathBuf,
    /// The file format.
    #[arg(long, value_enum, default_value = "onnx")]
    format: Format,
    /// The file to write (replaced atomically if it exists).
    #[arg(long)]
    out: PathBuf,
}

struct Export<'a>(&'a Args);

impl VariantVisitor for Export<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        let args = self.0;
        let device = damas_nn::cpu();
        let (network, meta) = damas_nn::load_network::<V>(&args.checkpoint, &device)
            .with_context(|| format!("cannot export {}", args.checkpoint.display()))?;
        let bytes = match args.format {
            Format::Onnx => damas_onnx::onnx_bytes(&network, &meta)?,
            Format::Safetensors => {
                safetensors_bytes(&network, &meta).map_err(anyhow::Error::msg)?
            }
        };
        write_atomically(&args.out, &bytes)
            .with_context(|| format!("cannot write {}", args.out.display()))?;
        println!("wrote {} ({} bytes)", args.out.display(), bytes.len());
        Ok(())
    }
}

/// Runs `damas export`.
pub fn run(args: Args) -> anyhow::Result<()> {
    // The variant comes from the checkpoint itself.
    let meta = damas_nn::read_any_meta(&args.checkpoint)
        .with_context(|| format!("{}: not a checkpoint", args.checkpoint.display()))?;
    let variant: damas_rules::Variant = meta.variant.parse().map_err(anyhow::Error::msg)?;
    variant.visit(Export(&args))
}
