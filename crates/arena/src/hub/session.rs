//! The engines behind `damas hub`: a session holds one game and one engine (alpha-beta, or a
//! network searched by MCTS), starts searches on their own thread and reports them as `info`
//! lines in Scan's units.

use super::server::{CommandError, Lines};
use damas_egdb::Egdb;
use damas_engine::{EngineConfig, Limits, SearchInfo, Searcher};
use damas_mcts::{Evaluator, RootNoise, Search, SearchConfig};
use damas_models::{Model, ModelError};
use damas_nn::Device;
use damas_rules::notation::hub as hub_move;
use damas_rules::{Game, Position, Rules, VariantVisitor, parse_hub, parse_move};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often a long MCTS search reports its progress.
const INFO_INTERVAL: Duration = Duration::from_secs(1);

/// Men per unit of atanh(value): engine scores become values as `tanh(score / 3 men)`
/// (`damas_selfplay::score_to_value`, `StaticEvaluator`), so a network's value is shown as
/// `3 * atanh(value)` men.
const MEN_PER_ATANH: f64 = 3.0;

/// The largest value magnitude converted to men: 1 would be infinite.
const VALUE_CLAMP: f64 = 0.9999;

/// A network's value for the side to move (-1 to 1) as a score in men, Scan's `score` unit.
fn value_to_men(value: f32) -> f64 {
    // atanh of the magnitude, so that a value and its negation read as opposite scores
    // exactly (the library's atanh is not odd to the last bit).
    let value = f64::from(value);
    MEN_PER_ATANH * value.abs().min(VALUE_CLAMP).atanh().copysign(value)
}

/// `count` per `seconds` in millions, Scan's `nps` unit: one decimal from a million up, three
/// significant digits below, so that a network's few thousand simulations a second do not
/// print as `0.0`.
fn millions_per_second(count: u64, seconds: f64) -> String {
    let rate = count as f64 / seconds.max(1e-9) / 1e6;
    if rate >= 1.0 || rate <= 0.0 {
        return format!("{rate:.1}");
    }
    let decimals = (2 - rate.log10().floor() as i32).clamp(1, 9) as usize;
    format!("{rate:.decimals$}")
}

/// The parts of the protocol that depend on the variant and the engine.
pub(super) trait Session: Send {
    fn new_game(&mut self);
    fn set_position(&mut self, position: Option<&str>, moves: &[&str]) -> Result<(), CommandError>;
    /// Refuses a level this engine cannot search under.
    fn check_level(&self, limits: &Limits) -> Result<(), CommandError>;
    /// Starts a search on its own thread; `answered` is set just before `done` is written.
    fn go(&mut self, limits: Limits, answered: Arc<AtomicBool>) -> JoinHandle<()>;
    /// The flag that stops the running search.
    fn stop_handle(&self) -> Arc<AtomicBool>;
}

/// The game given by a `pos` command: a Hub position (the variant's start if none), then moves.
fn game_from<V: Rules>(position: Option<&str>, moves: &[&str]) -> Result<Game<V>, CommandError> {
    let start = match position {
        Some(text) => parse_hub::<V>(text).map_err(CommandError::Position)?,
        None => Position::initial::<V>(),
    };
    let mut game = Game::<V>::from_position(start);
    for text in moves {
        let mv = parse_move::<V>(game.position(), text).map_err(CommandError::Move)?;
        game.play(&mv);
    }
    Ok(game)
}

struct AlphaBetaSession<V: Rules> {
    game: Game<V>,
    searcher: Arc<Mutex<Searcher<V>>>,
    stop: Arc<AtomicBool>,
    lines: Lines,
    /// The searcher's endgame database's faults already reported in an `error` line (each is said once).
    reported: Arc<Mutex<Vec<String>>>,
}

/// Says in an `error` line each fault of `egdb` not in `reported` yet (a damaged block met while
/// probing: its positions were searched instead of looked up), and adds it there.
fn report_faults<V: Rules>(egdb: Option<&Egdb<V>>, reported: &Mutex<Vec<String>>, lines: &Lines) {
    let Some(db) = egdb else { return };
    let mut reported = reported
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    for fault in db.faults() {
        if !reported.contains(&fault) {
            lines.say(&super::error_line(format!(
                "endgame database: {fault}; its positions are searched instead"
            )));
            reported.push(fault);
        }
    }
}

impl<V: Rules> Session for AlphaBetaSession<V> {
    fn new_game(&mut self) {
        self.game = Game::new();
        self.searcher
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clear();
    }

    fn set_position(&mut self, position: Option<&str>, moves: &[&str]) -> Result<(), CommandError> {
        self.game = game_from(position, moves)?;
        Ok(())
    }

    fn check_level(&self, _: &Limits) -> Result<(), CommandError> {
        Ok(())
    }

    fn go(&mut self, limits: Limits, answered: Arc<AtomicBool>) -> JoinHandle<()> {
        self.stop.store(false, Ordering::SeqCst);
        let searcher = Arc::clone(&self.searcher);
        let game = self.game.clone();
        let lines = self.lines.clone();
        let reported = Arc::clone(&self.reported);
        std::thread::spawn(move || {
            let mut searcher = searcher
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let result = searcher.search(&game, &limits, |info| lines.say(&info_line::<V>(info)));
            report_faults(searcher.egdb(), &reported, &lines);
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
        "info depth={} score={:.2} nodes={} time={:.3} nps={} pv=\"{}\"",
        info.depth,
        f64::from(info.score) / 100.0,
        info.nodes,
        seconds,
        millions_per_second(info.nodes, seconds),
        pv.join(" ")
    )
}

/// A network searched by MCTS: `level nodes=N` sets the simulations; `move-time` and `time`
/// budget the search as for the alpha-beta engine; `level infinite` runs it until `stop`.
/// Searched by the clock (or until `stop`), the tree of the last search is kept and searched on
/// when the next position continues its game (as the arena's player does, and Lc0); a count of
/// nodes is searched afresh, so that it means the same at every move.
struct MctsSession<V: Rules> {
    game: Game<V>,
    evaluator: Arc<dyn Evaluator<V>>,
    search: SearchConfig,
    stop: Arc<AtomicBool>,
    /// Searches started so far: each gets its own seed.
    searches: u64,
    /// The last search by the clock, left here by its thread before it answers.
    kept: Arc<Mutex<Option<Search<V>>>>,
    lines: Lines,
}

impl<V: Rules> Session for MctsSession<V> {
    fn new_game(&mut self) {
        self.game = Game::new();
        *self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
    }

    fn set_position(&mut self, position: Option<&str>, moves: &[&str]) -> Result<(), CommandError> {
        self.game = game_from(position, moves)?;
        Ok(())
    }

    fn check_level(&self, limits: &Limits) -> Result<(), CommandError> {
        match limits.depth {
            Some(_) => Err(CommandError::DepthForNetwork),
            None => Ok(()),
        }
    }

    fn go(&mut self, limits: Limits, answered: Arc<AtomicBool>) -> JoinHandle<()> {
        self.searches += 1;
        self.stop.store(false, Ordering::SeqCst);
        let by_clock = limits.nodes.is_none();
        let previous = self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        let (game, config, seed) = (self.game.clone(), self.search.clone(), self.searches);
        let kept = Arc::clone(&self.kept);
        let evaluator = Arc::clone(&self.evaluator);
        let stop = Arc::clone(&self.stop);
        let lines = self.lines.clone();
        std::thread::spawn(move || {
            let simulations = limits
                .nodes
                .map_or(u32::MAX, |n| n.min(u32::MAX as u64) as u32);
            let budget = limits.budget();
            let started = Instant::now();
            // Following copies the kept subtree: on the search's clock, off the command loop.
            let mut search = previous
                .filter(|_| by_clock)
                .and_then(|previous| previous.follow(&game))
                .unwrap_or_else(|| Search::new(game, config, seed));
            let mut reported = started;
            let inherited = search.root_visits();
            search.start_with_budget(simulations, RootNoise::Off);
            search.run_while(&evaluator.as_ref(), |search| {
                if reported.elapsed() >= INFO_INTERVAL {
                    reported = Instant::now();
                    lines.say(&mcts_info_line(search, inherited, started));
                }
                // The first simulation always runs, so that even a search stopped at once
                // has the network's choice to answer with.
                search.root_visits() == inherited
                    || (!stop.load(Ordering::SeqCst)
                        && budget.is_none_or(|b| started.elapsed() < b))
            });
            let report = search.report();
            if report.moves.is_empty() {
                answered.store(true, Ordering::SeqCst);
                lines.say("done");
                return;
            }
            lines.say(&mcts_info_line(&search, inherited, started));
            let best = report.moves[search.choose(0.0)];
            if by_clock {
                *kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(search);
            }
            answered.store(true, Ordering::SeqCst);
            lines.say(&format!("done move={}", hub_move::<V>(&best)));
        })
    }

    fn stop_handle(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }
}

/// An `info` line of MCTS in the alpha-beta engine's units: the root value in men as score
/// (and as itself, `value=`), the root's visits as nodes (`inherited` of them from a kept
/// tree), millions of this search's own per second, the most visited move.
fn mcts_info_line<V: Rules>(search: &Search<V>, inherited: u32, started: Instant) -> String {
    let report = search.report();
    let seconds = started.elapsed().as_secs_f64();
    let pv = report
        .most_visited()
        .map(|i| hub_move::<V>(&report.moves[i]))
        .unwrap_or_default();
    format!(
        "info score={:.2} value={:.3} nodes={} time={:.3} nps={} pv=\"{pv}\"",
        value_to_men(report.value),
        report.value,
        report.simulations,
        seconds,
        millions_per_second(
            u64::from(report.simulations.saturating_sub(inherited)),
            seconds
        ),
    )
}

/// Builds the alpha-beta session of a variant.
pub(super) struct NewAlphaBeta<'a> {
    pub(super) tt: usize,
    pub(super) egdb: Option<&'a std::path::Path>,
    pub(super) lines: Lines,
}

impl VariantVisitor for NewAlphaBeta<'_> {
    type Output = Box<dyn Session>;
    fn visit<V: Rules>(self) -> Self::Output {
        let mut config = EngineConfig::for_rules::<V>();
        config.tt_megabytes = self.tt;
        let mut searcher = Searcher::<V>::new(config);
        let egdb = self
            .egdb
            .and_then(|root| match Egdb::<V>::open_shared(root) {
                Ok(db) => Some(db),
                Err(error) => {
                    self.lines.say(&super::error_line(format!(
                        "no endgame database: {error}; playing without it"
                    )));
                    None
                }
            });
        searcher.set_egdb(egdb);
        let stop = searcher.stop_handle();
        Box::new(AlphaBetaSession {
            game: Game::new(),
            searcher: Arc::new(Mutex::new(searcher)),
            stop,
            lines: self.lines,
            reported: Arc::default(),
        })
    }
}

/// Builds the MCTS session of a model.
pub(super) struct NewMcts<'a> {
    pub(super) path: &'a std::path::Path,
    pub(super) device: &'a Device,
    pub(super) lines: Lines,
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
            kept: Arc::new(Mutex::new(None)),
            lines: self.lines,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damas_rules::ParseFenError;
    use damas_rules::variants::International;

    #[test]
    fn a_value_reads_in_men_as_engine_scores_become_values() {
        assert_eq!(value_to_men(0.0), 0.0);
        // Engine scores become values as tanh(score / 3 men): 1.5 men is tanh(0.5).
        assert!((value_to_men(0.5f64.tanh() as f32) - 1.5).abs() < 1e-3);
        assert!((value_to_men(-(1.0f64.tanh() as f32)) + 3.0).abs() < 1e-3);
        let certain = value_to_men(1.0);
        assert!(
            certain.is_finite() && (14.0..15.0).contains(&certain),
            "{certain}"
        );
        assert_eq!(value_to_men(-1.0), -certain);
    }

    #[test]
    fn nps_is_in_millions_with_digits_left_for_slow_searches() {
        assert_eq!(millions_per_second(2_800_000, 1.0), "2.8");
        assert_eq!(millions_per_second(500_000, 1.0), "0.500");
        assert_eq!(millions_per_second(800, 1.0), "0.000800");
        assert_eq!(millions_per_second(0, 1.0), "0.0");
        assert_eq!(millions_per_second(10, 0.0), "10000.0");
    }

    /// A session over the uniform evaluator with its output thrown away.
    fn uniform_session() -> MctsSession<International> {
        MctsSession {
            game: Game::new(),
            evaluator: Arc::new(damas_mcts::UniformEvaluator),
            search: SearchConfig::default(),
            stop: Arc::new(AtomicBool::new(false)),
            searches: 0,
            kept: Arc::new(Mutex::new(None)),
            lines: Lines::new(std::io::sink()),
        }
    }

    /// Searched by the clock, the next position of the same game is searched on from the
    /// subtree of the moves played since; by nodes, or in another game, afresh.
    #[test]
    fn a_network_by_the_clock_searches_on_from_its_last_tree() {
        let by_time = Limits {
            move_time: Some(Duration::from_millis(100)),
            ..Limits::default()
        };
        let by_nodes = Limits {
            nodes: Some(50),
            ..Limits::default()
        };
        for (limits, keeps) in [(by_time, true), (by_nodes, false)] {
            let mut session = uniform_session();
            session.set_position(None, &[]).unwrap();
            session
                .go(limits, Arc::new(AtomicBool::new(false)))
                .join()
                .unwrap();
            let kept = session.kept.lock().unwrap().take();
            assert_eq!(kept.is_some(), keeps);
            let Some(kept) = kept else { continue };
            // Our move and the reply the tree searched most, as a GUI would send them.
            let report = kept.report();
            let ours = report.moves[report.most_visited().unwrap()];
            let mut game = Game::<International>::new();
            game.play(&ours);
            let kept = kept.follow(&game).unwrap();
            let report = kept.report();
            let reply = report.moves[report.most_visited().unwrap()];
            *session.kept.lock().unwrap() = Some(kept);
            let moves = [
                hub_move::<International>(&ours),
                hub_move::<International>(&reply),
            ];
            let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
            session.set_position(None, &moves).unwrap();
            // Out of time at once: one simulation on top of what the followed subtree holds
            // (a fresh search would hold that one alone).
            let at_once = Limits {
                move_time: Some(Duration::ZERO),
                ..Limits::default()
            };
            session
                .go(at_once, Arc::new(AtomicBool::new(false)))
                .join()
                .unwrap();
            let searched = session.kept.lock().unwrap().take().unwrap();
            assert_eq!(searched.game().position(), session.game.position());
            assert!(searched.report().simulations > 1);
            // A new game drops it.
            *session.kept.lock().unwrap() = Some(searched);
            session.new_game();
            assert!(session.kept.lock().unwrap().is_none());
        }
    }

    #[test]
    fn a_short_position_is_counted_as_typed() {
        let error = game_from::<International>(Some("W:W28:B23"), &[]).unwrap_err();
        assert_eq!(
            error,
            CommandError::Position(ParseFenError::HubLength {
                squares: 50,
                found: 9,
                text: "W:W28:B23".into(),
            })
        );
        let text = error.to_string();
        assert!(
            text.contains("(51 characters), found 9 characters"),
            "{text}"
        );
        assert!(text.contains("that is a FEN"), "{text}");
        let start = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";
        assert!(game_from::<International>(Some(start), &["32-28"]).is_ok());
    }
}
