//! Networks named on the command line: a checkpoint directory, or a stand-in evaluator
//! (`none`: the alpha-beta engine's static evaluation; `uniform`: equal priors, value 0).
//! Also `damas model init`, which writes an untrained checkpoint.

use anyhow::Context;
use damas_mcts::{Evaluator, StaticEvaluator, UniformEvaluator};
use damas_nn::{CheckpointMeta, NetEvaluator, NetworkConfig, load_network, save_checkpoint};
use damas_rules::{Rules, Variant, VariantVisitor};
use std::path::{Path, PathBuf};

/// An evaluator for variant `V` and the name it goes by in game records.
pub type NamedEvaluator<V> = (Box<dyn Evaluator<V>>, String);

/// Opens the evaluator named by `model`: `none`, `uniform`, or a checkpoint directory.
pub fn open_evaluator<V: Rules>(model: &str) -> anyhow::Result<NamedEvaluator<V>> {
    Ok(match model {
        "none" => (
            Box::new(StaticEvaluator::<V>::default()),
            "static-eval".into(),
        ),
        "uniform" => (Box::new(UniformEvaluator), "uniform".into()),
        path => {
            let device = damas_nn::cpu();
            let (network, meta) = load_network::<V>(Path::new(path), &device)
                .with_context(|| format!("cannot load model `{path}`"))?;
            let name = format!("{path} (step {})", meta.step);
            (Box::new(NetEvaluator::<V>::new(&network, &device)), name)
        }
    })
}

/// Arguments of `damas model`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// Write an untrained network (random weights) as a checkpoint directory.
    Init(InitArgs),
}

#[derive(clap::Args)]
struct InitArgs {
    /// Variant the network plays.
    #[arg(long, value_parser = crate::parse_variant)]
    variant: Variant,
    /// Residual blocks.
    #[arg(long, default_value_t = 6)]
    blocks: usize,
    /// Channels per convolution.
    #[arg(long, default_value_t = 64)]
    channels: usize,
    /// Seed of the random weights.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Checkpoint directory to write.
    #[arg(long)]
    out: PathBuf,
}

struct Init<'a>(&'a InitArgs);

impl VariantVisitor for Init<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        let args = self.0;
        let device = damas_nn::cpu();
        device.seed(args.seed);
        let config = NetworkConfig::new(damas_nn::BoardShape::of::<V>())
            .with_blocks(args.blocks)
            .with_channels(args.channels);
        let network = config.init(&device);
        save_checkpoint(
            &args.out,
            &CheckpointMeta::new::<V>(config),
            &network,
            Vec::new(),
        )?;
        println!("wrote {}", args.out.display());
        Ok(())
    }
}

/// Runs `damas model`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.what {
        What::Init(init) => init.variant.visit(Init(&init)),
    }
}
