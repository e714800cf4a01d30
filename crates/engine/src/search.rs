//! Iterative-deepening principal variation search with a transposition table, killer and history
//! move ordering, and forced captures searched past the horizon (quiescence).

use crate::eval::{Tables, Weights, evaluate};
use crate::tt::{Bound, Table};
use damas_egdb::{Egdb, Signature, Wdl};
use damas_rules::{Bits, Game, Geometry, Move, MoveList, Position, Rules, movegen};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A won game for the side to move, `ply` plies from the root, scores `MATE - ply`.
pub const MATE: i32 = 30_000;
/// Scores beyond this are wins or losses in so many plies.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// A database win scores `DATABASE_WIN` less its [`damas_egdb::Probe::progress`] (the
/// material's rank, then the plies to the next conversion): above every evaluation, below every
/// proven result, converting first. The tables' distances count to the next conversion, not to
/// the end of the game, so they make no mate scores.
pub const DATABASE_WIN: i32 = MATE_BOUND - 1_000;
/// Scores beyond this and within [`MATE_BOUND`] are database wins or losses (a progress is
/// below 8,192 up to 31 pieces).
pub const DATABASE_BOUND: i32 = DATABASE_WIN - 8_192;
/// Deepest ply a search reaches (captures included).
const MAX_PLY: usize = 128;

/// A game clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time left for the side to move.
    pub remaining: Duration,
    /// Time added after each move.
    pub increment: Duration,
    /// Moves until the next time control, if the control is not for the whole game.
    pub moves_to_go: Option<u32>,
}

/// When a search must stop; any limit that is reached stops it. No limit: search until stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration, in plies.
    pub depth: Option<u32>,
    /// Most nodes.
    pub nodes: Option<u64>,
    /// Fixed time for this move.
    pub move_time: Option<Duration>,
    /// A game clock to budget this move from.
    pub clock: Option<Clock>,
}

impl Limits {
    /// A search to a fixed depth.
    pub fn depth(depth: u32) -> Self {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// The time this move may take, if any limit sets one.
    pub fn budget(&self) -> Option<Duration> {
        let from_clock = self.clock.map(|clock| {
            let moves = clock.moves_to_go.unwrap_or(30).max(1);
            let share = clock.remaining / moves + clock.increment * 3 / 4;
            // Keep a reserve: never plan to use more than a third of what is left.
            share.min(clock.remaining / 3)
        });
        match (self.move_time, from_clock) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// Engine settings.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Transposition table size in MiB.
    pub tt_megabytes: usize,
    /// Evaluation weights.
    pub weights: Weights,
    /// Whether equal-score root moves are tried in a seeded random order, so that the tie goes to
    /// a different move for each seed (games between the same players then differ).
    pub randomize: bool,
    /// Seed of the randomisation.
    pub seed: u64,
}

impl EngineConfig {
    /// The defaults for variant `V`: 32 MiB of table, the family's weights, no randomisation.
    pub fn for_rules<V: Rules>() -> Self {
        EngineConfig {
            tt_megabytes: 32,
            weights: Weights::for_rules::<V>(),
            randomize: false,
            seed: 0,
        }
    }
}

/// What a finished iteration found.
#[derive(Clone, Debug)]
pub struct SearchInfo<G: Geometry> {
    /// The iteration's depth.
    pub depth: u32,
    /// Score for the side to move, in hundredths of a man (beyond [`MATE_BOUND`]: a forced result).
    pub score: i32,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search started.
    pub time: Duration,
    /// The principal variation.
    pub pv: Vec<Move<G>>,
    /// Positions answered by the endgame database instead of searched.
    pub database_hits: u64,
}

/// The move a search chose and what it saw.
#[derive(Clone, Debug)]
pub struct SearchResult<G: Geometry> {
    /// The move to play (`None` only when there is no legal move).
    pub best: Option<Move<G>>,
    /// The expected reply, if the principal variation has one.
    pub ponder: Option<Move<G>>,
    /// The last completed iteration's report.
    pub info: SearchInfo<G>,
}

/// An alpha-beta searcher for variant `V`; keeps its table between searches.
pub struct Searcher<V: Rules> {
    config: EngineConfig,
    tables: Tables<V::Geometry>,
    tt: Table,
    history: Vec<i32>,
    killers: [[Option<(u8, u8)>; 2]; MAX_PLY],
    pv: Vec<Vec<Move<V::Geometry>>>,
    /// The legal moves at the root, as the game (with its history) allows them.
    root_moves: MoveList<V::Geometry>,
    /// Per ply, a reused buffer of (ordering key, move index).
    orders: Vec<Vec<(i32, usize)>>,
    path: Vec<u64>,
    stop: Arc<AtomicBool>,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    aborted: bool,
    egdb: Option<Arc<Egdb<V>>>,
    /// Most pieces of a position the database is probed for (its largest table's; 0: no
    /// database).
    egdb_pieces: u32,
    database_hits: u64,
}

impl<V: Rules> Searcher<V> {
    /// A searcher with `config`.
    pub fn new(config: EngineConfig) -> Self {
        Searcher {
            tt: Table::new(config.tt_megabytes),
            config,
            tables: Tables::new(),
            history: vec![0; 128 * 128],
            killers: [[None; 2]; MAX_PLY],
            pv: (0..=MAX_PLY).map(|_| Vec::with_capacity(MAX_PLY)).collect(),
            root_moves: MoveList::new(),
            orders: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            path: Vec::with_capacity(512),
            stop: Arc::new(AtomicBool::new(false)),
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            aborted: false,
            egdb: None,
            egdb_pieces: 0,
            database_hits: 0,
        }
    }

    /// Probes `egdb` below the root for every position whose table it holds: exact scores, no
    /// search below them. `None` searches without tables.
    pub fn set_egdb(&mut self, egdb: Option<Arc<Egdb<V>>>) {
        self.egdb_pieces = egdb.as_ref().map_or(0, |db| db.most_pieces());
        self.egdb = egdb.filter(|_| self.egdb_pieces > 0);
        self.tt.clear();
    }

    /// The endgame database this searcher probes, if any (see [`Self::set_egdb`]).
    pub fn egdb(&self) -> Option<&Egdb<V>> {
        self.egdb.as_deref()
    }

    /// A flag that stops the running search when set (checked every 1024 nodes). The search does
    /// not clear it: whoever sets it clears it before starting the next search, so that a stop
    /// sent just before a search begins is never lost.
    pub fn stop_handle(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// Forgets everything learnt from earlier searches (a new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.history.iter_mut().for_each(|h| *h = 0);
    }

    /// Searches the current position of `game` within `limits`, reporting each finished iteration.
    pub fn search(
        &mut self,
        game: &Game<V>,
        limits: &Limits,
        mut on_iteration: impl FnMut(&SearchInfo<V::Geometry>),
    ) -> SearchResult<V::Geometry> {
        let started = Instant::now();
        self.aborted = false;
        self.nodes = 0;
        self.database_hits = 0;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.deadline = limits.budget().map(|budget| started + budget);
        self.tt.new_search();
        self.killers = [[None; 2]; MAX_PLY];
        self.history.iter_mut().for_each(|h| *h /= 8);
        self.path.clear();
        let history = game.reversible_hashes();
        self.path
            .extend_from_slice(&history[..history.len().saturating_sub(1)]);

        let position = *game.position();
        self.root_moves = game.legal_moves();
        let legal = self.root_moves.clone();
        let mut result = SearchResult {
            best: legal.first().copied(),
            ponder: None,
            info: SearchInfo {
                depth: 0,
                score: 0,
                nodes: 0,
                time: Duration::ZERO,
                pv: Vec::new(),
                database_hits: 0,
            },
        };
        if legal.len() <= 1 && limits.depth.is_none() && limits.nodes.is_none() {
            // A forced move needs no search when playing against a clock.
            if limits.budget().is_some() {
                return result;
            }
        }
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 8)
            .min(MAX_PLY as u32 - 8);
        for depth in 1..=max_depth {
            let score = self.negamax(
                &position,
                game.hash(),
                depth as i32,
                -MATE,
                MATE,
                0,
                game.king_move_plies(),
            );
            if self.aborted && depth > 1 {
                break;
            }
            let pv = self.pv[0].clone();
            result.best = pv.first().copied().or(result.best);
            result.ponder = pv.get(1).copied();
            result.info = SearchInfo {
                depth,
                score,
                nodes: self.nodes,
                time: started.elapsed(),
                pv,
                database_hits: self.database_hits,
            };
            on_iteration(&result.info);
            if self.aborted || score.abs() > MATE_BOUND && depth as i32 > MATE - score.abs() + 2 {
                break;
            }
            // Another iteration costs several times this one: do not start what cannot finish.
            if let Some(deadline) = self.deadline
                && started.elapsed() * 2 > deadline.saturating_duration_since(started)
            {
                break;
            }
        }
        result.info.nodes = self.nodes;
        result.info.database_hits = self.database_hits;
        result.info.time = started.elapsed();
        result
    }

    fn check_limits(&mut self) {
        if self.stop.load(Ordering::Relaxed)
            || self.nodes >= self.node_limit
            || self
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline)
        {
            self.aborted = true;
        }
    }

    /// Whether the position with `hash` occurred before within the last `reversible` plies.
    fn repeats(&self, hash: u64, reversible: u32) -> bool {
        let len = self.path.len();
        let mut back = 2;
        while back <= reversible as usize && back <= len {
            if self.path[len - back] == hash {
                return true;
            }
            back += 2;
        }
        false
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        position: &Position<V::Geometry>,
        hash: u64,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        king_plies: u32,
    ) -> i32 {
        self.pv[ply].clear();
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            self.check_limits();
        }
        if self.aborted {
            return 0;
        }
        if ply > 0 {
            let draw = &V::DRAW;
            if (draw.king_move_plies > 0 && king_plies >= draw.king_move_plies)
                || (draw.repetitions > 0 && self.repeats(hash, king_plies))
            {
                return 0;
            }
            if let Some(score) = self.probe(position) {
                return score;
            }
        }
        // Captures first: past the horizon only a position without one is quiet enough to
        // evaluate, and there the quiet moves need only be counted (none: the game is over).
        let mut list = MoveList::new();
        if ply == 0 {
            // The game's own list: history-dependent rules (Frisian's same-king limit) apply at
            // the root; deeper in the tree the position's moves are searched.
            list.clone_from(&self.root_moves);
            if list.is_empty() {
                let won = MATE;
                return if V::LOSING { won } else { -won };
            }
        } else {
            movegen::captures::<V>(position, &mut list);
        }
        if list.is_empty() {
            let horizon = depth <= 0 || ply >= MAX_PLY - 1;
            if horizon && movegen::count_quiet_moves::<V>(position) > 0 {
                return evaluate::<V>(position, &self.config.weights, &self.tables);
            }
            if !horizon {
                movegen::quiet_moves::<V>(position, &mut list);
            }
            if list.is_empty() {
                let won = MATE - ply as i32;
                return if V::LOSING { won } else { -won };
            }
        } else if ply >= MAX_PLY - 1 || (depth <= 0 && const { V::MAN_MOVES.is_empty() }) {
            // Where men have no other move (Konane), a capture is the ordinary move, not a forced
            // interruption to look past: the horizon applies to it.
            return evaluate::<V>(position, &self.config.weights, &self.tables);
        }
        let pv_node = beta - alpha > 1;
        let entry = self.tt.probe(hash);
        if let Some(entry) = entry
            && ply > 0
            && !pv_node
            && entry.depth as i32 >= depth
        {
            let score = from_tt(entry.score, ply);
            let cut = match entry.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if cut {
                return score;
            }
        }
        let tt_best = entry.map_or(u16::MAX, |e| e.best);
        let mut order = std::mem::take(&mut self.orders[ply]);
        self.order(&list, tt_best, ply, &mut order);

        let original_alpha = alpha;
        let mut best_score = -MATE;
        let mut best_index = u16::MAX;
        self.path.push(hash);
        for i in 0..order.len() {
            // Selection sort: the best-scored remaining move next.
            let pick = (i..order.len()).max_by_key(|&j| order[j].0).unwrap_or(i);
            order.swap(i, pick);
            let index = order[i].1;
            let mv = list[index];
            let child = position.after(&mv);
            let child_hash = hash ^ position.hash_change(&mv);
            let reversible = !mv.is_capture() && position.all_kings().has(mv.from_bit());
            let child_kings = if reversible { king_plies + 1 } else { 0 };
            // The child's score for this side, searched in the window (low, high).
            let child_score = |search: &mut Self, low: i32, high: i32| {
                -search.negamax(
                    &child,
                    child_hash,
                    depth - 1,
                    -high,
                    -low,
                    ply + 1,
                    child_kings,
                )
            };
            // Principal variation search: the first move with the full window, the others with
            // a null window first, searched again only when they land inside (alpha, beta).
            let score = if i == 0 {
                child_score(self, alpha, beta)
            } else {
                let probe = child_score(self, alpha, alpha + 1);
                if probe > alpha && probe < beta {
                    child_score(self, alpha, beta)
                } else {
                    probe
                }
            };
            if self.aborted {
                self.path.pop();
                self.orders[ply] = order;
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_index = index as u16;
                if score > alpha {
                    alpha = score;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(mv);
                    head[ply].extend_from_slice(&tail[0]);
                    if score >= beta {
                        if !mv.is_capture() {
                            self.reward(&mv, ply, depth);
                        }
                        break;
                    }
                }
            }
        }
        self.path.pop();
        self.orders[ply] = order;
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            hash,
            to_tt(best_score, ply),
            depth.max(0) as i16,
            bound,
            best_index,
        );
        best_score
    }

    /// The database's score of a position below the root, if it has one: a draw is 0, a win
    /// [`DATABASE_WIN`] less its progress, a loss the opposite.
    fn probe(&mut self, position: &Position<V::Geometry>) -> Option<i32> {
        let db = self.egdb.as_ref()?;
        if position.occupied().count() > self.egdb_pieces {
            return None;
        }
        let probe = db.probe(position)?;
        self.database_hits += 1;
        let Some(progress) = probe.progress(Signature::of(position)) else {
            return Some(0);
        };
        let score = DATABASE_WIN - progress as i32;
        Some(if probe.wdl == Wdl::Win { score } else { -score })
    }

    /// Ordering scores for the moves of a node: table move, captures, killers, history.
    fn order(
        &self,
        list: &MoveList<V::Geometry>,
        tt_best: u16,
        ply: usize,
        order: &mut Vec<(i32, usize)>,
    ) {
        let randomised_root = ply == 0 && self.config.randomize;
        order.clear();
        order.extend(list.iter().enumerate().map(|(index, mv)| {
            let key = (mv.from_bit() as u8, mv.to_bit() as u8);
            let mut score = if index as u16 == tt_best {
                1 << 24
            } else if mv.is_capture() {
                1 << 20
            } else if self.killers[ply][0] == Some(key) {
                1 << 19
            } else if self.killers[ply][1] == Some(key) {
                1 << 18
            } else {
                self.history[mv.from_bit() as usize * 128 + mv.to_bit() as usize].min((1 << 18) - 1)
            };
            if randomised_root {
                score = self.noise(mv);
            }
            (score, index)
        }));
    }

    /// A seeded pseudo-random ordering key for a root move.
    fn noise(&self, mv: &Move<V::Geometry>) -> i32 {
        let mut z = self.config.seed
            ^ ((mv.from_bit() as u64) << 8 | mv.to_bit() as u64)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) & 0xFFFF) as i32
    }

    fn reward(&mut self, mv: &Move<V::Geometry>, ply: usize, depth: i32) {
        let key = (mv.from_bit() as u8, mv.to_bit() as u8);
        if self.killers[ply][0] != Some(key) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(key);
        }
        let slot = &mut self.history[mv.from_bit() as usize * 128 + mv.to_bit() as usize];
        *slot = slot.saturating_add(depth * depth);
    }
}

/// Mate scores are stored relative to the node, not the root.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}
