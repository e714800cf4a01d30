//! The self-play loop: worker threads each keep many games in flight, gather the leaves of all
//! their searches into one batch per round, and send finished games to the caller.

use crate::config::SelfPlayConfig;
use crate::shard::{AuxTargets, Sample};
use damas_egdb::Egdb;
use damas_mcts::{Evaluation, Evaluator, Leaf, RootNoise, Search, evaluate_pending};
use damas_nn::PackedPosition;
use damas_nn::encoding::policy_target;
use damas_rules::{
    Bits, ByColor, Color, Game, Outcome, Position, Rules, WinReason, write_game_with_outcome,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// One finished self-play game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Number of the game in this run (0-based).
    pub index: u32,
    /// The game as PDN.
    pub pdn: String,
    /// Its recorded positions, results filled in.
    pub samples: Vec<Sample>,
    /// How it ended.
    pub outcome: Outcome,
    /// Plies played.
    pub plies: u32,
    /// Whether resignation was disabled to check it, and if so whether a side would have
    /// resigned (`Some(side)`).
    pub resign_check: Option<Option<Color>>,
    /// Leaves of its searches the endgame database answered (network evaluations saved).
    pub database_hits: u64,
    /// Whether it ended by reaching a position the endgame database holds.
    pub database_result: bool,
}

impl GameRecord {
    /// In a resignation check game: whether the side that would have resigned did not lose.
    pub fn false_resignation(&self) -> bool {
        match (self.resign_check, self.outcome) {
            (Some(Some(side)), Outcome::Win { winner, .. }) => winner == side,
            (Some(Some(_)), Outcome::Draw(_)) => true,
            _ => false,
        }
    }
}

/// Counts the evaluator's positions and time, to tell network time from everything else.
pub struct TimedEvaluator<E> {
    inner: E,
    positions: AtomicU64,
    batches: AtomicU64,
    nanos: AtomicU64,
}

impl<E> TimedEvaluator<E> {
    /// Wraps `inner`.
    pub fn new(inner: E) -> Self {
        TimedEvaluator {
            inner,
            positions: AtomicU64::new(0),
            batches: AtomicU64::new(0),
            nanos: AtomicU64::new(0),
        }
    }

    /// Positions evaluated so far.
    pub fn positions(&self) -> u64 {
        self.positions.load(Ordering::Relaxed)
    }

    /// Batches evaluated so far.
    pub fn batches(&self) -> u64 {
        self.batches.load(Ordering::Relaxed)
    }

    /// Time spent inside the evaluator, summed over threads.
    pub fn time(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::Relaxed))
    }
}

impl<V: Rules, E: Evaluator<V>> Evaluator<V> for TimedEvaluator<E> {
    fn evaluate(&self, leaves: &[Leaf<'_, V>]) -> Vec<Evaluation> {
        let start = Instant::now();
        let result = self.inner.evaluate(leaves);
        self.nanos
            .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        self.positions
            .fetch_add(leaves.len() as u64, Ordering::Relaxed);
        self.batches.fetch_add(1, Ordering::Relaxed);
        result
    }
}

/// A game being played by a worker.
struct Slot<V: Rules> {
    index: u32,
    /// The ply the search took over at, after the opening's random plies.
    first_searched_ply: u32,
    /// Samples with the side to move, waiting for the result.
    samples: Vec<(Sample, Color)>,
    full_search: bool,
    resign_enabled: bool,
    would_resign: Option<Color>,
    low_value_moves: ByColor<u32>,
    database_result: bool,
    _variant: std::marker::PhantomData<V>,
}

/// Plays games until `next_game` reaches `total`, sending each finished one on `sender`.
struct Worker<'a, V: Rules, E> {
    config: &'a SelfPlayConfig,
    evaluator: &'a E,
    openings: &'a [Position<V::Geometry>],
    next_game: &'a AtomicU32,
    total: u32,
    seed: u64,
    model: &'a str,
    rng: StdRng,
    egdb: Option<&'a Arc<Egdb<V>>>,
}

impl<V: Rules, E: Evaluator<V>> Worker<'_, V, E> {
    /// Claims the next game number and sets up its search, or `None` when all are claimed.
    fn new_game(&mut self) -> Option<(Slot<V>, Search<V>)> {
        let index = self.next_game.fetch_add(1, Ordering::Relaxed);
        if index >= self.total {
            return None;
        }
        let (game, game_seed) =
            start_game::<V>(self.openings, index, self.seed, self.config.opening_plies);
        let game_ply = game.ply();
        let mut search = Search::new(game, self.config.search.clone(), game_seed);
        if self.config.egdb_search {
            search.set_egdb(self.egdb.cloned());
        }
        let check = self.rng.random::<f32>() < self.config.resign_check_fraction;
        let slot = Slot {
            index,
            first_searched_ply: game_ply,
            samples: Vec::new(),
            full_search: true,
            resign_enabled: self.config.resign_threshold > -1.0 && !check,
            would_resign: None,
            low_value_moves: ByColor::default(),
            database_result: false,
            _variant: std::marker::PhantomData,
        };
        search.start(RootNoise::On);
        Some((slot, search))
    }

    /// Plays the searched move of a finished search; returns the record if the game is over.
    fn play_move(&mut self, slot: &mut Slot<V>, search: &mut Search<V>) -> Option<GameRecord> {
        let report = search.report();
        let game = search.game();
        let turn = game.position().turn();
        let ply = game.ply();
        if report.moves.is_empty() {
            // Only a finished root has no moves: an opening that ends the game.
            let outcome = game.outcome().expect("a root without moves is finished");
            return Some(self.finish(slot, search, outcome));
        }
        let searched = report.moves.len() > 1;
        if slot.full_search && searched {
            let sample = Sample {
                position: PackedPosition::of(game),
                policy: policy_target::<V>(&report.moves, &report.policy, turn),
                result: 0,
                search_value: report.value,
                ply: ply.min(u16::MAX as u32) as u16,
                aux: None,
            };
            slot.samples.push((sample, turn));
        }
        let decided = material_deficit(game.position(), turn).is_some_and(|deficit| {
            self.config.adjudicate_material > 0
                && !V::LOSING
                && deficit >= self.config.adjudicate_material as i32
        });
        if searched && (report.value < self.config.resign_threshold || decided) {
            *slot.low_value_moves.get_mut(turn) += 1;
        } else if searched {
            *slot.low_value_moves.get_mut(turn) = 0;
        }
        if *slot.low_value_moves.get(turn) >= self.config.resign_moves.max(1) {
            if slot.resign_enabled {
                let outcome = Outcome::Win {
                    winner: !turn,
                    reason: WinReason::Resignation,
                };
                return Some(self.finish(slot, search, outcome));
            }
            slot.would_resign.get_or_insert(turn);
        }
        let temperature = self.config.move_temperature(ply - slot.first_searched_ply);
        let index = search.choose(temperature);
        search.advance(&report.moves[index]);
        if let Some(outcome) = search.game().outcome() {
            return Some(self.finish(slot, search, outcome));
        }
        if let Some(outcome) = self.database_outcome(search.game()) {
            slot.database_result = true;
            return Some(self.finish(slot, search, outcome));
        }
        if search.game().ply() >= self.config.max_plies {
            let outcome = search.game().outcome_at_cap();
            return Some(self.finish(slot, search, outcome));
        }
        slot.full_search = self.config.fast_simulations == 0
            || self.rng.random::<f32>() < self.config.full_search_fraction;
        if slot.full_search {
            search.start(RootNoise::On);
        } else {
            search.start_with_budget(self.config.fast_simulations, RootNoise::MoveSampling);
        }
        None
    }

    /// The database's result of `game`, if adjudication is on and the database holds its
    /// position.
    fn database_outcome(&self, game: &Game<V>) -> Option<Outcome> {
        let db = self.egdb.filter(|_| self.config.egdb_adjudicate)?;
        Some(db.probe(game.position())?.outcome(game.position().turn()))
    }

    /// The record of a finished game, results and auxiliary targets written into its samples.
    fn finish(&self, slot: &mut Slot<V>, search: &Search<V>, outcome: Outcome) -> GameRecord {
        let game = search.game();
        let samples = label_samples(std::mem::take(&mut slot.samples), outcome, game);
        let round = (slot.index + 1).to_string();
        let tags = [
            ("Event", "damas selfplay"),
            ("Round", round.as_str()),
            ("White", self.model),
            ("Black", self.model),
        ];
        GameRecord {
            index: slot.index,
            pdn: write_game_with_outcome(game, &tags, Some(outcome)),
            samples,
            outcome,
            plies: game.ply(),
            resign_check: (!slot.resign_enabled).then_some(slot.would_resign),
            database_hits: search.database_hits(),
            database_result: slot.database_result,
        }
    }

    /// The worker's loop.
    fn run(&mut self, sender: &mpsc::Sender<GameRecord>) {
        let mut slots = Vec::new();
        let mut searches = Vec::new();
        let config = self.config;
        for _ in 0..slots_per_worker(self.total, config.workers, config.games_per_worker) {
            if let Some((slot, search)) = self.new_game() {
                slots.push(Some(slot));
                searches.push(search);
            }
        }
        loop {
            for i in 0..slots.len() {
                while let Some(current) = slots[i].as_mut() {
                    if !searches[i].is_finished() {
                        break;
                    }
                    let Some(record) = self.play_move(current, &mut searches[i]) else {
                        continue;
                    };
                    if sender.send(record).is_err() {
                        return;
                    }
                    match self.new_game() {
                        Some((slot, search)) => {
                            slots[i] = Some(slot);
                            searches[i] = search;
                        }
                        None => slots[i] = None,
                    }
                }
            }
            if slots.iter().all(Option::is_none) {
                return;
            }
            for (slot, search) in slots.iter().zip(searches.iter_mut()) {
                if slot.is_some() {
                    search.gather();
                }
            }
            evaluate_pending(&mut searches, self.evaluator);
        }
    }
}

/// Writes each sample's result (`outcome` for the side that was to move) and its auxiliary
/// targets, read off the game's last position `end`.
pub(crate) fn label_samples<V: Rules>(
    samples: Vec<(Sample, Color)>,
    outcome: Outcome,
    end: &Game<V>,
) -> Vec<Sample> {
    samples
        .into_iter()
        .map(|(mut sample, side)| {
            sample.result = match outcome {
                Outcome::Win { winner, .. } if winner == side => 1,
                Outcome::Win { .. } => -1,
                Outcome::Draw(_) => 0,
            };
            sample.aux = Some(AuxTargets {
                plies_left: (end.ply() - u32::from(sample.ply)).min(u32::from(u16::MAX)) as u16,
                material: material_balance(end.position(), side).clamp(-128, 127) as i8,
            });
            sample
        })
        .collect()
}

/// Plays `games` self-play games of `V` with `evaluator` on `config.workers` threads, calling
/// `on_game` (on this thread) for each finished game as it arrives. `model` names the player in
/// the PDN; `openings` are start positions to cycle through (none: the variant's start);
/// `egdb` is the endgame database that `config`'s `egdb_*` keys put to use.
#[allow(clippy::too_many_arguments)]
pub fn play_games<V: Rules, E: Evaluator<V>>(
    config: &SelfPlayConfig,
    evaluator: &E,
    games: u32,
    seed: u64,
    model: &str,
    openings: &[Position<V::Geometry>],
    egdb: Option<&Arc<Egdb<V>>>,
    on_game: impl FnMut(GameRecord),
) {
    let next_game = AtomicU32::new(0);
    fan_in(
        config.workers,
        |worker_index, sender| {
            Worker {
                config,
                evaluator,
                openings,
                next_game: &next_game,
                total: games,
                seed,
                model,
                rng: StdRng::seed_from_u64(seed ^ (worker_index as u64 + 1) << 32),
                egdb,
            }
            .run(&sender)
        },
        on_game,
    );
}

/// Games each of `workers` keeps in flight: `games_per_worker`, but no more than an even share
/// of the `games`, so that a round smaller than `workers x games_per_worker` is spread over
/// every worker instead of filling the first one's slots and leaving the others idle.
pub(crate) fn slots_per_worker(games: u32, workers: usize, games_per_worker: usize) -> usize {
    let share = (games as usize).div_ceil(workers.max(1));
    games_per_worker.min(share).max(1)
}

/// Game number `index` of a round seeded by `seed`, ready to play: `openings[index % len]` (or
/// the variant's start) after `opening_plies` random plies; and the game's own seed.
pub(crate) fn start_game<V: Rules>(
    openings: &[Position<V::Geometry>],
    index: u32,
    seed: u64,
    opening_plies: u32,
) -> (Game<V>, u64) {
    let game_seed = seed ^ (u64::from(index) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut game = match openings.len() {
        0 => Game::<V>::new(),
        n => Game::from_position(openings[index as usize % n]),
    };
    game.play_random(game_seed, opening_plies);
    (game, game_seed)
}

/// Runs `play(worker_index, sender)` on `workers` (at least one) scoped threads and hands what
/// they send to `on_item`, on this thread, as it arrives.
pub(crate) fn fan_in<T: Send>(
    workers: usize,
    play: impl Fn(usize, mpsc::Sender<T>) + Sync,
    mut on_item: impl FnMut(T),
) {
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        for worker_index in 0..workers.max(1) {
            let sender = sender.clone();
            let play = &play;
            scope.spawn(move || play(worker_index, sender));
        }
        drop(sender);
        for item in receiver {
            on_item(item);
        }
    });
}

/// Material of `side` (men 1, kings 3) minus its opponent's.
pub fn material_balance<G: damas_rules::Geometry>(position: &Position<G>, side: Color) -> i32 {
    let material = |c: Color| {
        let kings = position.kings(c).count() as i32;
        position.pieces(c).count() as i32 - kings + 3 * kings
    };
    material(side) - material(!side)
}

/// How far `side` is behind in material (negative when ahead), or `None` when the position
/// has no pieces to count.
fn material_deficit<G: damas_rules::Geometry>(position: &Position<G>, side: Color) -> Option<i32> {
    let any = position.pieces(Color::White).count() + position.pieces(Color::Black).count() > 0;
    any.then(|| -material_balance(position, side))
}

#[cfg(test)]
mod tests {
    use super::slots_per_worker;

    #[test]
    fn a_small_round_is_spread_over_every_worker() {
        // 32 games on 2 workers of 32 slots: 16 each, not 32 on the first and none on the second.
        assert_eq!(slots_per_worker(32, 2, 32), 16);
        assert_eq!(slots_per_worker(33, 2, 32), 17);
        // A round larger than the slots keeps the configured number in flight.
        assert_eq!(slots_per_worker(64, 2, 32), 32);
        assert_eq!(slots_per_worker(1000, 2, 32), 32);
        // Degenerate inputs still give every worker a slot to play in.
        assert_eq!(slots_per_worker(0, 2, 32), 1);
        assert_eq!(slots_per_worker(5, 0, 32), 5);
    }
}
