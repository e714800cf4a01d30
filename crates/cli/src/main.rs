//! `damas`: the Damas Zero command line. One module per subcommand.

mod arena;
mod bench;
mod bench_selfplay;
mod bench_train;
mod board;
mod dxp;
mod export;
mod hub;
mod hub_mcts;
mod model;
mod moves;
mod opponent;
mod perft;
mod play;
mod plot;
mod selfplay;
mod train;
mod variants;

use clap::{Parser, Subcommand};
use damas_rules::{ParseFenError, Position, Rules, Variant, parse_fen};
use std::process::ExitCode;

/// Damas Zero: draughts rules, engines and self-play learning for many variants.
#[derive(Parser)]
#[command(name = "damas", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List every supported variant with its rules in one line.
    Variants(variants::Args),
    /// List the legal moves of a position.
    Moves(moves::Args),
    /// Count the leaves of the legal move tree (move generator check and benchmark).
    Perft(perft::Args),
    /// Play a game in the terminal.
    Play(play::Args),
    /// Run the alpha-beta engine (or a network with MCTS) behind the Hub protocol on stdin/stdout.
    Hub(hub::Args),
    /// Play 10x10 engine matches over DXP (TCP).
    Dxp(dxp::Args),
    /// Measure speed (`damas bench engine|selfplay`).
    Bench(bench::Args),
    /// Generate self-play training games (shards and PDN).
    Selfplay(selfplay::Args),
    /// Create networks (`damas model init`).
    Model(model::Args),
    /// Train a network: self-play, training and evaluation, generation after generation.
    Train(train::Args),
    /// Play a match between two players, with an Elo estimate (and optionally an SPRT).
    Match(arena::MatchArgs),
    /// Play a round robin or gauntlet and fit ratings for every player.
    Tournament(arena::TournamentArgs),
    /// Write a checkpoint's network for other engines (ONNX or safetensors, with metadata).
    Export(export::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Variants(args) => variants::run(args),
        Command::Moves(args) => moves::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Play(args) => play::run(args),
        Command::Hub(args) => hub::run(args),
        Command::Dxp(args) => dxp::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Selfplay(args) => selfplay::run(args),
        Command::Model(args) => model::run(args),
        Command::Train(args) => train::run(args),
        Command::Match(args) => arena::run_match(args),
        Command::Tournament(args) => arena::run_tournament(args),
        Command::Export(args) => export::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// The `--variant` and `--fen` options shared by the commands that work on a position.
#[derive(clap::Args)]
pub(crate) struct PositionArgs {
    /// Variant name (see `damas variants`).
    #[arg(long, value_parser = parse_variant)]
    pub variant: Variant,
    /// Position in PDN FEN; the variant's start if omitted.
    #[arg(long)]
    pub fen: Option<String>,
}

impl PositionArgs {
    /// The position given by `--fen`, or the variant's start.
    pub fn position<V: Rules>(&self) -> Result<Position<V::Geometry>, ParseFenError> {
        match &self.fen {
            Some(fen) => parse_fen::<V>(fen),
            None => Ok(Position::initial::<V>()),
        }
    }
}

/// Parses a `--variant` value.
pub(crate) fn parse_variant(s: &str) -> Result<Variant, String> {
    s.parse::<Variant>().map_err(|e| e.to_string())
}
