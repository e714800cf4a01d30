//! DXP (the 10x10 draughts exchange protocol over TCP): the wire format shared by `damas dxp`,
//! and [`DxpPlayer`], an engine already listening for games, as an arena player.
//!
//! Messages are NUL-terminated text: GAMEREQ `R`, GAMEACC `A`, MOVE `M`, GAMEEND `E`, CHAT `C`,
//! BACKREQ `B`, BACKACC `K`.

use crate::player::{Answer, Forfeit, Player};
use damas_rules::notation::square_number;
use damas_rules::{Color, Game, Geometry, Move, Position, Rules, to_hub};
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
        self.writer.write_all(message.as_bytes())?;
        self.writer.write_all(&[0])?;
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
/// position, else `B` with the side to move and the 50 squares).
pub fn game_request<V: Rules>(
    name: &str,
    follower: Color,
    minutes: u32,
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
        "R01{}{colour}{:03}000{position}",
        padded(name),
        minutes.min(999)
    )
}

/// A DXP engine listening at an address, as a player: one connection per game, the game
/// offered with a GAMEREQ from the opening, the other side's moves sent as MOVE messages.
pub struct DxpPlayer {
    address: String,
    move_time: Duration,
    link: Option<Link>,
    /// Moves of the current game the engine already knows.
    known: usize,
}

impl DxpPlayer {
    /// A player for the engine at `address`; it forfeits if a move takes more than three
    /// times `move_time` plus five seconds.
    pub fn new(address: &str, move_time: Duration) -> Self {
        DxpPlayer {
            address: address.to_string(),
            move_time,
            link: None,
            known: 0,
        }
    }

    fn connect<V: Rules>(&mut self, game: &Game<V>) -> Result<&mut Link, Forfeit> {
        if self.link.is_none() {
            let fail = |e: std::io::Error| Forfeit(format!("DXP {}: {e}", self.address));
            let stream = TcpStream::connect(&self.address).map_err(fail)?;
            let mut link = Link::new(stream, false).map_err(fail)?;
            // The engine plays the side to move now, from the game's start.
            let engine = game.position().turn();
            let minutes = (self.move_time.as_secs_f64() * 100.0 / 60.0).ceil() as u32;
            link.send(&game_request::<V>(
                "damas arena",
                engine,
                minutes.max(1),
                game.start(),
            ))
            .map_err(fail)?;
            link.set_timeout(Some(Duration::from_secs(10)))
                .map_err(fail)?;
            let reply = link
                .receive()
                .map_err(fail)?
                .ok_or_else(|| Forfeit("DXP engine closed the connection".into()))?;
            if !reply.starts_with('A') || reply.get(33..34) != Some("0") {
                return Err(Forfeit(format!("DXP engine refused the game: `{reply}`")));
            }
            self.link = Some(link);
            self.known = 0;
        }
        Ok(self.link.as_mut().expect("just connected"))
    }
}

impl<V: Rules> Player<V> for DxpPlayer {
    fn new_game(&mut self) {
        if let Some(mut link) = self.link.take() {
            let _ = link.send("E00");
        }
    }

    fn play(&mut self, game: &Game<V>) -> Result<Answer<V>, Forfeit> {
        if V::Geometry::SQUARES != 50 {
            return Err(Forfeit("DXP is played on 10x10 boards only".into()));
        }
        let limit = self.move_time * 3 + Duration::from_secs(5);
        if self.link.is_none() {
            self.known = 0;
        }
        let known = self.known;
        let result = (|| {
            let link = self.connect(game)?;
            let lost = |e: std::io::Error| Forfeit(format!("DXP engine: {e}"));
            for mv in &game.moves()[known.min(game.moves().len())..] {
                link.send(&move_message::<V>(mv, 0)).map_err(lost)?;
            }
            link.set_timeout(Some(limit)).map_err(lost)?;
            loop {
                let message = link
                    .receive()
                    .map_err(lost)?
                    .ok_or_else(|| Forfeit("DXP engine closed the connection".into()))?;
                match message.chars().next() {
                    Some('M') => {
                        return find_move(game, &message).ok_or_else(|| {
                            Forfeit(format!("illegal or malformed move `{message}`"))
                        });
                    }
                    Some('E') => {
                        return Err(Forfeit(format!("DXP engine ended the game: `{message}`")));
                    }
                    Some('B') => link.send("K1").map_err(lost)?,
                    _ => {}
                }
            }
        })();
        match result {
            Ok(mv) => {
                self.known = game.moves().len() + 1;
                Ok(Answer { mv, score: None })
            }
            Err(forfeit) => {
                self.link = None;
                Err(forfeit)
            }
        }
    }
}
