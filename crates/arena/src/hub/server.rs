//! Our engines behind the Hub protocol (`damas hub`): the alpha-beta engine, or a network
//! searched by MCTS. The search runs on its own thread so that `stop` and `ping` are answered
//! while it thinks. The end of the input means quit: a running search is stopped and the
//! server returns.

use super::{Message, error_line};
use damas_engine::{Clock, EngineConfig, Limits, SearchInfo, Searcher};
use damas_mcts::tree::Tree;
use damas_mcts::{Evaluator, RootNoise, Search, SearchConfig};
use damas_models::{Model, ModelError, model_variant};
use damas_nn::Device;
use damas_rules::notation::hub as hub_move;
use damas_rules::{Game, Rules, Variant, VariantVisitor, parse_hub, parse_move};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

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

/// How often a long MCTS search reports its progress.
const INFO_INTERVAL: Duration = Duration::from_secs(1);

/// The parts of the protocol that depend on the variant and the engine.
trait Session: Send {
    fn new_game(&mut self);
    fn set_position(&mut self, position: Option<&str>, moves: &[&str]) -> Result<(), String>;
    /// Starts a search on its own thread; `answered` is set just before `done` is written.
    fn go(&mut self, limits: Limits, answered: Arc<AtomicBool>) -> JoinHandle<()>;
    /// The flag that stops the running search.
    fn stop_handle(&self) -> Arc<AtomicBool>;
}

/// The game given by a `pos` command: a Hub position (the variant's start if none), then moves.
fn game_from<V: Rules>(position: Option<&str>, moves: &[&str]) -> Result<Game<V>, String> {
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

struct AlphaBetaSession<V: Rules> {
    game: Game<V>,
    searcher: Arc<Mutex<Searcher<V>>>,
    stop: Arc<AtomicBool>,
    lines: Lines,
}

impl<V: Rules> Session for AlphaBetaSession<V> {
    fn new_game(&mut self) {
        self.game = Game::new();
        self.searcher.lock().expect("searcher lock").clear();
    }

    fn set_position(&mut self, position: Option<&str>, moves: &[&str]) -> Result<(), String> {
        self.game = game_from(position, moves)?;
        Ok(())
    }

    fn go(&mut self, limits: Limits, answered: Arc<AtomicBool>) -> JoinHandle<()> {
        self.stop.store(false, Ordering::SeqCst);
        let searcher = Arc::clone(&self.searcher);
        let game = self.game.clone();
        let lines = self.lines.clone();
        std::thread::spawn(move || {
            let mut searcher = searcher.lock().expect("searcher lock");
            let result = searcher.search(&game, &limits, |info| lines.say(&info_line::<V>(info)));
            // The GUI may send its next command as soon as it reads `done`: the main loop must
            // already see this search as over by then.
            answered.store(true, Ordering::SeqCst);
            match result.best {
                Some(best) => {
                    let ponder = result
                        .ponder
                        .map(|mv| format!(" ponder={}", hub_move::<V>(&mv)))
                        .unwrap_or_default();
                    lines.say(&format!("done move={}{ponder}", hub_move::<V>(&best)));
                }
                None => lines.say("done"),
            }
        })
    }

    fn stop_handle(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }
}

/// An `info` line of the alpha-beta engine: depth, score in men, nodes, seconds, millions of
/// nodes per second, principal variation.
fn info_line<V: Rules>(info: &SearchInfo<V::Geometry>) -> String {
    let seconds = info.time.as_secs_f64();
    let pv: Vec<String> = info.pv.iter().map(hub_move::<V>).collect();
    format!(
        "info depth={} score={:.2} nodes={} time={:.3} nps={:.1} pv=\"{}\"",
        info.depth,
        info.score as f64 / 100.0,
        info.nodes,
        seconds,
        info.nodes as f64 / seconds.max(1e-9) / 1e6,
        pv.join(" ")
    )
}

/// A network searched by MCTS: `level nodes=N` sets the simulations; `move-time` and `time`
/// budget the search as for the alpha-beta engine; with neither, it runs until `stop`.
struct MctsSession<V: Rules> {
    game: Game<V>,
    evaluator: Arc<dyn Evaluator<V>>,
    search: SearchConfig,
    stop: Arc<AtomicBool>,
    /// Searches started so far: each gets its own seed.
    searches: u64,
    lines: Lines,
}

impl<V: Rules> Session for MctsSession<V> {
    fn new_game(&mut self) {
        self.game = Game::new();
    }

    fn set_position(&mut self, position: Option<&str>, moves: &[&str]) -> Result<(), String> {
        self.game = game_from(position, moves)?;
        Ok(())
    }

    fn go(&mut self, limits: Limits, answered: Arc<AtomicBool>) -> JoinHandle<()> {
        self.searches += 1;
        self.stop.store(false, Ordering::SeqCst);
        let mut search = Search::new(self.game.clone(), self.search.clone(), self.searches);
        let evaluator = Arc::clone(&self.evaluator);
        let stop = Arc::clone(&self.stop);
        let lines = self.lines.clone();
        std::thread::spawn(move || {
            let simulations = limits
                .nodes
                .map_or(u32::MAX, |n| n.min(u32::MAX as u64) as u32);
            let budget = limits.budget();
            let started = Instant::now();
            let mut reported = started;
            search.start_with_budget(simulations, RootNoise::Off);
            search.run_while(&evaluator.as_ref(), |search| {
                if reported.elapsed() >= INFO_INTERVAL {
                    reported = Instant::now();
                    lines.say(&mcts_info_line(search, started));
                }
                // The first simulation always runs, so that even a search stopped at once
                // has the network's choice to answer with.
                let root = search.tree().node(Tree::<V::Geometry>::ROOT);
                root.visits == 0
                    || (!stop.load(Ordering::SeqCst)
                        && budget.is_none_or(|b| started.elapsed() < b))
            });
            let report = search.report();
            if report.moves.is_empty() {
                answered.store(true, Ordering::SeqCst);
                lines.say("done");
                return;
            }
            lines.say(&mcts_info_line(&search, started));
            let best = report.moves[search.choose(0.0)];
            answered.store(true, Ordering::SeqCst);
            lines.say(&format!("done move={}", hub_move::<V>(&best)));
        })
    }

    fn stop_handle(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }
}

/// An `info` line of MCTS: simulations as nodes, the root value (-1 to 1) as score, the most
/// visited move.
fn mcts_info_line<V: Rules>(search: &Search<V>, started: Instant) -> String {
    let report = search.report();
    let seconds = started.elapsed().as_secs_f64();
    let pv = report
        .most_visited()
        .map(|i| hub_move::<V>(&report.moves[i]))
        .unwrap_or_default();
    format!(
        "info score={:.3} nodes={} time={:.3} nps={:.1} pv=\"{pv}\"",
        report.value,
        report.simulations,
        seconds,
        report.simulations as f64 / seconds.max(1e-9),
    )
}

/// Builds the alpha-beta session of a variant.
struct NewAlphaBeta {
    tt: usize,
    lines: Lines,
}

impl VariantVisitor for NewAlphaBeta {
    type Output = Box<dyn Session>;
    fn visit<V: Rules>(self) -> Self::Output {
        let mut config = EngineConfig::for_rules::<V>();
        config.tt_megabytes = self.tt;
        let searcher = Searcher::<V>::new(config);
        let stop = searcher.stop_handle();
        Box::new(AlphaBetaSession {
            game: Game::new(),
            searcher: Arc::new(Mutex::new(searcher)),
            stop,
            lines: self.lines,
        })
    }
}

/// Builds the MCTS session of a model.
struct NewMcts<'a> {
    path: &'a std::path::Path,
    device: &'a Device,
    lines: Lines,
}

impl VariantVisitor for NewMcts<'_> {
    type Output = Result<Box<dyn Session>, ModelError>;
    fn visit<V: Rules>(self) -> Self::Output {
        let model = Model::<V>::open_path(self.path, self.device)?;
        Ok(Box::new(MctsSession::<V> {
            game: Game::new(),
            evaluator: model.evaluator(),
            search: model.search(),
            stop: Arc::new(AtomicBool::new(false)),
            searches: 0,
            lines: self.lines,
        }))
    }
}

/// The limits of the next search, as `level` sets them.
fn parse_level(message: &Message) -> Result<Limits, String> {
    let seconds = |key: &str| -> Result<Option<Duration>, String> {
        message
            .value(key)
            .map(|v| {
                v.parse::<f64>()
                    .ok()
                    .and_then(|s| Duration::try_from_secs_f64(s).ok())
                    .ok_or_else(|| format!("`{key}={v}` is not a time in seconds"))
            })
            .transpose()
    };
    let number = |key: &str| -> Result<Option<u64>, String> {
        message
            .value(key)
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

/// Serves one Hub session: reads commands from `input` until `quit` or its end, answers on
/// `lines`.
pub fn serve(
    input: impl BufRead,
    lines: &Lines,
    options: &ServerOptions,
) -> Result<(), ServeError> {
    let mut variant = Variant::International;
    let mut tt = options.tt_megabytes;
    let mut session: Option<Box<dyn Session>> = None;
    // With a model, the variant is the model's and its session is ready before `init`.
    let mut model_session = None;
    if let Some(path) = &options.model {
        variant = model_variant(path)?;
        model_session = Some(variant.visit(NewMcts {
            path,
            device: &options.device,
            lines: lines.clone(),
        })?);
    }
    let mut limits = Limits::default();
    let mut search: Option<Running> = None;
    let mut input = input;
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        match input.read_until(b'\n', &mut bytes) {
            Ok(0) => break,
            Ok(_) => {}
            Err(error) => {
                if let Some(running) = search.take() {
                    running.stop();
                }
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
        if search.as_ref().is_some_and(Running::is_over) {
            let _ = search.take().expect("checked").handle.join();
        }
        let message = match Message::parse(line) {
            Ok(message) => message,
            Err(e) => {
                lines.say(&error_line(format!("cannot read `{line}`: {e}")));
                continue;
            }
        };
        let searching = search.is_some();
        match message.command.as_str() {
            "hub" => {
                lines.say(&format!(
                    "id name=damas version={} author=\"Damas Zero\" country=\"\"",
                    env!("CARGO_PKG_VERSION")
                ));
                let names: Vec<&str> = Variant::ALL.iter().map(|&v| v.hub_name()).collect();
                lines.say(&format!(
                    "param name=variant value={} type=enum values=\"{}\"",
                    variant.hub_name(),
                    names.join(" ")
                ));
                lines.say(&format!(
                    "param name=tt-size value={tt} type=int min=1 max=4096"
                ));
                lines.say("wait");
            }
            "set-param" => {
                let (Some(name), Some(value)) = (message.value("name"), message.value("value"))
                else {
                    lines.say(&error_line("set-param needs name= and value="));
                    continue;
                };
                match name {
                    "variant" if session.is_some() => {
                        lines.say(&error_line("the variant can only be set before init"))
                    }
                    "variant" => match value.parse::<Variant>() {
                        Ok(v) if model_session.is_some() && v != variant => lines.say(&error_line(
                            format!("the model plays {}, not {}", variant.name(), v.name()),
                        )),
                        Ok(v) => variant = v,
                        Err(e) => lines.say(&error_line(e)),
                    },
                    "tt-size" => match value.parse::<usize>() {
                        Ok(size) if (1..=4096).contains(&size) => tt = size,
                        _ => lines.say(&error_line(format!(
                            "tt-size must be 1..4096, not `{value}`"
                        ))),
                    },
                    other => lines.say(&error_line(format!("unknown parameter `{other}`"))),
                }
            }
            "init" => {
                session = Some(match (model_session.take(), session.take()) {
                    (Some(model), _) => model,
                    // A second `init` with a model: its session stays, with a new game.
                    (None, Some(mut same)) if options.model.is_some() => {
                        same.new_game();
                        same
                    }
                    _ => variant.visit(NewAlphaBeta {
                        tt,
                        lines: lines.clone(),
                    }),
                });
                lines.say("ready");
            }
            "ping" => lines.say("pong"),
            // The engine does not ponder on the opponent's time: on a ponder hit it answers at
            // once with the best move found so far, as on stop.
            "stop" | "ponder-hit" => {
                if let Some(running) = &search {
                    running.stop.store(true, Ordering::SeqCst);
                }
            }
            "quit" => break,
            command @ ("new-game" | "pos" | "level" | "go") => {
                let Some(active) = session.as_mut() else {
                    lines.say(&error_line(format!("`{command}` before init")));
                    continue;
                };
                if searching && command != "level" {
                    lines.say(&error_line(format!(
                        "`{command}` while searching: send stop first"
                    )));
                    continue;
                }
                match command {
                    "new-game" => active.new_game(),
                    "pos" => {
                        let moves: Vec<&str> = message
                            .value("moves")
                            .map(|m| m.split_whitespace().collect())
                            .unwrap_or_default();
                        if let Err(e) = active.set_position(message.value("pos"), &moves) {
                            lines.say(&error_line(e));
                        }
                    }
                    "level" => match parse_level(&message) {
                        Ok(mut new) => {
                            if message.flags.iter().any(|f| f == "infinite") {
                                new = Limits::default();
                            }
                            limits = new;
                        }
                        Err(e) => lines.say(&error_line(e)),
                    },
                    _ => {
                        let mode = message.flags.first().map(String::as_str).unwrap_or("think");
                        if !["think", "ponder", "analyze"].contains(&mode) {
                            lines.say(&error_line(format!("unknown go mode `{mode}`")));
                            continue;
                        }
                        let go_limits = if mode == "think" {
                            limits
                        } else {
                            Limits::default()
                        };
                        let answered = Arc::new(AtomicBool::new(false));
                        search = Some(Running {
                            stop: active.stop_handle(),
                            handle: active.go(go_limits, answered.clone()),
                            answered,
                        });
                        // `level` applies to the next search only.
                        limits = Limits::default();
                    }
                }
            }
            other => lines.say(&error_line(format!("unknown command `{other}`"))),
        }
    }
    if let Some(running) = search {
        running.stop();
    }
    Ok(())
}
