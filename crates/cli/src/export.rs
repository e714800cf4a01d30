//! `damas export --checkpoint DIR --format safetensors --out FILE`: a checkpoint's network for
//! other engines, with the encoding contract (docs/model-format.md) in the file's metadata.

use anyhow::{Context, bail};
use damas_nn::checkpoint::CheckpointMeta;
use damas_nn::export::safetensors_bytes;
use damas_rules::{Rules, Variant, VariantVisitor};
use damas_selfplay::shard::write_atomically;
use std::path::PathBuf;

/// Arguments of `damas export`.
#[derive(clap::Args)]
pub struct Args {
    /// The checkpoint directory.
    #[arg(long)]
    checkpoint: PathBuf,
    /// `safetensors` (ONNX is not written yet).
    #[arg(long, default_value = "safetensors")]
    format: String,
    /// The file to write.
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
        let bytes = safetensors_bytes(&network, &meta).map_err(anyhow::Error::msg)?;
        write_atomically(&args.out, &bytes)
            .with_context(|| format!("cannot write {}", args.out.display()))?;
        println!("wrote {} ({} bytes)", args.out.display(), bytes.len());
        Ok(())
    }
}

/// Runs `damas export`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.format.as_str() {
        "safetensors" => {}
        "onnx" => bail!("ONNX export is not implemented yet; use --format safetensors"),
        other => bail!("unknown format `{other}` (safetensors)"),
    }
    // The variant comes from the checkpoint itself.
    let path = args.checkpoint.join("meta.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("{}: not a checkpoint", args.checkpoint.display()))?;
    let meta: CheckpointMeta = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a checkpoint's meta.json", path.display()))?;
    let variant: Variant = meta.variant.parse().map_err(anyhow::Error::msg)?;
    variant.visit(Export(&args))
}
