//! Our engines behind the Hub protocol (`damas hub`): the alpha-beta engine, or a network
//! searched by MCTS. The search runs on its own thread so that `stop` and `ping` are answered
//! while it thinks. The end of the input means quit: a running search is stopped and the
//! server returns.
//!
//! Where the protocol leaves room, the server behaves as follows.
//!
//! - Levels last until the next `level`, which replaces the whole previous one. A GUI that sends
//!   a level before each `go` (the Hub GUI, lidraughts) gets exactly that level; a second
//!   `go think` without a new `level` searches under the same limits again. `go think` before
//!   any `level`, or after a rejected one, answers an error line: it never searches until
//!   `stop` unless asked with `level infinite`. `go ponder` and `go analyze` search until `stop`
//!   (or `ponder-hit`) whatever the level.
//! - A rejected `pos` leaves no position: the error line comes at once, and every `go` answers
//!   an error line until a `pos` is accepted or `new-game` sets the start position, so the
//!   engine never searches the previous position silently. Lengths in its error are counted
//!   as typed, side to move included.
//! - `pos start` is the variant's start position (as in Scan), as is `pos` without `pos=`;
//!   `moves=` are played from it. Any other argument is refused.
//! - `info` lines use Scan's units for both engines: `score` in men for the side to move,
//!   `time` in seconds, `nps` in millions of nodes per second. The alpha-beta engine's score is
//!   its hundredths of a man over 100 (a forced result is ±(300 − plies to it / 100), so
//!   beyond ±290). For a network a node is one MCTS simulation, and the score is the root value
//!   v in [-1, 1] in men, 3·atanh(v): the inverse of the `tanh(score / 3 men)` that turns
//!   engine scores into values elsewhere, at most about ±14.9 men. The value itself is an
//!   extra `value=` field.
//! - A network searched by the clock (`move-time`, `time`, `infinite`, pondering) searches on
//!   from the tree of its last search when the new `pos` continues that game (the same start
//!   and its moves, then more); `nodes` counts the root's visits, those kept included, and
//!   `nps` only the new ones. `level nodes=N` searches afresh, so N means the same every move.

use super::session::{NewAlphaBeta, NewMcts, Session};
use super::{Message, MessageError, error_line};
use damas_engine::{Clock, Limits};
use damas_models::{ModelError, model_variant};
use damas_nn::Device;
use damas_rules::{ParseFenError, ParseMoveError, Variant};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Where the engine's lines go, shared by the reading loop and the search thread. A reader that
/// has gone away is not an error: the lines are dropped and the end of the input ends the
/// session.
#[derive(Clone)]
pub struct Lines(Arc<Mutex<Box<dyn Write + Send>>>);

impl Lines {
    /// Lines written to `sink`, each flushed.
    pub fn new(sink: impl Write + Send + 'static) -> Self {
        Lines(Arc::new(Mutex::new(Box::new(sink))))
    }

    /// Writes one line.
    pub fn say(&self, line: &str) {
        let mut sink = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let _ = writeln!(sink, "{line}").and_then(|_| sink.flush());
    }
}

/// How the server plays.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// Transposition table size of the alpha-beta engine in MiB (also the `tt-size` parameter).
    pub tt_megabytes: usize,
    /// A network (checkpoint directory or ONNX file) to play with MCTS instead of alpha-beta;
    /// the variant is then the model's.
    pub model: Option<PathBuf>,
    /// The device a checkpoint's network runs on.
    pub device: Device,
    /// An endgame database root the alpha-beta engine probes (a variant without tables there
    /// plays without, and says so in an `error` line).
    pub egdb: Option<PathBuf>,
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The model does not open.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The input could not be read.
    #[error("cannot read the input")]
    Input(#[source] std::io::Error),
}

/// Why a command is answered with an `error` line instead of being carried out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// The line is not a Hub message.
    #[error("cannot read `{line}`: {reason}")]
    Unreadable {
        /// The line as received.
        line: String,
        /// What is wrong with it.
        reason: MessageError,
    },
    /// A command this server does not know.
    #[error("unknown command `{0}`")]
    UnknownCommand(String),
    /// `set-param` without its name or value.
    #[error("set-param needs name= and value=")]
    SetParamArguments,
    /// A parameter this server does not have.
    #[error("unknown parameter `{0}`")]
    UnknownParameter(String),
    /// `set-param name=variant` after `init`.
    #[error("the variant can only be set before init")]
    VariantAfterInit,
    /// A variant name that is not one.
    #[error("{0}")]
    UnknownVariant(String),
    /// A variant other than the model's.
    #[error("the model plays {model}, not {asked}")]
    ModelVariant {
        /// The model's variant.
        model: &'static str,
        /// The variant asked for.
        asked: &'static str,
    },
    /// A transposition table size out of range.
    #[error("tt-size must be 1..4096, not `{0}`")]
    TtSize(String),
    /// A game command before `init`.
    #[error("`{0}` before init")]
    BeforeInit(String),
    /// A command that needs the engine idle, sent while it searches.
    #[error("`{0}` while searching: send stop first")]
    WhileSearching(String),
    /// `pos=` is not a Hub position (of the wrong length, counted as typed, or with a bad
    /// character).
    #[error("bad position: {0}")]
    Position(ParseFenError),
    /// A move of `moves=` is not legal where it is played.
    #[error("bad move: {0}")]
    Move(ParseMoveError),
    /// `start` given a value.
    #[error(
        "`start={0}`: `start` takes no value (`pos start` is the variant's start position; a \
         Hub position goes in `pos=`)"
    )]
    StartValue(String),
    /// Both `start` and `pos=`.
    #[error("`pos start` and `pos=` both give the position: send one of them")]
    StartAndPosition,
    /// An argument `pos` does not take.
    #[error("unknown pos argument `{0}`: expected `pos=`, `moves=` or `start`")]
    PosArgument(String),
    /// `go` after a rejected `pos`.
    #[error(
        "no position to search: the last pos was rejected; send pos again (or new-game for the \
         start position)"
    )]
    NoPosition,
    /// A `level` key or flag this server does not know.
    #[error("unknown level `{0}`")]
    UnknownLevel(String),
    /// A `level` time that is not a number of seconds.
    #[error("`{key}={value}` is not a time in seconds")]
    LevelTime {
        /// The key.
        key: &'static str,
        /// Its value as given.
        value: String,
    },
    /// A `level` count that is not a whole number.
    #[error("`{key}={value}` is not a number")]
    LevelNumber {
        /// The key.
        key: &'static str,
        /// Its value as given.
        value: String,
    },
    /// `level` with nothing in it.
    #[error("level needs depth=, nodes=, move-time=, time= (with inc=, moves=) or infinite")]
    EmptyLevel,
    /// `level infinite` with limits.
    #[error("`level infinite` takes no limits")]
    InfiniteWithLimits,
    /// `inc=` or `moves=` without `time=`.
    #[error("`inc=` and `moves=` need `time=`, the time left on the clock")]
    ClockWithoutTime,
    /// `depth=` for a network, whose search has no depth.
    #[error("a network's search has no depth: use nodes= (simulations), move-time= or time=")]
    DepthForNetwork,
    /// `go think` before any `level`.
    #[error(
        "go think needs a level first: `level move-time=1`, `level depth=8`, `level nodes=N`, \
         `level time=T inc=I`, or `level infinite` to search until stop"
    )]
    NoLevel,
    /// `go think` after a rejected `level`.
    #[error("no level: the last level was rejected; send level again before go think")]
    LevelRejected,
    /// A `go` mode other than think, ponder and analyze.
    #[error("unknown go mode `{0}`: expected think, ponder or analyze")]
    GoMode(String),
}

/// What a `pos` command asks for: a Hub position (none: the variant's start) and the moves
/// played from it.
fn pos_arguments(message: &Message) -> Result<(Option<&str>, Vec<&str>), CommandError> {
    let mut keys: Vec<&String> = message.values.keys().collect();
    keys.sort();
    for key in keys {
        match key.as_str() {
            "pos" | "moves" => {}
            "start" => return Err(CommandError::StartValue(message.values[key].clone())),
            other => return Err(CommandError::PosArgument(other.to_string())),
        }
    }
    let mut start = false;
    for flag in &message.flags {
        match flag.as_str() {
            "start" => start = true,
            other => return Err(CommandError::PosArgument(other.to_string())),
        }
    }
    let position = message.value("pos");
    if start && position.is_some() {
        return Err(CommandError::StartAndPosition);
    }
    let moves = message
        .value("moves")
        .map(|m| m.split_whitespace().collect())
        .unwrap_or_default();
    Ok((position, moves))
}

/// The keys `level` takes.
const LEVEL_KEYS: [&str; 6] = ["depth", "nodes", "move-time", "time", "inc", "moves"];

/// The limits a `level` command sets (`level infinite`: none).
fn parse_level(message: &Message) -> Result<Limits, CommandError> {
    let unknown_key = message
        .values
        .keys()
        .filter(|k| !LEVEL_KEYS.contains(&k.as_str()))
        .min();
    let unknown_flag = message.flags.iter().find(|f| f.as_str() != "infinite");
    if let Some(unknown) = unknown_key.or(unknown_flag) {
        return Err(CommandError::UnknownLevel(unknown.clone()));
    }
    if !message.flags.is_empty() {
        return match message.values.is_empty() {
            true => Ok(Limits::default()),
            false => Err(CommandError::InfiniteWithLimits),
        };
    }
    if message.values.is_empty() {
        return Err(CommandError::EmptyLevel);
    }
    let seconds = |key: &'static str| -> Result<Option<Duration>, CommandError> {
        message
            .value(key)
            .map(|v| {
                v.parse::<f64>()
                    .ok()
                    .and_then(|s| Duration::try_from_secs_f64(s).ok())
                    .ok_or_else(|| CommandError::LevelTime {
                        key,
                        value: v.to_string(),
                    })
            })
            .transpose()
    };
    let number = |key: &'static str| -> Result<Option<u64>, CommandError> {
        message
            .value(key)
            .map(|v| {
                v.parse::<u64>().map_err(|_| CommandError::LevelNumber {
                    key,
                    value: v.to_string(),
                })
            })
            .transpose()
    };
    let count = |key: &'static str| -> Result<Option<u32>, CommandError> {
        number(key)?
            .map(|n| {
                u32::try_from(n).map_err(|_| CommandError::LevelNumber {
                    key,
                    value: n.to_string(),
                })
            })
            .transpose()
    };
    let mut limits = Limits {
        depth: count("depth")?,
        nodes: number("nodes")?,
        move_time: seconds("move-time")?,
        clock: None,
    };
    let increment = seconds("inc")?;
    let moves_to_go = count("moves")?;
    match seconds("time")? {
        Some(remaining) => {
            limits.clock = Some(Clock {
                remaining,
                increment: increment.unwrap_or_default(),
                moves_to_go,
            });
        }
        None if increment.is_some() || moves_to_go.is_some() => {
            return Err(CommandError::ClockWithoutTime);
        }
        None => {}
    }
    Ok(limits)
}

/// The limits `go think` searches under: set by `level`, kept until the next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    /// No `level` yet.
    Unset,
    /// The last `level` was rejected.
    Rejected,
    /// The last `level`'s limits (none for `level infinite`).
    Set(Limits),
}

/// The running search: its thread, its stop flag, and whether it has answered.
struct Running {
    handle: JoinHandle<()>,
    stop: Arc<AtomicBool>,
    answered: Arc<AtomicBool>,
}

impl Running {
    fn is_over(&self) -> bool {
        self.handle.is_finished() || self.answered.load(Ordering::SeqCst)
    }

    /// Stops the search and waits for its thread.
    fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.handle.join();
    }
}

/// Whether the session goes on after a command.
enum Flow {
    Continue,
    Quit,
}

/// One Hub session between commands.
struct Server<'a> {
    lines: &'a Lines,
    options: &'a ServerOptions,
    variant: Variant,
    tt: usize,
    /// The engine, from `init` on.
    session: Option<Box<dyn Session>>,
    /// With a model: its session, ready before `init`.
    model_session: Option<Box<dyn Session>>,
    level: Level,
    /// The last `pos` was rejected: no position to search.
    no_position: bool,
    search: Option<Running>,
}

impl<'a> Server<'a> {
    fn new(lines: &'a Lines, options: &'a ServerOptions) -> Result<Self, ServeError> {
        let mut variant = Variant::International;
        let mut model_session = None;
        // With a model, the variant is the model's and its session is ready before `init`.
        if let Some(path) = &options.model {
            variant = model_variant(path)?;
            model_session = Some(variant.visit(NewMcts {
                path,
                device: &options.device,
                lines: lines.clone(),
            })?);
        }
        Ok(Server {
            lines,
            options,
            variant,
            tt: options.tt_megabytes,
            session: None,
            model_session,
            level: Level::Unset,
            no_position: false,
            search: None,
        })
    }

    /// Collects a search thread that has finished.
    fn collect_finished(&mut self) {
        if self.search.as_ref().is_some_and(Running::is_over)
            && let Some(running) = self.search.take()
        {
            let _ = running.handle.join();
        }
    }

    /// Stops the running search, if any, and waits for it.
    fn stop_search(&mut self) {
        if let Some(running) = self.search.take() {
            running.stop();
        }
    }

    fn command(&mut self, message: &Message) -> Result<Flow, CommandError> {
        match message.command.as_str() {
            "hub" => self.introduce(),
            "set-param" => self.set_param(message)?,
            "init" => self.init(),
            "ping" => self.lines.say("pong"),
            // The engine does not ponder on the opponent's time: on a ponder hit it answers at
            // once with the best move found so far, as on stop.
            "stop" | "ponder-hit" => {
                if let Some(running) = &self.search {
                    running.stop.store(true, Ordering::SeqCst);
                }
            }
            "quit" => return Ok(Flow::Quit),
            command @ ("new-game" | "pos" | "level" | "go") => {
                self.game_command(command, message)?
            }
            other => return Err(CommandError::UnknownCommand(other.to_string())),
        }
        Ok(Flow::Continue)
    }

    fn introduce(&self) {
        self.lines.say(&format!(
            "id name=damas version={} author=\"Damas Zero\" country=\"\"",
            env!("CARGO_PKG_VERSION")
        ));
        let names: Vec<&str> = Variant::ALL.iter().map(|&v| v.hub_name()).collect();
        self.lines.say(&format!(
            "param name=variant value={} type=enum values=\"{}\"",
            self.variant.hub_name(),
            names.join(" ")
        ));
        self.lines.say(&format!(
            "param name=tt-size value={} type=int min=1 max=4096",
            self.tt
        ));
        self.lines.say("wait");
    }

    fn set_param(&mut self, message: &Message) -> Result<(), CommandError> {
        let (Some(name), Some(value)) = (message.value("name"), message.value("value")) else {
            return Err(CommandError::SetParamArguments);
        };
        match name {
            "variant" if self.session.is_some() => Err(CommandError::VariantAfterInit),
            "variant" => {
                let asked = value
                    .parse::<Variant>()
                    .map_err(|e| CommandError::UnknownVariant(e.to_string()))?;
                if self.options.model.is_some() && asked != self.variant {
                    return Err(CommandError::ModelVariant {
                        model: self.variant.name(),
                        asked: asked.name(),
                    });
                }
                self.variant = asked;
                Ok(())
            }
            "tt-size" => match value.parse::<usize>() {
                Ok(size) if (1..=4096).contains(&size) => {
                    self.tt = size;
                    Ok(())
                }
                _ => Err(CommandError::TtSize(value.to_string())),
            },
            other => Err(CommandError::UnknownParameter(other.to_string())),
        }
    }

    fn init(&mut self) {
        // A search still running would otherwise answer, and keep its tree, for the session
        // replaced here.
        self.stop_search();
        self.session = Some(match (self.model_session.take(), self.session.take()) {
            (Some(model), _) => model,
            // A second `init` with a model: its session stays, with a new game.
            (None, Some(mut same)) if self.options.model.is_some() => {
                same.new_game();
                same
            }
            _ => self.variant.visit(NewAlphaBeta {
                tt: self.tt,
                egdb: self.options.egdb.as_deref(),
                lines: self.lines.clone(),
            }),
        });
        self.no_position = false;
        self.lines.say("ready");
    }

    /// `new-game`, `pos`, `level` and `go`, which need `init` first.
    fn game_command(&mut self, command: &str, message: &Message) -> Result<(), CommandError> {
        let Some(active) = self.session.as_mut() else {
            return Err(CommandError::BeforeInit(command.to_string()));
        };
        if self.search.is_some() && command != "level" {
            return Err(CommandError::WhileSearching(command.to_string()));
        }
        match command {
            "new-game" => {
                active.new_game();
                self.no_position = false;
            }
            "pos" => {
                let result = pos_arguments(message)
                    .and_then(|(position, moves)| active.set_position(position, &moves));
                self.no_position = result.is_err();
                result?;
            }
            "level" => {
                let result = parse_level(message).and_then(|limits| {
                    active.check_level(&limits)?;
                    Ok(limits)
                });
                self.level = match result {
                    Ok(limits) => Level::Set(limits),
                    Err(_) => Level::Rejected,
                };
                result?;
            }
            _ => {
                let mode = message.flags.first().map(String::as_str).unwrap_or("think");
                let limits = match (mode, self.level) {
                    ("think", Level::Set(limits)) => limits,
                    ("think", Level::Unset) => return Err(CommandError::NoLevel),
                    ("think", Level::Rejected) => return Err(CommandError::LevelRejected),
                    ("ponder" | "analyze", _) => Limits::default(),
                    (other, _) => return Err(CommandError::GoMode(other.to_string())),
                };
                if self.no_position {
                    return Err(CommandError::NoPosition);
                }
                let answered = Arc::new(AtomicBool::new(false));
                self.search = Some(Running {
                    stop: active.stop_handle(),
                    handle: active.go(limits, answered.clone()),
                    answered,
                });
            }
        }
        Ok(())
    }
}

/// Serves one Hub session: reads commands from `input` until `quit` or its end, answers on
/// `lines` (a command that cannot be carried out is answered with an `error` line).
pub fn serve(
    input: impl BufRead,
    lines: &Lines,
    options: &ServerOptions,
) -> Result<(), ServeError> {
    let mut server = Server::new(lines, options)?;
    let mut input = input;
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        match input.read_until(b'\n', &mut bytes) {
            Ok(0) => break,
            Ok(_) => {}
            Err(error) => {
                server.stop_search();
                return Err(ServeError::Input(error));
            }
        }
        // Bytes that are not UTF-8 are replaced, not fatal: the line is answered like any other.
        let line = String::from_utf8_lossy(&bytes);
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        // A finished search thread is collected before the next command.
        server.collect_finished();
        let outcome = Message::parse(line)
            .map_err(|reason| CommandError::Unreadable {
                line: line.to_string(),
                reason,
            })
            .and_then(|message| server.command(&message));
        match outcome {
            Ok(Flow::Continue) => {}
            Ok(Flow::Quit) => break,
            Err(error) => lines.say(&error_line(error)),
        }
    }
    server.stop_search();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(line: &str) -> Message {
        Message::parse(line).expect("a message")
    }

    #[test]
    fn levels_are_whole_and_explicit() {
        assert_eq!(
            parse_level(&message("level infinite")),
            Ok(Limits::default())
        );
        assert_eq!(parse_level(&message("level depth=3")), Ok(Limits::depth(3)));
        let clock = parse_level(&message("level time=60 inc=1 moves=40")).unwrap();
        assert_eq!(
            clock.clock,
            Some(Clock {
                remaining: Duration::from_secs(60),
                increment: Duration::from_secs(1),
                moves_to_go: Some(40),
            })
        );
        for (line, error) in [
            ("level", CommandError::EmptyLevel),
            ("level depth=2 infinite", CommandError::InfiniteWithLimits),
            ("level inc=1", CommandError::ClockWithoutTime),
            ("level soon", CommandError::UnknownLevel("soon".into())),
            (
                "level depth=5000000000",
                CommandError::LevelNumber {
                    key: "depth",
                    value: "5000000000".into(),
                },
            ),
        ] {
            assert_eq!(parse_level(&message(line)), Err(error), "{line}");
        }
    }

    #[test]
    fn pos_takes_a_position_or_start_and_moves() {
        let start = message("pos start moves=\"32-28 19-23\"");
        assert_eq!(pos_arguments(&start), Ok((None, vec!["32-28", "19-23"])));
        assert_eq!(
            pos_arguments(&message("pos start=W")),
            Err(CommandError::StartValue("W".into()))
        );
        assert_eq!(
            pos_arguments(&message("pos start pos=W")),
            Err(CommandError::StartAndPosition)
        );
        assert_eq!(
            pos_arguments(&message("pos fen=W:W28:B23")),
            Err(CommandError::PosArgument("fen".into()))
        );
    }
}
