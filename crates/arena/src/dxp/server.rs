//! Our engine playing DXP games (`damas dxp`): waiting for game requests on a port, or asking an
//! engine listening elsewhere for games. Any arena player can be the engine. Bad input is
//! refused (GAMEACC code 2, or GAMEEND for an illegal move) and the engine stays up.

use super::{Link, find_move, move_message, padded};
use crate::factory::{PlayerError, PlayerSettings};
use crate::player::Player;
use crate::spec::PlayerSpec;
use damas_rules::{Color, Game, Geometry, Outcome, Rules, Variant, VariantVisitor, parse_hub};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Instant;

/// How our side plays.
#[derive(Clone, Debug)]
pub struct DxpOptions {
    /// The player that makes our moves.
    pub engine: PlayerSpec,
    /// How it is built.
    pub settings: PlayerSettings,
    /// A 10x10 variant both sides play.
    pub variant: Variant,
    /// Our name, as sent in GAMEREQ and GAMEACC.
    pub name: String,
    /// Games longer than this many plies are ended as draws.
    pub max_plies: u32,
    /// Games to play before returning (listening: 0 means keep serving).
    pub games: u32,
}

/// Why DXP games could not be played.
#[derive(Debug, thiserror::Error)]
pub enum DxpError {
    /// The connection failed.
    #[error("{what}")]
    Io {
        /// What was being done.
        what: String,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The other side broke the protocol or refused.
    #[error("{0}")]
    Protocol(String),
    /// The variant is not played on a 10x10 board.
    #[error("DXP is for 10x10 boards; {0} is not one")]
    Board(&'static str),
    /// The engine could not be built.
    #[error(transparent)]
    Player(#[from] PlayerError),
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> DxpError {
    let what = what.into();
    move |source| DxpError::Io { what, source }
}

/// How a game is set up by GAMEREQ.
struct Request {
    our_color: Color,
    start: Option<String>,
}

/// Reads a GAMEREQ; `Err` carries the reason for refusing it.
fn parse_request(text: &str) -> Result<Request, String> {
    if text.len() < 42 || !text.starts_with('R') || !text.is_ascii() {
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

/// One game on a connection, for the variant it visits.
struct Session<'a> {
    options: &'a DxpOptions,
    link: &'a mut Link,
    our_color: Color,
    start: Option<String>,
    seed: u64,
    log: &'a mut dyn FnMut(&str),
}

impl VariantVisitor for Session<'_> {
    type Output = Result<(), DxpError>;
    fn visit<V: Rules>(self) -> Self::Output {
        if V::Geometry::WIDTH != 10 || !V::Geometry::DARK_ONLY {
            return Err(DxpError::Board(V::NAME));
        }
        let start = match &self.start {
            Some(text) => parse_hub::<V>(text)
                .map_err(|e| DxpError::Protocol(format!("bad GAMEREQ position: {e}")))?,
            None => damas_rules::Position::initial::<V>(),
        };
        let factory = self.options.engine.factory::<V>(&self.options.settings)?;
        let mut engine = factory(self.seed);
        play_game::<V>(
            self.link,
            Game::from_position(start),
            self.our_color,
            engine.as_mut(),
            self.options.max_plies,
            self.log,
        )
    }
}

fn play_game<V: Rules>(
    link: &mut Link,
    mut game: Game<V>,
    us: Color,
    engine: &mut dyn Player<V>,
    max_plies: u32,
    log: &mut dyn FnMut(&str),
) -> Result<(), DxpError> {
    engine.new_game();
    let lost = || io("the connection");
    loop {
        let over = game
            .outcome()
            .or((game.ply() >= max_plies).then(|| game.outcome_at_cap()));
        if let Some(outcome) = over {
            if game.position().turn() == us {
                // The side to move announces the end; the other side echoes it.
                link.send(&format!("E{}0", reason_code(outcome, us)))
                    .map_err(lost())?;
                wait_for_end(link)?;
            } else {
                wait_for_end(link)?;
                link.send(&format!("E{}0", reason_code(outcome, us)))
                    .map_err(lost())?;
            }
            log(&format!("game over: {outcome}"));
            return Ok(());
        }
        if game.position().turn() == us {
            let started = Instant::now();
            let answer = engine
                .play(&game)
                .map_err(|forfeit| DxpError::Protocol(format!("our engine failed: {forfeit}")))?;
            link.send(&move_message::<V>(
                &answer.mv,
                started.elapsed().as_secs() as u32,
            ))
            .map_err(lost())?;
            game.play(&answer.mv);
            continue;
        }
        let Some(message) = link.receive().map_err(lost())? else {
            return Err(DxpError::Protocol(
                "the other side closed the connection".into(),
            ));
        };
        match message.chars().next() {
            Some('M') => match find_move(&game, &message) {
                Some(mv) => game.play(&mv),
                None => {
                    link.send(&format!("Cillegal or malformed move `{message}`"))
                        .map_err(lost())?;
                    link.send("E00").map_err(lost())?;
                    log("game over: the other side sent an illegal move");
                    return Ok(());
                }
            },
            Some('E') => {
                link.send("E00").map_err(lost())?;
                log(&format!("game over: ended by the other side ({message})"));
                return Ok(());
            }
            Some('C') => log(&format!("chat: {}", &message[1..])),
            Some('B') => link.send("K1").map_err(lost())?,
            _ => link
                .send(&format!("Cunexpected message `{message}`"))
                .map_err(lost())?,
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

/// Reads until the other side's GAMEEND, answering BACKREQ on the way.
fn wait_for_end(link: &mut Link) -> Result<(), DxpError> {
    while let Some(message) = link.receive().map_err(io("the connection"))? {
        match message.chars().next() {
            Some('E') => return Ok(()),
            Some('B') => link.send("K1").map_err(io("the connection"))?,
            _ => {}
        }
    }
    Ok(())
}

/// A port waiting for DXP game requests.
pub struct DxpServer {
    listener: TcpListener,
}

impl DxpServer {
    /// Listens on `port` of 127.0.0.1 (0: any free port).
    pub fn bind(port: u16) -> Result<Self, DxpError> {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .map_err(io(format!("cannot listen on port {port}")))?;
        Ok(DxpServer { listener })
    }

    /// The address it listens on.
    pub fn address(&self) -> Result<SocketAddr, DxpError> {
        self.listener
            .local_addr()
            .map_err(io("cannot read the listening address"))
    }

    /// Accepts connections and plays the games they request, until `options.games` are
    /// played (0: forever). `log` gets a line per game and per chat message. A client that
    /// misbehaves or goes away loses its connection, with the reason logged; the server goes on.
    pub fn serve(&self, options: &DxpOptions, log: &mut dyn FnMut(&str)) -> Result<(), DxpError> {
        let mut played = 0;
        for stream in self.listener.incoming() {
            let result = stream
                .map_err(io("cannot accept a connection"))
                .and_then(|stream| serve_connection(stream, options, true, &mut played, log));
            if let Err(error) = result {
                log(&format!("connection closed: {}", chain(&error)));
            }
            if options.games > 0 && played >= options.games {
                return Ok(());
            }
        }
        Ok(())
    }
}

/// An error with its causes, on one line.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text += &format!(": {cause}");
        source = cause.source();
    }
    text
}

/// Plays the games one accepted connection requests, as [`DxpServer::serve`] does with each,
/// until the connection closes or `options.games` are played; returns the games played.
/// `echo` copies every message to standard error.
pub fn serve_stream(
    stream: TcpStream,
    options: &DxpOptions,
    echo: bool,
    log: &mut dyn FnMut(&str),
) -> Result<u32, DxpError> {
    let mut played = 0;
    serve_connection(stream, options, echo, &mut played, log)?;
    Ok(played)
}

/// Plays the games one connection requests, one after the other, until it closes or the
/// server has played `options.games`.
fn serve_connection(
    stream: TcpStream,
    options: &DxpOptions,
    echo: bool,
    played: &mut u32,
    log: &mut dyn FnMut(&str),
) -> Result<(), DxpError> {
    let mut link = Link::new(stream, echo).map_err(io("the connection"))?;
    while let Some(message) = link.receive().map_err(io("the connection"))? {
        match message.chars().next() {
            Some('R') => {}
            // A GAMEEND outside a game (a late echo) is answered, as the handshake wants.
            Some('E') => {
                link.send("E00").map_err(io("the connection"))?;
                continue;
            }
            Some('C') => {
                log(&format!("chat: {}", &message[1..]));
                continue;
            }
            _ => {
                link.send(&format!("Cexpected GAMEREQ, got `{message}`"))
                    .map_err(io("the connection"))?;
                continue;
            }
        }
        let request = match parse_request(&message) {
            Ok(request) => request,
            Err(reason) => {
                link.send(&format!("Crefused: {reason}"))
                    .map_err(io("the connection"))?;
                link.send(&format!("A{}2", padded(&options.name)))
                    .map_err(io("the connection"))?;
                continue;
            }
        };
        link.send(&format!("A{}0", padded(&options.name)))
            .map_err(io("the connection"))?;
        let session = Session {
            options,
            link: &mut link,
            our_color: request.our_color,
            start: request.start,
            seed: u64::from(*played),
            log: &mut *log,
        };
        let result = options.variant.visit(session);
        *played += 1;
        result?;
        if options.games > 0 && *played >= options.games {
            return Ok(());
        }
    }
    Ok(())
}

/// Asks the engine listening at `address` for `options.games` games (at least one), our side
/// playing `color`, with `minutes` per side announced in GAMEREQ.
pub fn connect(
    address: &str,
    color: Color,
    minutes: u32,
    options: &DxpOptions,
    log: &mut dyn FnMut(&str),
) -> Result<(), DxpError> {
    let stream = TcpStream::connect(address).map_err(io(format!("cannot connect to {address}")))?;
    let mut link = Link::new(stream, true).map_err(io("the connection"))?;
    for game in 0..options.games.max(1) {
        let follower = if color == Color::White { 'Z' } else { 'W' };
        link.send(&format!(
            "R01{}{follower}{:03}000A",
            padded(&options.name),
            minutes.min(999)
        ))
        .map_err(io("the connection"))?;
        let reply = link
            .receive()
            .map_err(io("the connection"))?
            .ok_or_else(|| DxpError::Protocol("connection closed before GAMEACC".into()))?;
        let code = reply.get(33..34).filter(|_| reply.len() == 34);
        match code {
            _ if !reply.starts_with('A') => {
                return Err(DxpError::Protocol(format!(
                    "expected GAMEACC, got `{reply}`"
                )));
            }
            Some("0") => {}
            Some(code) => {
                return Err(DxpError::Protocol(format!(
                    "game refused (GAMEACC code {code})"
                )));
            }
            None => {
                return Err(DxpError::Protocol(format!(
                    "expected GAMEACC, got `{reply}`"
                )));
            }
        }
        let session = Session {
            options,
            link: &mut link,
            our_color: color,
            start: None,
            seed: 1_000 + game as u64,
            log: &mut *log,
        };
        options.variant.visit(session)?;
    }
    Ok(())
}
