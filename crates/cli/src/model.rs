//! Networks named on the command line: a checkpoint directory, an exported ONNX file, or a
//! stand-in evaluator (`none`: the alpha-beta engine's static evaluation; `uniform`: equal
//! priors, value 0). Also `damas model init`, which writes an untrained checkpoint, and
//! `damas model eval`, which shows what a model makes of a position.

use anyhow::Context;
use damas_mcts::{Evaluator, StaticEvaluator, UniformEvaluator, softmax};
use damas_nn::checkpoint::read_any_meta;
use damas_nn::encoding::{encode, move_priors, policy_index};
use damas_nn::{
    BoardShape, CheckpointMeta, NetEvaluator, NetworkConfig, load_network, save_checkpoint,
};
use damas_onnx::ModelInfo;
use damas_rules::notation::pdn;
use damas_rules::{Game, Rules, Variant, VariantVisitor, parse_fen};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An evaluator for variant `V` and the name it goes by in game records.
pub type NamedEvaluator<V> = (Box<dyn Evaluator<V>>, String);

/// Opens the evaluator named by `model`: `none`, `uniform`, a checkpoint directory or an
/// exported ONNX file.
pub fn open_evaluator<V: Rules>(model: &str) -> anyhow::Result<NamedEvaluator<V>> {
    Ok(match model {
        "none" => (
            Box::new(StaticEvaluator::<V>::default()),
            "static-eval".into(),
        ),
        "uniform" => (Box::new(UniformEvaluator), "uniform".into()),
        path => match Model::<V>::open(Path::new(path))? {
            Model::Checkpoint(evaluator, step) => (evaluator, format!("{path} (step {step})")),
            Model::Onnx(evaluator) => {
                let step = evaluator.model().info().metadata.get("step").cloned();
                let step = step.unwrap_or_else(|| "?".into());
                (Box::new(evaluator), format!("{path} (onnx, step {step})"))
            }
        },
    })
}

/// A trained model on disk, ready to evaluate positions of variant `V`.
enum Model<V: Rules> {
    /// A checkpoint directory run by burn, with its training step.
    Checkpoint(Box<NetEvaluator<V>>, u64),
    /// An exported ONNX file run by tract.
    Onnx(damas_onnx::OnnxEvaluator<V>),
}

impl<V: Rules> Model<V> {
    /// Opens a checkpoint directory, or else an ONNX file.
    fn open(path: &Path) -> anyhow::Result<Self> {
        let context = || format!("cannot load model `{}`", path.display());
        if path.is_dir() {
            let device = damas_nn::cpu();
            let (network, meta) = load_network::<V>(path, &device).with_context(context)?;
            Ok(Model::Checkpoint(
                Box::new(NetEvaluator::new(&network, &device)),
                meta.step,
            ))
        } else {
            let evaluator = damas_onnx::OnnxEvaluator::open(path).with_context(context)?;
            Ok(Model::Onnx(evaluator))
        }
    }

    /// Policy logits and win/draw/loss probabilities for one encoded position.
    fn outputs(&self, input: Vec<f32>) -> anyhow::Result<(Vec<f32>, Vec<f32>)> {
        Ok(match self {
            Model::Checkpoint(evaluator, _) => evaluator.run(input, 1),
            Model::Onnx(evaluator) => {
                let (policy, value) = evaluator.model().run(&input, 1)?;
                (policy, softmax(&value))
            }
        })
    }

    /// The model as a shareable evaluator.
    fn into_evaluator(self) -> Arc<dyn Evaluator<V>> {
        match self {
            Model::Checkpoint(evaluator, _) => Arc::new(*evaluator),
            Model::Onnx(evaluator) => Arc::new(evaluator),
        }
    }
}

/// The variant a model was made for: from a checkpoint's `meta.json` or an ONNX file's metadata.
pub fn model_variant(path: &Path) -> anyhow::Result<Variant> {
    let name = if path.is_dir() {
        read_any_meta(path)?.variant
    } else {
        ModelInfo::read(path)?.variant
    };
    name.parse::<Variant>()
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// Opens the model at `path` (checkpoint directory or ONNX file) as an evaluator for `V`.
pub fn open_model<V: Rules>(path: &Path) -> anyhow::Result<Arc<dyn Evaluator<V>>> {
    Ok(Model::<V>::open(path)?.into_evaluator())
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
    /// Show a model's value and move probabilities for a position (checkpoint or ONNX file).
    Eval(EvalArgs),
}

#[derive(clap::Args)]
struct EvalArgs {
    /// Checkpoint directory or exported ONNX file; its variant is the model's own.
    #[arg(long)]
    model: PathBuf,
    /// Position in PDN FEN; the variant's start if omitted.
    #[arg(long)]
    fen: Option<String>,
    /// Play this many random plies from the position first (with --seed), to get varied
    /// positions for checks.
    #[arg(long, default_value_t = 0)]
    random_plies: u32,
    /// Seed of the random plies.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How many moves to list, most probable first (0: all).
    #[arg(long, default_value_t = 0)]
    top: usize,
    /// Also print the input tensor, plane by plane.
    #[arg(long)]
    input: bool,
    /// Print everything as one JSON object instead: the input tensor, all policy logits, the
    /// win/draw/loss probabilities and the legal moves with their indices and probabilities.
    #[arg(long)]
    json: bool,
}

struct Eval<'a>(&'a EvalArgs);

impl VariantVisitor for Eval<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        let args = self.0;
        let model = Model::<V>::open(&args.model)?;
        let position = match &args.fen {
            Some(fen) => parse_fen::<V>(fen).with_context(|| format!("bad --fen `{fen}`"))?,
            None => damas_rules::Position::initial::<V>(),
        };
        let mut game = Game::<V>::from_position(position);
        game.play_random(args.seed, args.random_plies);
        anyhow::ensure!(
            game.outcome().is_none(),
            "the game is over after {} random plies: nothing to evaluate",
            args.random_plies
        );
        let position = *game.position();
        let shape = BoardShape::of::<V>();
        let mut input = vec![0.0; shape.input_len()];
        encode(&game, &mut input);
        let (policy, wdl) = model.outputs(input.clone())?;
        let moves = game.legal_moves();
        let turn = position.turn();
        // The same priors the search gets, from the logits already computed.
        let priors = move_priors::<V>(&policy, &moves, turn);
        let mut rows: Vec<(String, usize, f32)> = moves
            .iter()
            .zip(&priors)
            .map(|(mv, &prior)| {
                (
                    pdn::<V>(&position, mv, &moves),
                    policy_index::<V>(mv, turn),
                    prior,
                )
            })
            .collect();
        rows.sort_by(|a, b| b.2.total_cmp(&a.2));
        if args.top > 0 {
            rows.truncate(args.top);
        }
        if args.json {
            let moves: Vec<_> = rows
                .iter()
                .map(|(mv, index, prior)| {
                    serde_json::json!({"move": mv, "index": index, "probability": prior})
                })
                .collect();
            let report = serde_json::json!({
                "variant": V::NAME,
                "fen": damas_rules::to_fen::<V>(&position),
                "input_shape": [1, damas_nn::INPUT_PLANES, shape.height, shape.width],
                "input": input,
                "policy_logits": policy,
                "wdl": wdl,
                "moves": moves,
            });
            println!("{report}");
            return Ok(());
        }
        if args.input {
            print_planes(&input, &shape);
        }
        println!(
            "value (side to move): win {:.4} draw {:.4} loss {:.4}",
            wdl[0], wdl[1], wdl[2]
        );
        println!("move        index      logit   probability");
        for (mv, index, prior) in rows {
            println!("{mv:<10} {index:>6} {:>10.4} {prior:>13.4}", policy[index]);
        }
        Ok(())
    }
}

/// Prints an encoded input plane by plane, rows top to bottom as the side to move sees them.
fn print_planes(input: &[f32], shape: &BoardShape) {
    let area = shape.height * shape.width;
    for (plane, values) in input.chunks(area).enumerate() {
        println!("plane {plane}:");
        for row in values.chunks(shape.width) {
            let cells: Vec<String> = row.iter().map(|v| format!("{v:>4}")).collect();
            println!("  {}", cells.join(" "));
        }
    }
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
        What::Eval(eval) => model_variant(&eval.model)?.visit(Eval(&eval)),
    }
}
