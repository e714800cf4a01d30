//! `damas dxp`: 10x10 engine matches over the DamExchange Protocol (TCP, NUL-terminated ASCII
//! messages with fixed-width fields; shared/reference/protocols.md). The alpha-beta engine plays;
//! bad input is refused (GAMEACC code 2, or GAMEEND for an illegal move) and the engine stays up.

use crate::opponent::{Opponent, OpponentSpec};
use anyhow::{Context, bail};
use damas_arena::dxp::{Link, find_move, move_message, padded};
use damas_rules::{Color, Game, Geometry, Outcome, Rules, Variant, VariantVisitor, parse_hub};
use std::net::{TcpListener, TcpStream};
use std::time::Instant;

/// Arguments of `damas dxp`.
#[derive(clap::Args)]
pub struct Args {
    /// Wait for games on this TCP port (0: any free port; the address is printed).
    #[arg(long, conflicts_with = "connect")]
    listen: Option<u16>,
    /// Start a game with the engine listening at HOST:PORT.
    #[arg(long)]
    connect: Option<String>,
    /// The engine that plays: `alphabeta:depth=N|nodes=N|time=SECONDS` or `random`.
    #[arg(long, default_value = "alphabeta:time=1")]
    engine: OpponentSpec,
    /// When connecting: the colour we play (`white` or `black`).
    #[arg(long, default_value = "white")]
    color: String,
    /// When connecting: minutes per side announced in GAMEREQ.
    #[arg(long, default_value_t = 10)]
    minutes: u32,
    /// Games to play before exiting (listening: 0 means keep serving).
    #[arg(long, default_value_t = 1)]
    games: u32,
    /// Games longer than this many plies are ended as draws.
    #[arg(long, default_value_t = 400)]
    max_plies: u32,
    /// A 10x10 variant both sides play (DXP is for 10x10 boards).
    #[arg(long, default_value = "international", value_parser = |s: &str| s.parse::<Variant>().map_err(|e| e.to_string()))]
    variant: Variant,
    /// Name sent to the other side.
    #[arg(long, default_value = "damas")]
    name: String,
}

/// How a game is set up by GAMEREQ.
struct Request {
    our_color: Color,
    start: Option<String>,
}

/// Reads a GAMEREQ; `Err` carries the reason for refusing it.
fn parse_request(text: &str) -> Result<Request, String> {
    if text.len() < 42 || !text.starts_with('R') {
        return Err(format!("GAMEREQ too short ({} characters)", text.len()));
    }
    if &text[1..3] != "01" {
        return Err(format!("unsupported protocol version `{}`", &text[1..3]));
    }
    let our_color = match &text[35..36] {
        "W" => Color::White,
        "Z" => Color::Black,
        other => return Err(format!("bad follower colour `{other}`")),
    };
    if text[36..39].parse::<u32>().is_err() || text[39..42].parse::<u32>().is_err() {
        return Err("bad time control digits".into());
    }
    let start = match text.get(42..43) {
        Some("A") => None,
        Some("B") if text.len() == 94 => {
            let side = match &text[43..44] {
                "W" => 'W',
                "Z" => 'B',
                other => return Err(format!("bad side to move `{other}`")),
            };
            let squares: String = text[44..94]
                .chars()
                .map(|c| match c {
                    'z' => 'b',
                    'Z' => 'B',
                    other => other,
                })
                .collect();
            Some(format!("{side}{squares}"))
        }
        _ => return Err("start position must be `A` or `B` with 51 characters".into()),
    };
    Ok(Request { our_color, start })
}

struct Session<'a> {
    args: &'a Args,
    link: &'a mut Link,
    our_color: Color,
    start: Option<String>,
    seed: u64,
}

impl VariantVisitor for Session<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        if V::Geometry::WIDTH != 10 || !V::Geometry::DARK_ONLY {
            bail!("DXP is for 10x10 boards; {} is not one", V::NAME);
        }
        let start = match &self.start {
            Some(text) => {
                parse_hub::<V>(text).map_err(|e| anyhow::anyhow!("bad GAMEREQ position: {e}"))?
            }
            None => damas_rules::Position::initial::<V>(),
        };
        play_game::<V>(
            self.link,
            Game::from_position(start),
            self.our_color,
            self.args,
            self.seed,
        )
    }
}

fn play_game<V: Rules>(
    link: &mut Link,
    mut game: Game<V>,
    us: Color,
    args: &Args,
    seed: u64,
) -> anyhow::Result<()> {
    let mut engine = Opponent::<V>::new(&args.engine, seed);
    loop {
        let over = game.outcome().or((game.ply() >= args.max_plies)
            .then_some(Outcome::Draw(damas_rules::DrawReason::KingMoves(0))));
        if let Some(outcome) = over {
            if game.position().turn() == us {
                // The side to move announces the end; the other side echoes it.
                link.send(&format!("E{}0", reason_code(outcome, us)))?;
                wait_for_end(link)?;
            } else {
                wait_for_end(link)?;
                link.send(&format!("E{}0", reason_code(outcome, us)))?;
            }
            println!("game over: {outcome}");
            return Ok(());
        }
        if game.position().turn() == us {
            let started = Instant::now();
            let (mv, _) = engine
                .choose(&game)
                .expect("a game not over has a legal move");
            link.send(&move_message::<V>(&mv, started.elapsed().as_secs() as u32))?;
            game.play(&mv);
            continue;
        }
        let Some(message) = link.receive()? else {
            bail!("the other side closed the connection");
        };
        match message.chars().next() {
            Some('M') => {
                let found = find_move(&game, &message);
                match found {
                    Some(mv) => game.play(&mv),
                    None => {
                        link.send(&format!("Cillegal or malformed move `{message}`"))?;
                        link.send("E00")?;
                        println!("game over: the other side sent an illegal move");
                        return Ok(());
                    }
                }
            }
            Some('E') => {
                link.send("E00")?;
                println!("game over: ended by the other side ({message})");
                return Ok(());
            }
            Some('C') => println!("chat: {}", &message[1..]),
            Some('B') => link.send("K1")?,
            _ => link.send(&format!("Cunexpected message `{message}`"))?,
        }
    }
}

/// GAMEEND reason from our side: 1 I lose, 2 draw, 3 I win.
fn reason_code(outcome: Outcome, us: Color) -> char {
    match outcome {
        Outcome::Draw(_) => '2',
        Outcome::Win { winner, .. } => {
            if winner == us {
                '3'
            } else {
                '1'
            }
        }
    }
}

/// Reads until the other side's GAMEEND, answering BACKREQ and showing CHAT on the way.
fn wait_for_end(link: &mut Link) -> anyhow::Result<()> {
    while let Some(message) = link.receive()? {
        match message.chars().next() {
            Some('E') => return Ok(()),
            Some('B') => link.send("K1")?,
            _ => {}
        }
    }
    Ok(())
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match (&args.listen, &args.connect) {
        (Some(port), None) => listen(&args, *port),
        (None, Some(address)) => connect(&args, address),
        _ => bail!("give either --listen PORT or --connect HOST:PORT"),
    }
}

fn listen(args: &Args, port: u16) -> anyhow::Result<()> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("cannot listen on port {port}"))?;
    println!("listening on {}", listener.local_addr()?);
    let mut played = 0;
    for stream in listener.incoming() {
        let mut link = Link::new(stream?, true)?;
        while let Some(message) = link.receive()? {
            if !message.starts_with('R') {
                link.send(&format!("Cexpected GAMEREQ, got `{message}`"))?;
                continue;
            }
            let request = match parse_request(&message) {
                Ok(request) => request,
                Err(reason) => {
                    link.send(&format!("Crefused: {reason}"))?;
                    link.send(&format!("A{}2", padded(&args.name)))?;
                    continue;
                }
            };
            link.send(&format!("A{}0", padded(&args.name)))?;
            let session = Session {
                args,
                link: &mut link,
                our_color: request.our_color,
                start: request.start,
                seed: played as u64,
            };
            if let Err(error) = args.variant.visit(session) {
                eprintln!("error: {error:#}");
            }
            played += 1;
            if args.games > 0 && played >= args.games {
                return Ok(());
            }
        }
    }
    Ok(())
}

fn connect(args: &Args, address: &str) -> anyhow::Result<()> {
    let our_color = match args.color.as_str() {
        "white" | "w" => Color::White,
        "black" | "b" => Color::Black,
        other => bail!("`{other}` is not a colour (white or black)"),
    };
    let stream =
        TcpStream::connect(address).with_context(|| format!("cannot connect to {address}"))?;
    let mut link = Link::new(stream, true)?;
    for game in 0..args.games.max(1) {
        let follower = if our_color == Color::White { 'Z' } else { 'W' };
        link.send(&format!(
            "R01{}{follower}{:03}000A",
            padded(&args.name),
            args.minutes.min(999)
        ))?;
        let reply = link
            .receive()?
            .context("connection closed before GAMEACC")?;
        if !reply.starts_with('A') || reply.len() != 34 {
            bail!("expected GAMEACC, got `{reply}`");
        }
        if &reply[33..34] != "0" {
            bail!("game refused (GAMEACC code {})", &reply[33..34]);
        }
        let session = Session {
            args,
            link: &mut link,
            our_color,
            start: None,
            seed: 1_000 + game as u64,
        };
        args.variant.visit(session)?;
    }
    Ok(())
}
