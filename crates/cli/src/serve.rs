//! `damas serve`: the board in the browser (the server is `damas_serve`'s).

use crate::out::outln;
use damas_arena::PlayerSpec;
use damas_serve::{ServeOptions, is_loopback, serve};
use std::net::SocketAddr;
use std::path::PathBuf;

/// Arguments of `damas serve`.
#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on. Anything but a loopback address lets every machine that can reach
    /// it use this one's CPU.
    #[arg(long, default_value = ServeOptions::DEFAULT_LISTEN)]
    listen: SocketAddr,
    /// Directory of runs (as `damas train --runs` writes them) to show in the Runs view; the
    /// newest checkpoint of each is also a player.
    #[arg(long)]
    runs: Option<PathBuf>,
    /// Players offered in the Play view besides alpha-beta at depths 2, 4, 6, at 1 s a move,
    /// and random: `net:PATH[,sims=N|time=SECONDS]`, `alphabeta:...`, outside engines
    /// (`hub:"COMMAND"`, `dxp:HOST:PORT`). The page can choose only these.
    #[arg(long, num_args = 1..)]
    players: Vec<PlayerSpec>,
    /// Searches running at once over every page; more wait their turn.
    #[arg(long, default_value_t = ServeOptions::DEFAULT_MAX_SEARCHES, value_parser = clap::value_parser!(u16).range(1..=64))]
    max_searches: u16,
    #[command(flatten)]
    device: crate::args::DeviceArgs,
}

/// Runs `damas serve` until the process is stopped.
pub fn run(args: Args) -> anyhow::Result<()> {
    let options = ServeOptions {
        listen: args.listen,
        runs: args.runs,
        players: args.players,
        max_searches: args.max_searches,
        device: args.device.open()?,
    };
    serve(&options, |address| {
        if !is_loopback(&address) {
            eprintln!(
                "warning: listening on {address}, not a loopback address: anyone who can reach \
                 it can use this machine's CPU through the page"
            );
        }
        outln!("damas serve: open http://{address}/ (Ctrl-C stops it)");
    })?;
    Ok(())
}
