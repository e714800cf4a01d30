//! `damas hub`: the alpha-beta engine, or with `--model` a network searched by MCTS, behind the
//! Hub protocol (Scan 3.x, lidraughts), one line per message on standard input and output. The
//! search runs on its own thread so that `stop` and `ping` are answered while it thinks.

use damas_engine::{Clock, EngineConfig, Limits, SearchInfo, Searcher};
use damas_rules::notation::hub as hub_move;
use damas_rules::{Game, Rules, Variant, VariantVisitor, parse_hub, parse_move};
use std::collections::HashMap;
use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Arguments of `damas hub`.
#[derive(clap::Args)]
pub struct Args {
    /// Transposition table size in MiB (also the `tt-size` parameter).
    #[arg(long, default_value_t = 64)]
    tt: usize,
    /// Play with this network (checkpoint directory or exported ONNX file) searched by MCTS
    /// instead of alpha-beta. The variant is the model's. `level nodes=N` sets the simulations,
    /// `move-time` and `time` budget the search, `depth` does not apply.
    #[arg(long)]
    model: Option<std::path::PathBuf>,
}

/// One protocol line split into its command and its `key=value` / `key="quoted"` / flag words.
struct Message {
    command: String,
    values: HashMap<String, String>,
    flags: Vec<String>,
}

fn parse_message(line: &str) -> Result<Message, String> {
    let mut words = Vec::new();
    let mut chars = line.trim().chars().peekable();
    while chars.peek().is_some() {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let mut word = String::new();
        let mut quoted = false;
        while let Some(&c) = chars.peek() {
            if c == '"' {
                quoted = !quoted;
                chars.next();
            } else if c.is_whitespace() && !quoted {
                break;
            } else {
                word.push(c);
                chars.next();
            }
        }
        if quoted {
            return Err("unterminated quote".into());
        }
        if !word.is_empty() {
            words.push(word);
        }
    }
    let mut words = words.into_iter();
    let command = words.next().ok_or("empty line")?;
    let mut values = HashMap::new();
    let mut flags = Vec::new();
    for word in words {
        match word.split_once('=') {
            Some((key, value)) => {
                values.insert(key.to_string(), value.to_string());
            }
            None => flags.push(word),
        }
    }
    Ok(Message {
        command,
        values,
        flags,
    })
}

/// Prints an `error` line; the engine stays up.
fn error(text: impl std::fmt::Display) {
    println!("error message=\"{}\"", text.to_string().replace('"', "'"));
}

/// The parts of the protocol that depend on the variant and the engine.
pub(crate) trait Session {
    fn new_game(&mut self);
    fn set_position(&mut self, position: Option<&str>, moves: &[&str]) -> Result<(), String>;
    /// Starts a search on its own thread; `answered` is set just before `done` is printed.
    fn go(&mut self, limits: Limits, answered: Arc<AtomicBool>) -> JoinHandle<()>;
    fn stop_handle(&self) -> Arc<AtomicBool>;
}

struct VariantSession<V: Rules> {
    game: Game<V>,
    searcher: Arc<Mutex<Searcher<V>>>,
    stop: Arc<AtomicBool>,
}

impl<V: Rules> Session for VariantSession<V> {
    fn new_game(&mut self) {
        self.game = Game::new();
        self.searcher.lock().expect("searcher lock").clear();
    }

    fn set_position(&mut self, position: Option<&str>, moves: &[&str]) -> Result<(), String> {
        self.game = game_from(position, moves)?;
        Ok(())
    }

    fn go(&mut self, limits: Limits, answered: Arc<AtomicBool>) -> JoinHandle<()> {
        let searcher = Arc::clone(&self.searcher);
        let game = self.game.clone();
        std::thread::spawn(move || {
            let mut searcher = searcher.lock().expect("searcher lock");
            let result = searcher.search(&game, &limits, print_info::<V>);
            // The GUI may send its next command as soon as it reads `done`: the main loop must
            // already see this search as over by then.
            answered.store(true, Ordering::SeqCst);
            match result.best {
                Some(best) => {
                    let ponder = result
                        .ponder
                        .map(|mv| format!(" ponder={}", hub_move::<V>(&mv)))
                        .unwrap_or_default();
                    println!("done move={}{ponder}", hub_move::<V>(&best));
                }
                None => println!("done"),
            }
        })
    }

    fn stop_handle(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }
}

/// The game given by a `pos` command: a Hub position (the variant's start if none), then moves.
pub(crate) fn game_from<V: Rules>(
    position: Option<&str>,
    moves: &[&str],
) -> Result<Game<V>, String> {
    let start = match position {
        Some(text) => parse_hub::<V>(text).map_err(|e| format!("bad position: {e}"))?,
        None => damas_rules::Position::initial::<V>(),
    };
    let mut game = Game::<V>::from_position(start);
    for text in moves {
        let mv = parse_move::<V>(game.position(), text).map_err(|e| format!("bad move: {e}"))?;
        game.play(&mv);
    }
    Ok(game)
}

/// An `info` line: depth, score in men, nodes, seconds, millions of nodes per second, PV.
fn print_info<V: Rules>(info: &SearchInfo<V::Geometry>) {
    let seconds = info.time.as_secs_f64();
    let pv: Vec<String> = info.pv.iter().map(hub_move::<V>).collect();
    println!(
        "info depth={} score={:.2} nodes={} time={:.3} nps={:.1} pv=\"{}\"",
        info.depth,
        info.score as f64 / 100.0,
        info.nodes,
        seconds,
        info.nodes as f64 / seconds.max(1e-9) / 1e6,
        pv.join(" ")
    );
}

struct NewSession {
    tt: usize,
}

impl VariantVisitor for NewSession {
    type Output = Box<dyn Session + Send>;
    fn visit<V: Rules>(self) -> Self::Output {
        let mut config = EngineConfig::for_rules::<V>();
        config.tt_megabytes = self.tt;
        let searcher = Searcher::<V>::new(config);
        let stop = searcher.stop_handle();
        Box::new(VariantSession {
            game: Game::new(),
            searcher: Arc::new(Mutex::new(searcher)),
            stop,
        })
    }
}

/// The limits of the next search, as `level` sets them.
fn parse_level(message: &Message) -> Result<Limits, String> {
    let seconds = |key: &str| -> Result<Option<Duration>, String> {
        message
            .values
            .get(key)
            .map(|v| {
                v.parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .map(Duration::from_secs_f64)
                    .ok_or_else(|| format!("`{key}={v}` is not a time in seconds"))
            })
            .transpose()
    };
    let number = |key: &str| -> Result<Option<u64>, String> {
        message
            .values
            .get(key)
            .map(|v| {
                v.parse::<u64>()
                    .map_err(|_| format!("`{key}={v}` is not a number"))
            })
            .transpose()
    };
    let mut limits = Limits {
        depth: number("depth")?.map(|d| d as u32),
        nodes: number("nodes")?,
        move_time: seconds("move-time")?,
        clock: None,
    };
    if let Some(remaining) = seconds("time")? {
        limits.clock = Some(Clock {
            remaining,
            increment: seconds("inc")?.unwrap_or_default(),
            moves_to_go: number("moves")?.map(|m| m as u32),
        });
    }
    if let Some(unknown) = message
        .values
        .keys()
        .find(|k| !["depth", "nodes", "move-time", "time", "inc", "moves"].contains(&k.as_str()))
    {
        return Err(format!("unknown level `{unknown}`"));
    }
    Ok(limits)
}

/// The variant names offered by the `variant` parameter (`normal` is international).
fn variant_values() -> String {
    Variant::ALL
        .iter()
        .map(|v| {
            if *v == Variant::International {
                "normal"
            } else {
                v.name()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut variant = Variant::International;
    let mut tt = args.tt;
    let mut session: Option<Box<dyn Session + Send>> = None;
    // With a model, the variant is the model's and its session is ready before `init`.
    let mut model_session = None;
    if let Some(path) = &args.model {
        variant = crate::model::model_variant(path)?;
        model_session = Some(crate::hub_mcts::open(path, variant)?);
    }
    let mut limits = Limits::default();
    // The running search: its thread, its stop flag, and whether it has answered.
    let mut search: Option<(JoinHandle<()>, Arc<AtomicBool>, Arc<AtomicBool>)> = None;
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        // A finished search thread is collected before the next command.
        if search.as_ref().is_some_and(|(handle, _, answered)| {
            handle.is_finished() || answered.load(Ordering::SeqCst)
        }) {
            let (handle, _, _) = search.take().expect("checked");
            let _ = handle.join();
        }
        let message = match parse_message(&line) {
            Ok(message) => message,
            Err(e) => {
                error(format!("cannot read `{line}`: {e}"));
                continue;
            }
        };
        let searching = search.is_some();
        match message.command.as_str() {
            "hub" => {
                println!(
                    "id name=damas version={} author=\"Damas Zero\" country=\"\"",
                    env!("CARGO_PKG_VERSION")
                );
                println!(
                    "param name=variant value={} type=enum values=\"{}\"",
                    if variant == Variant::International {
                        "normal"
                    } else {
                        variant.name()
                    },
                    variant_values()
                );
                println!("param name=tt-size value={tt} type=int min=1 max=4096");
                println!("wait");
            }
            "set-param" => {
                let (Some(name), Some(value)) =
                    (message.values.get("name"), message.values.get("value"))
                else {
                    error("set-param needs name= and value=");
                    continue;
                };
                match name.as_str() {
                    "variant" if session.is_some() => {
                        error("the variant can only be set before init")
                    }
                    "variant" => match value.parse::<Variant>() {
                        Ok(v) if model_session.is_some() && v != variant => error(format!(
                            "the model plays {}, not {}",
                            variant.name(),
                            v.name()
                        )),
                        Ok(v) => variant = v,
                        Err(e) => error(e),
                    },
                    "tt-size" => match value.parse::<usize>() {
                        Ok(size) if (1..=4096).contains(&size) => tt = size,
                        _ => error(format!("tt-size must be 1..4096, not `{value}`")),
                    },
                    other => error(format!("unknown parameter `{other}`")),
                }
            }
            "init" => {
                session = Some(match model_session.take() {
                    Some(model) => model,
                    None if args.model.is_some() => {
                        // A second `init`: the model's session stays, with a new game.
                        let mut same = session.take().expect("a model session after init");
                        same.new_game();
                        same
                    }
                    None => variant.visit(NewSession { tt }),
                });
                println!("ready");
            }
            "ping" => println!("pong"),
            // The engine does not ponder on the opponent's time: on a ponder hit it answers at
            // once with the best move found so far, as on stop.
            "stop" | "ponder-hit" => {
                if let Some((_, stop, _)) = &search {
                    stop.store(true, Ordering::Relaxed);
                }
            }
            "quit" => break,
            command @ ("new-game" | "pos" | "level" | "go") => {
                let Some(active) = session.as_mut() else {
                    error(format!("`{command}` before init"));
                    continue;
                };
                if searching && command != "level" {
                    error(format!("`{command}` while searching: send stop first"));
                    continue;
                }
                match command {
                    "new-game" => active.new_game(),
                    "pos" => {
                        let moves: Vec<&str> = message
                            .values
                            .get("moves")
                            .map(|m| m.split_whitespace().collect())
                            .unwrap_or_default();
                        if let Err(e) = active
                            .set_position(message.values.get("pos").map(String::as_str), &moves)
                        {
                            error(e);
                        }
                    }
                    "level" => match parse_level(&message) {
                        Ok(mut new) => {
                            if message.flags.iter().any(|f| f == "infinite") {
                                new = Limits::default();
                            }
                            limits = new;
                        }
                        Err(e) => error(e),
                    },
                    _ => {
                        let mode = message.flags.first().map(String::as_str).unwrap_or("think");
                        if !["think", "ponder", "analyze"].contains(&mode) {
                            error(format!("unknown go mode `{mode}`"));
                            continue;
                        }
                        let go_limits = if mode == "think" {
                            limits
                        } else {
                            Limits::default()
                        };
                        let stop = active.stop_handle();
                        let answered = Arc::new(AtomicBool::new(false));
                        search = Some((active.go(go_limits, answered.clone()), stop, answered));
                        // `level` applies to the next search only.
                        limits = Limits::default();
                    }
                }
            }
            other => error(format!("unknown command `{other}`")),
        }
    }
    if let Some((handle, stop, _)) = search {
        stop.store(true, Ordering::Relaxed);
        let _ = handle.join();
    }
    Ok(())
}
