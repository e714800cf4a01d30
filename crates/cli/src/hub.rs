//! `damas hub`: the alpha-beta engine, or with `--model` a network searched by MCTS, behind the
//! Hub protocol on standard input and output (the session itself is the arena's Hub server).

use damas_arena::hub::server::{Lines, ServerOptions, serve};
use std::path::PathBuf;

/// Arguments of `damas hub`.
#[derive(clap::Args)]
pub struct Args {
    /// Transposition table size in MiB (also the `tt-size` parameter).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u16).range(1..=4096))]
    tt: u16,
    /// Play with this network (checkpoint directory or exported ONNX file) searched by MCTS
    /// instead of alpha-beta. The variant is the model's. `level nodes=N` sets the simulations,
    /// `move-time` and `time` budget the search (which then goes on from its last tree when
    /// the next position continues the game), `depth` does not apply.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Endgame database root (`damas egdb build --out DIR`) the alpha-beta engine probes.
    #[arg(long, value_name = "DIR")]
    egdb: Option<PathBuf>,
    #[command(flatten)]
    device: crate::args::DeviceArgs,
}

/// Runs `damas hub` until `quit` or the end of the input.
pub fn run(args: Args) -> anyhow::Result<()> {
    let options = ServerOptions {
        tt_megabytes: usize::from(args.tt),
        model: args.model,
        device: args.device.open()?,
        egdb: args.egdb,
    };
    serve(
        std::io::stdin().lock(),
        &Lines::new(std::io::stdout()),
        &options,
    )?;
    Ok(())
}
