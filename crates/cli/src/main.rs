//! `damas`: the Damas Zero command line. One module per subcommand, each parsing its arguments,
//! calling one library function and printing what it returns.

mod arena;
mod args;
mod bench;
mod board;
mod dxp;
mod egdb;
mod export;
mod hub;
mod ladder;
mod model;
mod moves;
mod out;
mod perft;
mod play;
mod selfplay;
mod serve;
mod train;
mod variants;
mod worker;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// mimalloc instead of the system allocator: the training step frees and allocates buffers of a
/// few hundred kilobytes to a few megabytes on rayon's threads every step, which glibc's
/// per-thread arenas hand back to the system and fault in again (about a tenth of a step's time
/// in page faults and zeroing on the 2-core host); mimalloc keeps them: +29% samples a second
/// in `damas bench train` (docs/notebook, 2026-12-07).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    ///
    /// A `level` lasts until the next one; `go think` before any level answers an error line
    /// (`level infinite` searches until `stop`). A rejected `pos` leaves no position: `go`
    /// answers an error until a `pos` is accepted. `pos start` is the start position. `info`
    /// lines use Scan's units for both engines: score in men, time in seconds, nps in millions;
    /// a network's score is 3·atanh(value) men, the value itself in `value=`.
    Hub(hub::Args),
    /// Play 10x10 engine matches over DXP (TCP).
    Dxp(dxp::Args),
    /// Measure speed and strength (`damas bench engine|selfplay|train|learning`).
    Bench(bench::Args),
    /// Generate self-play training games (shards and PDN).
    Selfplay(selfplay::Args),
    /// Create networks and look inside them (`damas model init|eval`).
    Model(model::Args),
    /// Train a network: self-play, training and evaluation, generation after generation.
    Train(train::Args),
    /// Play self-play games for a learner elsewhere (`damas train --external-selfplay`).
    Worker(worker::Args),
    /// Play a match between two players, with an Elo estimate (and optionally an SPRT).
    Match(arena::MatchArgs),
    /// Play a round robin or gauntlet and fit ratings for every player.
    Tournament(arena::TournamentArgs),
    /// Build, show or climb a stored alpha-beta ladder (`damas ladder build|show|rate`).
    Ladder(ladder::Args),
    /// Write a checkpoint's network for other engines (ONNX or safetensors, with metadata).
    Export(export::Args),
    /// Serve the board in the browser: play any variant, watch runs, replay games.
    Serve(serve::Args),
    /// Endgame databases: build, probe, verify and time them (`damas egdb build|probe|verify|bench`).
    Egdb(egdb::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // Help and version go to standard output (which may be a closed pipe), usage
            // errors to standard error.
            if let Err(failed) = error.print() {
                out::stop(&failed);
            }
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
        }
    };
    let result = match cli.command {
        Command::Variants(args) => variants::run(args),
        Command::Egdb(args) => egdb::run(args),
        Command::Moves(args) => moves::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Play(args) => play::run(args),
        Command::Hub(args) => hub::run(args),
        Command::Dxp(args) => dxp::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Selfplay(args) => selfplay::run(args),
        Command::Model(args) => model::run(args),
        Command::Train(args) => train::run(args),
        Command::Worker(args) => worker::run(args),
        Command::Match(args) => arena::run_match(args),
        Command::Tournament(args) => arena::run_tournament(args),
        Command::Ladder(args) => ladder::run(args),
        Command::Export(args) => export::run(args),
        Command::Serve(args) => serve::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            if error.downcast_ref::<Permanent>().is_some() {
                ExitCode::from(PERMANENT_EXIT)
            } else {
                ExitCode::from(2)
            }
        }
    }
}

/// The exit status of a failure that starting again cannot fix (a bad config, a missing
/// device, another release's learner): a launcher restarts on any other failure, never on this.
const PERMANENT_EXIT: u8 = 3;

/// Marks an error as one that starting again cannot fix.
#[derive(Debug)]
pub struct Permanent;

impl std::fmt::Display for Permanent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("permanent failure, starting again will not help")
    }
}

/// A run's error for the binary, marked [`Permanent`] when it is.
pub fn run_error(error: damas_train::RunError) -> anyhow::Error {
    let permanent = error.is_permanent();
    let error = anyhow::Error::new(error);
    if permanent {
        error.context(Permanent)
    } else {
        error
    }
}
