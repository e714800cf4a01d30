//! An engine listening for DXP games, as an arena player: one connection per game, the game
//! offered with a GAMEREQ from the opening, the other side's moves sent as MOVE messages, and
//! the game closed by the protocol's handshake (each side sends a GAMEEND and answers the
//! other's) before the connection is, so the engine is free for the next game.

use super::{Link, find_move, game_request, move_message};
use crate::player::{Answer, Forfeit, Player};
use damas_rules::{Color, Game, Geometry, Outcome, Rules};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// How long to wait for the engine's GAMEACC, and for its GAMEEND at the end of a game.
const HANDSHAKE: Duration = Duration::from_secs(5);

/// The time control announced in GAMEREQ for `move_time` per move: whole minutes (at least one)
/// for a number of moves chosen so the share per move matches (`(minutes, moves)`).
pub fn time_control(move_time: Duration) -> (u32, u32) {
    let seconds = move_time.as_secs_f64().max(0.001);
    let minutes = (seconds / 60.0).ceil().clamp(1.0, 999.0);
    let moves = (minutes * 60.0 / seconds).round().clamp(1.0, 999.0);
    (minutes as u32, moves as u32)
}

/// The next message, if it comes before `deadline` (an engine that floods the connection with
/// other messages still runs out of time).
fn receive_before(link: &mut Link, deadline: Instant) -> std::io::Result<Option<String>> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(std::io::ErrorKind::TimedOut.into());
    }
    link.set_timeout(Some(left))?;
    link.receive()
}

/// A DXP engine at an address, as a player.
pub struct DxpPlayer {
    address: String,
    move_time: Duration,
    /// The connection of the game in progress.
    link: Option<Link>,
    /// The colour the engine plays in it.
    colour: Color,
    /// Moves of the current game the engine already knows.
    known: usize,
}

impl DxpPlayer {
    /// A player for the engine at `address`, given `move_time` per move (announced as a time
    /// control, see [`time_control`]); it forfeits if a move takes more than three times that
    /// plus five seconds.
    pub fn new(address: &str, move_time: Duration) -> Self {
        DxpPlayer {
            address: address.to_string(),
            move_time,
            link: None,
            colour: Color::White,
            known: 0,
        }
    }

    /// What the engine is told it has, in words.
    pub fn describe_time(move_time: Duration) -> String {
        let (minutes, moves) = time_control(move_time);
        format!(
            "GAMEREQ {minutes} min for {moves} moves ({:.2} s/move)",
            f64::from(minutes) * 60.0 / f64::from(moves)
        )
    }

    fn connect<V: Rules>(&mut self, game: &Game<V>) -> Result<&mut Link, Forfeit> {
        if self.link.is_none() {
            let fail = |e: std::io::Error| Forfeit(format!("DXP {}: {e}", self.address));
            let stream = TcpStream::connect(&self.address).map_err(fail)?;
            let mut link = Link::new(stream, false).map_err(fail)?;
            // The engine plays the side to move now, from the game's start.
            let engine = game.position().turn();
            let (minutes, moves) = time_control(self.move_time);
            link.send(&game_request::<V>(
                "damas arena",
                engine,
                minutes,
                moves,
                game.start(),
            ))
            .map_err(fail)?;
            // Engines may chat before they answer: the answer is the GAMEACC.
            let deadline = Instant::now() + HANDSHAKE;
            let reply = loop {
                let message = receive_before(&mut link, deadline)
                    .map_err(fail)?
                    .ok_or_else(|| Forfeit("DXP engine closed the connection".into()))?;
                if message.starts_with('A') {
                    break message;
                }
            };
            match reply.get(33..34) {
                Some("0") => {}
                code => {
                    return Err(Forfeit(format!(
                        "DXP engine refused the game (GAMEACC code {})",
                        code.unwrap_or("missing")
                    )));
                }
            }
            self.link = Some(link);
            self.colour = engine;
            self.known = 0;
        }
        Ok(self.link.as_mut().expect("just connected"))
    }

    /// Ends the game in progress on the engine's side: the moves it has not seen, our GAMEEND,
    /// and its answer, then the connection closes.
    fn close_game<V: Rules>(&mut self, game: &Game<V>, outcome: Option<Outcome>) {
        let Some(mut link) = self.link.take() else {
            return;
        };
        for mv in &game.moves()[self.known.min(game.moves().len())..] {
            if link.send(&move_message::<V>(mv, 0)).is_err() {
                return;
            }
        }
        // Our reason, from our side (the engine's opponent): 1 we lose, 2 draw, 3 we win.
        let reason = match outcome {
            Some(Outcome::Win { winner, .. }) if winner == self.colour => '1',
            Some(Outcome::Win { .. }) => '3',
            Some(Outcome::Draw(_)) => '2',
            None => '0',
        };
        if link.send(&format!("E{reason}0")).is_err() {
            return;
        }
        let deadline = Instant::now() + HANDSHAKE;
        while let Ok(Some(message)) = receive_before(&mut link, deadline) {
            match message.chars().next() {
                Some('E') => return,
                Some('B') if link.send("K1").is_err() => return,
                _ => {}
            }
        }
    }
}

impl<V: Rules> Player<V> for DxpPlayer {
    fn new_game(&mut self) {
        // A game left open (it should not be) is ended before the next one.
        if self.link.is_some() {
            self.close_game::<V>(&Game::new(), None);
        }
    }

    fn game_over(&mut self, game: &Game<V>, outcome: Outcome) {
        self.close_game(game, Some(outcome));
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
            let lost = |e: std::io::Error| match e.kind() {
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => Forfeit(format!(
                    "DXP engine: no move within {:.1}s (timed out)",
                    limit.as_secs_f64()
                )),
                _ => Forfeit(format!("DXP engine: {e}")),
            };
            for mv in &game.moves()[known.min(game.moves().len())..] {
                link.send(&move_message::<V>(mv, 0)).map_err(lost)?;
            }
            let deadline = Instant::now() + limit;
            loop {
                let message = receive_before(link, deadline)
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
                Ok(Answer::bare(mv))
            }
            Err(forfeit) => {
                // The game is lost either way; tell the engine it is over, if it still listens.
                self.close_game::<V>(game, None);
                Err(forfeit)
            }
        }
    }
}
