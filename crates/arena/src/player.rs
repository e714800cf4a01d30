//! Players: anything that picks a move in a game. Built-in: uniform random, the alpha-beta
//! engine, and MCTS over any evaluator (a network checkpoint, or a stand-in).

use damas_egdb::Egdb;
use damas_engine::{DATABASE_BOUND, EngineConfig, Limits, MATE, MATE_BOUND, Searcher};
use damas_mcts::{Evaluator, RootNoise, Search, SearchConfig};
use damas_rules::{Color, Game, Move, Outcome, Rules};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Why a player could not produce a move: it forfeits the game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Forfeit(pub String);

/// A move and, if the player has one, its score for the side to move (centipawn-like units
/// for engines, value x 1000 for networks), used by adjudication.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer<V: Rules> {
    /// The move, legal in the game.
    pub mv: Move<V::Geometry>,
    /// The player's evaluation after its search, if it reports one.
    pub score: Option<i32>,
    /// What the player says of its search, in one line for people (empty if nothing).
    pub info: String,
}

impl<V: Rules> Answer<V> {
    /// A move with nothing more to say.
    pub fn bare(mv: Move<V::Geometry>) -> Self {
        Answer {
            mv,
            score: None,
            info: String::new(),
        }
    }
}

/// Something that plays moves.
pub trait Player<V: Rules>: Send {
    /// Called before each game.
    fn new_game(&mut self) {}
    /// The move to play in `game` (not finished); an error forfeits the game.
    fn play(&mut self, game: &Game<V>) -> Result<Answer<V>, Forfeit>;
    /// Called once the game is over (by its rules, a cap, adjudication or a forfeit), with
    /// every move played.
    fn game_over(&mut self, _game: &Game<V>, _outcome: Outcome) {}
    /// A flag that, once set, ends the player's search in progress early (its answer is then
    /// not meant to be played); `None` for players that answer at once or cannot be stopped.
    /// The player never clears it: a stopped player is dropped, not reused.
    fn stop_handle(&self) -> Option<Arc<AtomicBool>> {
        None
    }
}

/// Picks uniformly among the legal moves.
pub struct RandomPlayer(StdRng);

impl RandomPlayer {
    /// A random player with its own seed.
    pub fn new(seed: u64) -> Self {
        RandomPlayer(StdRng::seed_from_u64(seed))
    }
}

impl<V: Rules> Player<V> for RandomPlayer {
    fn play(&mut self, game: &Game<V>) -> Result<Answer<V>, Forfeit> {
        let moves = game.legal_moves();
        let mv = *moves
            .choose(&mut self.0)
            .ok_or_else(|| Forfeit("no legal move".into()))?;
        Ok(Answer::bare(mv))
    }
}

/// The alpha-beta engine under fixed limits.
pub struct AlphaBetaPlayer<V: Rules> {
    searcher: Box<Searcher<V>>,
    limits: Limits,
}

impl<V: Rules> AlphaBetaPlayer<V> {
    /// The engine with its default settings for `V`, randomised ties seeded by `seed`.
    pub fn new(limits: Limits, seed: u64) -> Self {
        let mut config = EngineConfig::for_rules::<V>();
        config.randomize = true;
        config.seed = seed;
        AlphaBetaPlayer {
            searcher: Box::new(Searcher::new(config)),
            limits,
        }
    }

    /// Probes `egdb` in the search (none: searches without tables).
    pub fn set_egdb(&mut self, egdb: Option<Arc<Egdb<V>>>) {
        self.searcher.set_egdb(egdb);
    }
}

impl<V: Rules> Player<V> for AlphaBetaPlayer<V> {
    fn new_game(&mut self) {
        self.searcher.clear();
    }

    fn stop_handle(&self) -> Option<Arc<AtomicBool>> {
        Some(self.searcher.stop_handle())
    }

    fn play(&mut self, game: &Game<V>) -> Result<Answer<V>, Forfeit> {
        let result = self.searcher.search(game, &self.limits, |_| {});
        let mv = result
            .best
            .ok_or_else(|| Forfeit("the engine found no move".into()))?;
        let info = &result.info;
        Ok(Answer {
            mv,
            score: Some(info.score),
            info: format!(
                "depth {}, {}, {} nodes",
                info.depth,
                engine_score(info.score, game.position().turn()),
                info.nodes
            ),
        })
    }
}

/// The engine's score for `side` (the side to move) in words: `score +0.12 men for white` (its
/// unit is the man), `white wins in 7 plies` for a won or lost game found by the search, or
/// `white wins by the endgame database`.
pub fn engine_score(score: i32, side: Color) -> String {
    let winner = if score > 0 { side } else { !side };
    if score.abs() > MATE_BOUND {
        format!("{winner} wins in {} plies", MATE - score.abs())
    } else if score.abs() > DATABASE_BOUND {
        format!("{winner} wins by the endgame database")
    } else {
        format!("score {:+.2} men for {side}", f64::from(score) / 100.0)
    }
}

/// MCTS over an evaluator: its search's simulations or a time per move, no noise, the most
/// visited move (or the Gumbel search's choice).
///
/// With a time per move, the tree below the moves played since the player's last move is
/// kept and searched on, as engines that play by the clock do (Lc0); with a simulation count
/// every move is searched afresh, so that a count means the same in every rating.
pub struct MctsPlayer<V: Rules> {
    evaluator: Arc<dyn Evaluator<V>>,
    config: SearchConfig,
    time: Option<Duration>,
    seed: u64,
    stop: Arc<AtomicBool>,
    /// The last search (time per move only), for [`Search::follow`].
    kept: Option<Search<V>>,
}

impl<V: Rules> MctsPlayer<V> {
    /// A player searching with `config` (its simulations per move) over `evaluator`, or for
    /// `time` per move if given.
    pub fn new(
        evaluator: Arc<dyn Evaluator<V>>,
        config: SearchConfig,
        time: Option<Duration>,
        seed: u64,
    ) -> Self {
        MctsPlayer {
            evaluator,
            config,
            time,
            seed,
            stop: Arc::new(AtomicBool::new(false)),
            kept: None,
        }
    }
}

impl<V: Rules> MctsPlayer<V> {
    /// Builds such players, one per thread, all sharing `evaluator`.
    pub fn factory(
        evaluator: Arc<dyn Evaluator<V>>,
        config: SearchConfig,
        time: Option<Duration>,
    ) -> crate::BoxedFactory<V> {
        Box::new(move |seed| {
            Box::new(MctsPlayer::new(
                evaluator.clone(),
                config.clone(),
                time,
                seed,
            )) as Box<dyn Player<V>>
        })
    }
}

impl<V: Rules> Player<V> for MctsPlayer<V> {
    fn stop_handle(&self) -> Option<Arc<AtomicBool>> {
        Some(Arc::clone(&self.stop))
    }

    fn new_game(&mut self) {
        self.kept = None;
    }

    fn play(&mut self, game: &Game<V>) -> Result<Answer<V>, Forfeit> {
        // The clock runs from here: following the kept tree copies its subtree, part of the
        // move's time.
        let started = Instant::now();
        self.seed = self.seed.wrapping_add(1);
        let mut search = match self.kept.take().and_then(|kept| kept.follow(game)) {
            Some(search) => search,
            None => Search::new(game.clone(), self.config.clone(), self.seed),
        };
        let inherited = search.root_visits();
        let evaluator = self.evaluator.as_ref();
        match self.time {
            None => {
                search.start(RootNoise::Off);
                search.run_while(&evaluator, |_| !self.stop.load(Ordering::Relaxed));
            }
            Some(time) => {
                search.start_with_budget(u32::MAX, RootNoise::Off);
                search.run_while(&evaluator, |_| {
                    started.elapsed() < time && !self.stop.load(Ordering::Relaxed)
                });
            }
        }
        let report = search.report();
        if report.moves.is_empty() {
            return Err(Forfeit("no legal move".into()));
        }
        let index = search.choose(0.0);
        let mv = report.moves[index];
        let answer = Answer {
            mv,
            score: Some((report.value * 1000.0) as i32),
            info: format!(
                "{} simulations ({} new), value {:+.3} for {} (+1 a win, -1 a loss)",
                report.simulations,
                report.simulations - inherited,
                report.value,
                game.position().turn()
            ),
        };
        if self.time.is_some() {
            self.kept = Some(search);
        }
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damas_mcts::UniformEvaluator;
    use damas_rules::variants::Russian;

    /// By the clock the player keeps its search and follows the game from it into the subtree
    /// of the opponent's reply; by simulations it keeps nothing; another game is not followed.
    #[test]
    fn a_player_by_the_clock_keeps_its_tree_between_moves() {
        for time in [Some(Duration::from_millis(200)), None] {
            let config = SearchConfig {
                simulations: 200,
                ..SearchConfig::default()
            };
            let mut player =
                MctsPlayer::<Russian>::new(Arc::new(UniformEvaluator), config, time, 1);
            player.new_game();
            let mut game = Game::<Russian>::new();
            let first = player.play(&game).unwrap();
            game.play(&first.mv);
            let Some(kept) = player.kept.take() else {
                assert!(time.is_none(), "a player by the clock keeps its search");
                continue;
            };
            assert!(time.is_some(), "a player by simulations keeps nothing");
            let kept = kept.follow(&game).expect("the game continues the search");
            // The opponent answers with the reply the kept tree searched most.
            let report = kept.report();
            let most = report.most_visited().unwrap();
            assert!(report.visits[most] > 0);
            game.play(&report.moves[most]);
            let search = kept.follow(&game).expect("the game continues the search");
            assert_eq!(search.game().position(), game.position());
            assert_eq!(search.game().moves(), game.moves());
            assert!(search.root_visits() > 0);
            // Another game (here, the start again) is not followed.
            assert!(search.follow(&Game::<Russian>::new()).is_none());
        }
    }
}
