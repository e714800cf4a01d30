//! `damas model init`, which writes an untrained checkpoint, and `damas model eval`, which shows
//! what a model (checkpoint or ONNX file) makes of a position.

use crate::args::SizeArgs;
use crate::out::outln;
use damas_models::files::init_checkpoint;
use damas_models::inspect::{PositionChoice, PositionReport, inspect};
use damas_rules::Variant;
use std::path::PathBuf;

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
struct InitArgs {
    /// Variant the network plays.
    #[arg(long, value_parser = crate::args::parse_variant)]
    variant: Variant,
    #[command(flatten)]
    size: SizeArgs,
    /// Seed of the random weights.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Checkpoint directory to write.
    #[arg(long)]
    out: PathBuf,
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
    #[command(flatten)]
    device: crate::args::DeviceArgs,
}

fn eval(args: EvalArgs) -> anyhow::Result<()> {
    let choice = PositionChoice {
        fen: args.fen.clone(),
        random_plies: args.random_plies,
        seed: args.seed,
    };
    let mut report = inspect(&args.model, &choice, &args.device.open()?)?;
    if args.top > 0 {
        report.moves.truncate(args.top);
    }
    if args.json {
        let moves: Vec<_> = report
            .moves
            .iter()
            .map(|m| serde_json::json!({"move": m.pdn, "index": m.index, "probability": m.probability}))
            .collect();
        let json = serde_json::json!({
            "variant": report.variant,
            "fen": report.fen,
            "input_shape": report.input_shape,
            "input": report.input,
            "policy_logits": report.policy_logits,
            "wdl": report.wdl,
            "moves": moves,
        });
        outln!("{json}");
        return Ok(());
    }
    if args.input {
        print_planes(&report);
    }
    let [win, draw, loss] = report.wdl;
    outln!("value (side to move): win {win:.4} draw {draw:.4} loss {loss:.4}");
    outln!("move        index      logit   probability");
    for m in &report.moves {
        outln!(
            "{:<10} {:>6} {:>10.4} {:>13.4}",
            m.pdn,
            m.index,
            m.logit,
            m.probability
        );
    }
    Ok(())
}

/// Prints an encoded input plane by plane, rows top to bottom as the side to move sees them.
fn print_planes(report: &PositionReport) {
    let [_, _, height, width] = report.input_shape;
    for (plane, values) in report.input.chunks(height * width).enumerate() {
        outln!("plane {plane}:");
        for row in values.chunks(width) {
            let cells: Vec<String> = row.iter().map(|v| format!("{v:>4}")).collect();
            outln!("  {}", cells.join(" "));
        }
    }
}

/// Runs `damas model`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.what {
        What::Init(init) => {
            init_checkpoint(
                init.variant,
                init.size.size(),
                init.seed,
                &init.out,
                &damas_nn::cpu(),
            )?;
            outln!("wrote {}", init.out.display());
            Ok(())
        }
        What::Eval(args) => eval(args),
    }
}
