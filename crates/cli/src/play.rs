//! `damas play`: a human against any arena player (random, alpha-beta, a network, an outside
//! engine) in the terminal.

use crate::out::{out, outln};
use anyhow::Context;
use damas_arena::{PlayerSettings, PlayerSpec};
use damas_rules::notation::{pdn, sorted_legal_moves};
use damas_rules::{Color, Game, Rules, VariantVisitor, parse_move, to_fen};
use std::io::BufRead;

/// Arguments of `damas play`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    position: crate::args::PositionArgs,
    /// The side you play: `white` or `black`.
    #[arg(long, default_value = "white", value_parser = crate::args::parse_color)]
    color: Color,
    /// The computer opponent, as a player string: `random`, `alphabeta:depth=6`,
    /// `alphabeta:nodes=N`, `alphabeta:time=SECONDS`, `net:PATH[,sims=N]`, `hub:"COMMAND"`.
    #[arg(long, default_value = "random")]
    opponent: PlayerSpec,
    /// Seed of the opponent's random choices (random if omitted).
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    device: crate::args::DeviceArgs,
}

struct Run<'a>(&'a Args);

impl VariantVisitor for Run<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        let args = self.0;
        let start = args.position.position::<V>().context("invalid --fen")?;
        let mut game = Game::<V>::from_position(start);
        let seed = args.seed.unwrap_or_else(rand::random);
        let factory = args.opponent.factory::<V>(&PlayerSettings {
            device: args.device.open()?,
            ..PlayerSettings::default()
        })?;
        let mut opponent = factory(seed);
        opponent.new_game();
        let stdin = std::io::stdin();
        let mut lines = stdin.lock().lines();
        outln!("{}: you play {}.", V::NAME, args.color);
        outln!("{}", crate::board::legend::<V>(game.position()));
        let mut shown_help = false;
        loop {
            let position = *game.position();
            outln!("\n{}", crate::board::draw::<V>(&position));
            if let Some(outcome) = game.outcome() {
                outln!(
                    "Game over: {outcome} ({})",
                    outcome.pdn_result::<V::Geometry>()
                );
                return Ok(());
            }
            let legal = game.legal_moves();
            if position.turn() != args.color {
                let answer = match opponent.play(&game) {
                    Ok(answer) if legal.contains(&answer.mv) => answer,
                    Ok(_) => anyhow::bail!("the opponent played an illegal move"),
                    Err(forfeit) => anyhow::bail!("the opponent failed: {forfeit}"),
                };
                let report = if answer.info.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", answer.info)
                };
                outln!(
                    "Opponent plays {}{report}",
                    pdn::<V>(&position, &answer.mv, &legal)
                );
                game.play(&answer.mv);
                continue;
            }
            // The legal moves, in the order every listing uses, written as the variant writes
            // them: the help's examples are two of them, so they fit the variant by construction.
            let names: Vec<String> = sorted_legal_moves::<V>(&position)
                .iter()
                .map(|mv| pdn::<V>(&position, mv, &legal))
                .collect();
            let help = || {
                let examples: Vec<String> =
                    names.iter().take(2).map(|n| format!("`{n}`")).collect();
                outln!(
                    "Type a move such as {} (a full path or the Hub form also works), \
                     `moves`, `fen` or `quit`.",
                    examples.join(" or ")
                );
            };
            if !shown_help {
                help();
                shown_help = true;
            }
            loop {
                out!("{} to move> ", position.turn());
                let Some(line) = lines.next() else {
                    outln!("\nInput closed; leaving the game.");
                    return Ok(());
                };
                let line = line?;
                match line.trim() {
                    "" => continue,
                    "quit" | "exit" => return Ok(()),
                    "fen" => outln!("{}", to_fen::<V>(&position)),
                    "moves" => outln!("legal moves: {}", names.join(" ")),
                    "help" | "?" => {
                        help();
                        outln!("legal moves: {}", names.join(" "));
                    }
                    text => match parse_move::<V>(&position, text) {
                        Ok(mv) => {
                            game.play(&mv);
                            break;
                        }
                        Err(error) => outln!("error: {error}"),
                    },
                }
            }
        }
    }
}

/// Runs `damas play`.
pub fn run(args: Args) -> anyhow::Result<()> {
    args.position.variant.visit(Run(&args))
}
