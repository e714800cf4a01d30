//! An outside engine speaking the Hub protocol, launched as a child process.
//!
//! Per game the engine gets `new-game`; per move `pos pos=<start> moves="<moves so far>"`,
//! `level move-time=<seconds>` and `go think`, and must answer `done move=<move>` in time. A
//! crash, a hang past the time limit, or a malformed or illegal move forfeits the game; the
//! engine is started afresh for the next one.

use super::Message;
use crate::player::{Answer, Forfeit, Player};
use damas_rules::notation::hub as hub_move;
use damas_rules::{Game, Rules, parse_move, try_to_hub};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// A running engine process.
struct Engine {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "quit");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A Hub engine as a player.
pub struct HubPlayer {
    command: String,
    variant: &'static str,
    move_time: Duration,
    engine: Option<Engine>,
}

impl HubPlayer {
    /// A player that runs `command` (through `sh -c`) for the variant the Hub calls `variant`
    /// (`Rules::HUB_NAME`), giving it `move_time` per move (it forfeits after three times that
    /// plus five seconds).
    pub fn new(command: &str, variant: &'static str, move_time: Duration) -> Self {
        HubPlayer {
            command: command.to_string(),
            variant,
            move_time,
            engine: None,
        }
    }

    fn start(&mut self) -> Result<&mut Engine, Forfeit> {
        if self.engine.is_none() {
            let mut child = Command::new("sh")
                .arg("-c")
                .arg(&self.command)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| Forfeit(format!("cannot start `{}`: {e}", self.command)))?;
            let input = child.stdin.take().expect("piped stdin");
            let output = child.stdout.take().expect("piped stdout");
            let (sender, lines) = channel();
            std::thread::spawn(move || {
                for line in BufReader::new(output).lines() {
                    let Ok(line) = line else { break };
                    if sender.send(line).is_err() {
                        break;
                    }
                }
            });
            let mut engine = Engine {
                child,
                input,
                lines,
            };
            let limit = Duration::from_secs(10);
            send(&mut engine, "hub")?;
            wait_for(&mut engine, "wait", limit)?;
            if self.variant != "normal" {
                let set = Message::new("set-param")
                    .with("name", "variant")
                    .with("value", self.variant);
                send(&mut engine, &set.to_string())?;
            }
            send(&mut engine, "init")?;
            wait_for(&mut engine, "ready", limit)?;
            self.engine = Some(engine);
        }
        Ok(self.engine.as_mut().expect("just started"))
    }
}

fn send(engine: &mut Engine, line: &str) -> Result<(), Forfeit> {
    writeln!(engine.input, "{line}")
        .and_then(|_| engine.input.flush())
        .map_err(|_| Forfeit("the engine exited".into()))
}

/// Reads lines until one starting with `word`; returns it.
fn wait_for(engine: &mut Engine, word: &str, limit: Duration) -> Result<String, Forfeit> {
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match engine.lines.recv_timeout(left) {
            Ok(line) if line.split_whitespace().next() == Some(word) => return Ok(line),
            // Info lines, and errors about optional parameters, are not answers.
            Ok(_) => {}
            Err(RecvTimeoutError::Timeout) => {
                return Err(Forfeit(format!(
                    "no `{word}` from the engine within {:.1}s",
                    limit.as_secs_f64()
                )));
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Forfeit("the engine exited".into()));
            }
        }
    }
}

impl<V: Rules> Player<V> for HubPlayer {
    fn new_game(&mut self) {
        let healthy = self
            .engine
            .as_mut()
            .is_some_and(|engine| send(engine, "new-game").is_ok());
        if !healthy {
            self.engine = None;
        }
    }

    fn play(&mut self, game: &Game<V>) -> Result<Answer<V>, Forfeit> {
        let move_time = self.move_time;
        let result = (|| {
            let engine = self.start()?;
            let moves: Vec<String> = game.moves().iter().map(hub_move::<V>).collect();
            let start = try_to_hub::<V>(game.start()).map_err(|e| Forfeit(e.to_string()))?;
            let pos = Message::new("pos")
                .with("pos", start)
                .with("moves", moves.join(" "));
            send(engine, &pos.to_string())?;
            let level =
                Message::new("level").with("move-time", format!("{:.3}", move_time.as_secs_f64()));
            send(engine, &level.to_string())?;
            send(engine, "go think")?;
            let limit = move_time * 3 + Duration::from_secs(5);
            let done = wait_for(engine, "done", limit)?;
            let message =
                Message::parse(&done).map_err(|e| Forfeit(format!("cannot read `{done}`: {e}")))?;
            let text = message
                .value("move")
                .ok_or_else(|| Forfeit(format!("no move in `{done}`")))?;
            let mv = parse_move::<V>(game.position(), text)
                .map_err(|e| Forfeit(format!("bad move `{text}`: {e}")))?;
            Ok(Answer::bare(mv))
        })();
        if result.is_err() {
            // Whatever state the engine is in, the next game starts a fresh one.
            self.engine = None;
        }
        result
    }
}
