//! `damas dxp`: 10x10 engine matches over the DamExchange Protocol (TCP, NUL-terminated ASCII
//! messages with fixed-width fields; shared/reference/protocols.md). Any arena player can be
//! the engine; the protocol itself is the arena's DXP server.

use crate::out::outln;
use damas_arena::dxp::server::{DxpOptions, DxpServer, connect};
use damas_arena::{PlayerSettings, PlayerSpec};
use damas_rules::{Color, Variant};
use std::io::Write;

/// Arguments of `damas dxp`.
#[derive(clap::Args)]
pub struct Args {
    /// Wait for games on this TCP port (0: any free port; the address is printed).
    #[arg(long, conflicts_with = "connect")]
    listen: Option<u16>,
    /// Start a game with the engine listening at HOST:PORT.
    #[arg(long)]
    connect: Option<String>,
    /// The engine that plays, as a player string (`alphabeta:time=1`, `random`,
    /// `net:PATH[,sims=N]`, ...).
    #[arg(long, default_value = "alphabeta:time=1")]
    engine: PlayerSpec,
    /// When connecting: the colour we play (`white` or `black`).
    #[arg(long, default_value = "white", value_parser = crate::args::parse_color)]
    color: Color,
    /// When connecting: minutes per side announced in GAMEREQ.
    #[arg(long, default_value_t = 10, value_parser = crate::args::at_least_one::<u32>)]
    minutes: u32,
    /// Games to play before exiting (listening: 0 means keep serving).
    #[arg(long, default_value_t = 1)]
    games: u32,
    /// Games longer than this many plies are ended as draws.
    #[arg(long, default_value_t = 400, value_parser = crate::args::at_least_one::<u32>)]
    max_plies: u32,
    /// A 10x10 variant both sides play (DXP is for 10x10 boards).
    #[arg(long, default_value = "international", value_parser = crate::args::parse_variant)]
    variant: Variant,
    /// Name sent to the other side.
    #[arg(long, default_value = "damas")]
    name: String,
    #[command(flatten)]
    device: crate::args::DeviceArgs,
}

/// Runs `damas dxp`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let options = DxpOptions {
        engine: args.engine,
        settings: PlayerSettings {
            device: args.device.open()?,
            ..PlayerSettings::default()
        },
        variant: args.variant,
        name: args.name,
        max_plies: args.max_plies,
        games: args.games,
    };
    // A closed stdout (a parent that stopped reading) must not stop the engine mid-game.
    let mut log = |line: &str| {
        let _ = writeln!(std::io::stdout(), "{line}");
    };
    match (args.listen, &args.connect) {
        (Some(port), None) => {
            let server = DxpServer::bind(port)?;
            outln!("listening on {}", server.address()?);
            server.serve(&options, &mut log)?;
        }
        (None, Some(address)) => connect(address, args.color, args.minutes, &options, &mut log)?,
        _ => anyhow::bail!("give either --listen PORT or --connect HOST:PORT"),
    }
    Ok(())
}
