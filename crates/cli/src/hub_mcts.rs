//! The Hub session of `damas hub --model`: a network (checkpoint or ONNX file) searched by MCTS.
//! `level nodes=N` sets the simulations; `move-time` and `time` budget the search as for the
//! alpha-beta engine; with neither, the search runs until `stop`.

use crate::hub::{Session, game_from};
use damas_engine::Limits;
use damas_mcts::tree::Tree;
use damas_mcts::{Evaluator, Search, SearchConfig};
use damas_rules::notation::hub as hub_move;
use damas_rules::{Game, Rules, Variant, VariantVisitor};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often a long search reports its progress.
const INFO_INTERVAL: Duration = Duration::from_secs(1);

/// Opens the model at `path` for `variant` as a Hub session.
pub fn open(path: &Path, variant: Variant) -> anyhow::Result<Box<dyn Session + Send>> {
    variant.visit(Open(path))
}

struct Open<'a>(&'a Path);

impl VariantVisitor for Open<'_> {
    type Output = anyhow::Result<Box<dyn Session + Send>>;
    fn visit<V: Rules>(self) -> Self::Output {
        Ok(Box::new(MctsSession::<V> {
            game: Game::new(),
            evaluator: crate::model::open_model::<V>(self.0)?,
            stop: Arc::new(AtomicBool::new(false)),
            searches: 0,
        }))
    }
}

struct MctsSession<V: Rules> {
    game: Game<V>,
    evaluator: Arc<dyn Evaluator<V>>,
    stop: Arc<AtomicBool>,
    /// Searches started so far: each gets its own seed.
    searches: u64,
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
        let mut search = Search::new(self.game.clone(), SearchConfig::default(), self.searches);
        let evaluator = Arc::clone(&self.evaluator);
        let stop = Arc::clone(&self.stop);
        std::thread::spawn(move || {
            let simulations = limits
                .nodes
                .map_or(u32::MAX, |n| n.min(u32::MAX as u64) as u32);
            let budget = limits.budget();
            let started = Instant::now();
            let mut reported = started;
            search.start(simulations, false);
            search.run_while(&evaluator.as_ref(), |search| {
                if reported.elapsed() >= INFO_INTERVAL {
                    reported = Instant::now();
                    print_info(search, started);
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
                println!("done");
                return;
            }
            print_info(&search, started);
            let best = report.moves[search.choose(0.0)];
            answered.store(true, Ordering::SeqCst);
            println!("done move={}", hub_move::<V>(&best));
        })
    }

    fn stop_handle(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }
}

/// An `info` line: simulations as nodes, the root value (-1 to 1) as score, the most visited move.
fn print_info<V: Rules>(search: &Search<V>, started: Instant) {
    let report = search.report();
    let seconds = started.elapsed().as_secs_f64();
    let pv = report
        .most_visited()
        .map(|i| hub_move::<V>(&report.moves[i]))
        .unwrap_or_default();
    println!(
        "info score={:.3} nodes={} time={:.3} nps={:.1} pv=\"{pv}\"",
        report.value,
        report.simulations,
        seconds,
        report.simulations as f64 / seconds.max(1e-9),
    );
}
