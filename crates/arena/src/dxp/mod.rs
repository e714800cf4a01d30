//! DXP (the DamExchange Protocol: 10x10 engine matches over TCP).
//!
//! - this module: the wire format, shared by both sides. Messages are NUL-terminated text:
//!   GAMEREQ `R`, GAMEACC `A`, MOVE `M`, GAMEEND `E`, CHAT `C`, BACKREQ `B`, BACKACC `K`;
//! - [`client`]: [`DxpPlayer`](client::DxpPlayer), an engine listening for games, as a player;
//! - [`server`]: our own engine playing DXP games (`damas dxp`).

pub mod client;
pub mod server;

use damas_rules::notation::square_number;
use damas_rules::{Color, Game, Move, Position, Rules, to_hub};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A DXP connection: NUL-terminated messages in both directions.
pub struct Link {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    log: bool,
}

impl Link {
    /// Wraps a connected stream; `log` echoes every message to standard error.
    pub fn new(stream: TcpStream, log: bool) -> std::io::Result<Self> {
        // Each message is a few bytes the other side waits for: Nagle's algorithm would hold
        // it back until the previous one is acknowledged, and delayed acknowledgements make
        // that about 40 ms per message.
        stream.set_nodelay(true)?;
        Ok(Link {
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
            log,
        })
    }

    /// Sends one message.
    pub fn send(&mut self, message: &str) -> std::io::Result<()> {
        if self.log {
            eprintln!("dxp > {message}");
        }
        // One write per message, terminator included: a NUL sent on its own would be a
        // packet of its own.
        let mut bytes = Vec::with_capacity(message.len() + 1);
        bytes.extend_from_slice(message.as_bytes());
        bytes.push(0);
        self.writer.write_all(&bytes)?;
        self.writer.flush()
    }

    /// The next message, `None` when the other side has closed the connection.
    pub fn receive(&mut self) -> std::io::Result<Option<String>> {
        let mut bytes = Vec::new();
        if self.reader.read_until(0, &mut bytes)? == 0 {
            return Ok(None);
        }
        if bytes.last() == Some(&0) {
            bytes.pop();
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if self.log {
            eprintln!("dxp < {text}");
        }
        Ok(Some(text))
    }

    /// Gives up waiting for a message after `limit` (none: wait forever).
    pub fn set_timeout(&self, limit: Option<Duration>) -> std::io::Result<()> {
        self.writer.set_read_timeout(limit)
    }
}

/// A name as DXP sends it: 32 characters, space padded.
pub fn padded(name: &str) -> String {
    format!("{name:<32.32}")
}

/// A received MOVE: (from, to, captured) as PDN numbers.
pub fn parse_move_message(text: &str) -> Option<(u32, u32, Vec<u32>)> {
    let digits = |range: std::ops::Range<usize>| text.get(range)?.parse::<u32>().ok();
    let (from, to, count) = (digits(5..7)?, digits(7..9)?, digits(9..11)? as usize);
    let captured = (0..count)
        .map(|i| digits(11 + 2 * i..13 + 2 * i))
        .collect::<Option<Vec<u32>>>()?;
    (text.len() == 11 + 2 * count).then_some((from, to, captured))
}

/// The legal move of `game` a received MOVE names, if any.
pub fn find_move<V: Rules>(game: &Game<V>, message: &str) -> Option<Move<V::Geometry>> {
    let (from, to, mut captured) = parse_move_message(message)?;
    captured.sort_unstable();
    game.legal_moves().iter().copied().find(|mv| {
        let mut ours: Vec<u32> = mv.captured().map(square_number::<V>).collect();
        ours.sort_unstable();
        square_number::<V>(mv.from()) == from
            && square_number::<V>(mv.to()) == to
            && ours == captured
    })
}

/// The MOVE message for `mv`, made in `seconds`.
pub fn move_message<V: Rules>(mv: &Move<V::Geometry>, seconds: u32) -> String {
    let mut captured: Vec<u32> = mv.captured().map(square_number::<V>).collect();
    captured.sort_unstable();
    let mut text = format!(
        "M{:04}{:02}{:02}{:02}",
        seconds.min(9999),
        square_number::<V>(mv.from()),
        square_number::<V>(mv.to()),
        captured.len()
    );
    for square in captured {
        text.push_str(&format!("{square:02}"));
    }
    text
}

/// The GAMEREQ asking the other side to play `follower` from `start` (`A` for the initial
/// position, else `B` with the side to move and the 50 squares), with `minutes` for `moves`
/// moves (0: for the whole game).
pub fn game_request<V: Rules>(
    name: &str,
    follower: Color,
    minutes: u32,
    moves: u32,
    start: &Position<V::Geometry>,
) -> String {
    let colour = if follower == Color::White { 'W' } else { 'Z' };
    let position = if *start == Position::initial::<V>() {
        "A".to_string()
    } else {
        // Hub positions use b/B for Black; DXP uses z/Z.
        let squares: String = to_hub::<V>(start)
            .chars()
            .map(|c| match c {
                'b' => 'z',
                'B' => 'Z',
                other => other,
            })
            .collect();
        format!("B{squares}")
    };
    format!(
        "R01{}{colour}{:03}{:03}{position}",
        padded(name),
        minutes.min(999),
        moves.min(999)
    )
}
