//! One game's search: PUCT selection with first-play urgency and virtual loss, Dirichlet noise at
//! the root, optional Gumbel sequential halving at the root, and tree reuse between moves.
//!
//! A search does not call the evaluator itself. [`Search::gather`] walks the tree to new leaves
//! and keeps them; the caller evaluates the leaves of many searches in one batch and hands each
//! search its answers with [`Search::deliver`]. [`Search::run`] does both for a lone search.

use crate::evaluator::{Evaluation, Evaluator, Leaf};
use crate::gumbel::Gumbel;
use crate::tree::{NodeId, NodeState, Tree};
use damas_egdb::{Egdb, Signature, Wdl};
use damas_rules::{Game, Move, Outcome, Rules};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Gamma};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// How a search spends its simulations. Every field has a default; a config file names only
/// what it changes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// Simulations (leaf evaluations or terminal visits) per move.
    pub simulations: u32,
    /// Exploration constant of PUCT: how much the prior counts against the value.
    pub c_puct: f32,
    /// First-play urgency: an untried move is valued at the parent's value minus this times the
    /// square root of the prior mass already tried (Lc0's reduction).
    pub fpu_reduction: f32,
    /// Concentration of the Dirichlet noise mixed into the root priors when noise is on.
    pub dirichlet_alpha: f32,
    /// Weight of that noise.
    pub dirichlet_epsilon: f32,
    /// Gumbel root search with sequential halving instead of PUCT at the root.
    pub gumbel: bool,
    /// Moves the Gumbel root search considers at the start (it halves them each phase).
    pub gumbel_candidates: u32,
    /// `c_visit` of the Gumbel paper's value transform sigma.
    pub gumbel_c_visit: f32,
    /// `c_scale` of the Gumbel paper's value transform sigma.
    pub gumbel_c_scale: f32,
    /// Most leaves one tree sends to a single batch (the rest of the batch comes from other
    /// games); more leaves per tree means more virtual loss and a less exact search.
    pub leaves_per_batch: u32,
    /// Positions with exactly one legal move (forced captures are common in draughts) are
    /// walked through inside the tree instead of being sent to the network: the evaluation
    /// goes to the first position after them where there is a choice.
    pub walk_forced_moves: bool,
    /// KataGo's forced playouts, `k`: with root noise on, each root move gets at least
    /// sqrt(k x prior x root visits) visits, and the policy target then prunes those visits
    /// back as far as the move would not have earned them (0: off; KataGo uses 2).
    pub forced_playouts: f32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            simulations: 200,
            c_puct: 1.5,
            fpu_reduction: 0.25,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.25,
            gumbel: false,
            gumbel_candidates: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 1.0,
            leaves_per_batch: 4,
            walk_forced_moves: true,
            forced_playouts: 0.0,
        }
    }
}

/// A config value out of its range: the key, the value given and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{key}` = {value}: {allowed}")]
pub struct InvalidValue {
    /// The key, with its section (`selfplay.search.c_puct`).
    pub key: String,
    /// The value given.
    pub value: String,
    /// What is allowed.
    pub allowed: String,
}

impl InvalidValue {
    /// Checks `ok`; if not, names `key` in `section`, its `value` and what is `allowed`.
    pub fn check(
        ok: bool,
        section: &str,
        key: &str,
        value: impl std::fmt::Display,
        allowed: &str,
    ) -> Result<(), InvalidValue> {
        if ok {
            return Ok(());
        }
        let key = if section.is_empty() {
            key.to_string()
        } else {
            format!("{section}.{key}")
        };
        Err(InvalidValue {
            key,
            value: value.to_string(),
            allowed: allowed.to_string(),
        })
    }
}

/// Whether a search explores at the root: self-play adds noise so that games differ (Dirichlet
/// noise on the PUCT priors, Gumbel noise on the Gumbel sampling); matches and analysis search
/// without it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootNoise {
    /// No noise: the search's best judgement.
    Off,
    /// No exploration noise, but the move stays a sample where the search draws it: Gumbel keeps
    /// its Gumbel noise (its move is a Gumbel-max draw from the improved policy), PUCT adds
    /// nothing (it samples through [`Search::choose`]'s temperature). Self-play's cheap searches,
    /// whose moves must vary from game to game although they are not recorded.
    MoveSampling,
    /// Exploration noise at the root, for self-play's recorded searches.
    On,
}

impl SearchConfig {
    /// Checks every value against its range; `section` prefixes the keys in the error.
    pub fn validate(&self, section: &str) -> Result<(), InvalidValue> {
        let check = |ok, key, value: &dyn std::fmt::Display, allowed| {
            InvalidValue::check(ok, section, key, value, allowed)
        };
        let positive = |x: f32| x.is_finite() && x > 0.0;
        check(
            (1..=1_000_000).contains(&self.simulations),
            "simulations",
            &self.simulations,
            "1 to 1000000",
        )?;
        check(
            positive(self.c_puct),
            "c_puct",
            &self.c_puct,
            "a positive number",
        )?;
        check(
            self.fpu_reduction.is_finite() && self.fpu_reduction >= 0.0,
            "fpu_reduction",
            &self.fpu_reduction,
            "0 or more",
        )?;
        check(
            positive(self.dirichlet_alpha),
            "dirichlet_alpha",
            &self.dirichlet_alpha,
            "a positive number",
        )?;
        check(
            (0.0..=1.0).contains(&self.dirichlet_epsilon),
            "dirichlet_epsilon",
            &self.dirichlet_epsilon,
            "0 to 1",
        )?;
        check(
            self.gumbel_candidates >= 1,
            "gumbel_candidates",
            &self.gumbel_candidates,
            "at least 1",
        )?;
        check(
            positive(self.gumbel_c_visit),
            "gumbel_c_visit",
            &self.gumbel_c_visit,
            "a positive number",
        )?;
        check(
            positive(self.gumbel_c_scale),
            "gumbel_c_scale",
            &self.gumbel_c_scale,
            "a positive number",
        )?;
        check(
            (1..=256).contains(&self.leaves_per_batch),
            "leaves_per_batch",
            &self.leaves_per_batch,
            "1 to 256",
        )
    }
}

/// A leaf sent to the evaluator and not answered yet.
#[derive(Clone, Debug)]
struct PendingLeaf<V: Rules> {
    path: Vec<NodeId>,
    game: Game<V>,
    moves: Vec<Move<V::Geometry>>,
}

/// What a finished search found at the root.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchReport<V: Rules> {
    /// The root's legal moves.
    pub moves: Vec<Move<V::Geometry>>,
    /// Completed visits of each move.
    pub visits: Vec<u32>,
    /// The training target over the moves: visit shares (PUCT) or the Gumbel improved policy.
    pub policy: Vec<f32>,
    /// The search's value of the root for the side to move, in [-1, 1].
    pub value: f32,
    /// Simulations completed.
    pub simulations: u32,
}

impl<V: Rules> SearchReport<V> {
    /// Index of the most visited move, ties going to the higher policy share (the priors before
    /// any visit); `None` without moves.
    pub fn most_visited(&self) -> Option<usize> {
        let key = |i: usize| (self.visits[i], self.policy[i]);
        (0..self.moves.len()).max_by(|&a, &b| key(a).partial_cmp(&key(b)).expect("finite"))
    }
}

/// The search of one game's current position.
pub struct Search<V: Rules> {
    config: SearchConfig,
    game: Game<V>,
    tree: Tree<V::Geometry>,
    pending: Vec<PendingLeaf<V>>,
    budget: u32,
    started: u32,
    noise: RootNoise,
    /// The root's priors before Dirichlet noise was mixed into them, if it was.
    clean_priors: Option<Vec<f32>>,
    /// The evaluator's own value of the root, for the Gumbel value completion.
    root_eval: Option<f32>,
    gumbel: Option<Gumbel>,
    rng: StdRng,
    egdb: Option<Arc<Egdb<V>>>,
    database_hits: u64,
}

/// What each unit of [`damas_egdb::Probe::progress`] takes off a database win's value (and adds
/// to a loss's): a ply to the next conversion 0.00001, a lower material rank 0.00256; five
/// pieces at most take 0.041 off.
const DATABASE_PROGRESS_DISCOUNT: f32 = 0.000_01;

/// The value of a finished game for the side to move.
fn outcome_value(outcome: Outcome, side_to_move: damas_rules::Color) -> f32 {
    match outcome {
        Outcome::Win { winner, .. } if winner == side_to_move => 1.0,
        Outcome::Win { .. } => -1.0,
        Outcome::Draw(_) => 0.0,
    }
}

impl<V: Rules> Search<V> {
    /// A search of `game`'s current position; `seed` fixes its noise.
    pub fn new(game: Game<V>, config: SearchConfig, seed: u64) -> Self {
        Search {
            config,
            game,
            tree: Tree::default(),
            pending: Vec::new(),
            budget: 0,
            started: 0,
            noise: RootNoise::Off,
            clean_priors: None,
            root_eval: None,
            gumbel: None,
            rng: StdRng::seed_from_u64(seed),
            egdb: None,
            database_hits: 0,
        }
    }

    /// Treats the positions below the root that `egdb` holds as finished games with the
    /// database's value (no evaluation asked for); `None` evaluates them.
    pub fn set_egdb(&mut self, egdb: Option<Arc<Egdb<V>>>) {
        self.egdb = egdb;
    }

    /// Leaves the endgame database answered so far (evaluations it saved).
    pub fn database_hits(&self) -> u64 {
        self.database_hits
    }

    /// The database's value of `game`'s position for the side to move, if it holds it: a win
    /// is worth a little less the further it is from the end (its progress: more material,
    /// more plies to the next conversion), so that the search converts and makes progress.
    fn database_value(&self, game: &Game<V>) -> Option<f32> {
        let position = game.position();
        let probe = self.egdb.as_ref()?.probe(position)?;
        let progress = probe.progress(Signature::of(position)).unwrap_or(0);
        let discount = progress as f32 * DATABASE_PROGRESS_DISCOUNT;
        Some(match probe.wdl {
            Wdl::Win => 1.0 - discount,
            Wdl::Draw => 0.0,
            Wdl::Loss => discount - 1.0,
        })
    }

    /// The game at the root.
    pub fn game(&self) -> &Game<V> {
        &self.game
    }

    /// Simulations through the root so far, those of a followed tree included.
    pub fn root_visits(&self) -> u32 {
        self.tree.node(Tree::<V::Geometry>::ROOT).visits
    }

    /// The tree (for inspection and memory accounting).
    pub fn tree(&self) -> &Tree<V::Geometry> {
        &self.tree
    }

    /// The configuration.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Starts searching the root with the configured number of simulations.
    /// A root with a single legal move, or none, needs no search: the search is finished at once.
    pub fn start(&mut self, noise: RootNoise) {
        self.start_with_budget(self.config.simulations, noise);
    }

    /// Starts searching the root with `simulations` simulations instead of the configured
    /// number: self-play's cheap searches (playout cap randomisation), or `u32::MAX` for a
    /// search bounded by time or stopped from outside ([`Search::run_while`]). Gumbel plans a
    /// budget above the configured simulations in rounds of doubling size, so it can be
    /// stopped anywhere and needs no memory in proportion to the budget.
    pub fn start_with_budget(&mut self, simulations: u32, noise: RootNoise) {
        self.budget = simulations;
        self.started = 0;
        self.noise = noise;
        self.clean_priors = None;
        self.gumbel = None;
        self.pending.clear();
        let mut root = self.tree.node(Tree::<V::Geometry>::ROOT).state;
        if matches!(root, NodeState::Terminal(_)) && self.game.outcome().is_none() {
            // A position the endgame database answered as a leaf: as the root it is searched.
            self.tree = Tree::default();
            root = NodeState::Unexpanded;
        }
        if root == NodeState::Unexpanded {
            if let Some(outcome) = self.game.outcome() {
                let value = outcome_value(outcome, self.game.position().turn());
                self.tree.node_mut(Tree::<V::Geometry>::ROOT).state = NodeState::Terminal(value);
            } else {
                let moves = self.game.legal_moves();
                if moves.len() == 1 {
                    self.tree.expand(Tree::<V::Geometry>::ROOT, &moves, &[1.0]);
                }
            }
        }
        if self.tree.node(Tree::<V::Geometry>::ROOT).state == NodeState::Expanded {
            self.root_eval = Some(-self.tree.node(Tree::<V::Geometry>::ROOT).mean());
            self.prepare_root();
        }
    }

    /// Whether the search has used its simulations (or needs none) and has nothing pending.
    pub fn is_finished(&self) -> bool {
        self.pending.is_empty() && self.exhausted()
    }

    /// Whether no further simulation may start (pending ones aside).
    fn exhausted(&self) -> bool {
        let root = self.tree.node(Tree::<V::Geometry>::ROOT);
        match root.state {
            NodeState::Terminal(_) => true,
            NodeState::Expanded if root.edge_count <= 1 => true,
            _ => self.started >= self.budget || self.gumbel.as_ref().is_some_and(Gumbel::finished),
        }
    }

    /// Walks the tree to at most `leaves_per_batch` new leaves, keeping them for
    /// [`Search::leaves`]. Finished games met on the way are backed up at once.
    pub fn gather(&mut self) {
        debug_assert!(self.pending.is_empty(), "deliver the last batch first");
        if let Some(gumbel) = &mut self.gumbel {
            gumbel.plan(&self.tree, &self.config);
        }
        for _ in 0..self.config.leaves_per_batch {
            if self.exhausted() {
                break;
            }
            let forced = match &self.gumbel {
                Some(gumbel) => match gumbel.next_action(&self.tree) {
                    Some(action) => Some(action),
                    None => break,
                },
                None => None,
            };
            // A collision (a pending leaf on the way) ends the batch; Gumbel's visit is still
            // owed, and asked for again next time.
            if !self.descend(forced) {
                break;
            }
        }
    }

    /// One simulation from the root: returns false on a collision with a pending leaf.
    fn descend(&mut self, mut forced: Option<usize>) -> bool {
        let mut path = vec![Tree::<V::Geometry>::ROOT];
        let mut game = self.game.clone();
        loop {
            let id = *path.last().expect("the path starts at the root");
            match self.tree.node(id).state {
                NodeState::Pending => return false,
                NodeState::Terminal(value) => {
                    self.tree.back_up(&path, value, false);
                    self.started += 1;
                    return true;
                }
                NodeState::Unexpanded => {
                    if let Some(outcome) = game.outcome() {
                        let value = outcome_value(outcome, game.position().turn());
                        self.tree.node_mut(id).state = NodeState::Terminal(value);
                        self.tree.back_up(&path, value, false);
                    } else if let Some(value) = (path.len() > 1)
                        .then(|| self.database_value(&game))
                        .flatten()
                    {
                        self.database_hits += 1;
                        self.tree.node_mut(id).state = NodeState::Terminal(value);
                        self.tree.back_up(&path, value, false);
                    } else if self.config.walk_forced_moves && game.legal_moves().len() == 1 {
                        // Nothing to choose: expand without the network and walk on.
                        let moves = game.legal_moves().to_vec();
                        self.tree.expand(id, &moves, &[1.0]);
                        continue;
                    } else {
                        let moves = game.legal_moves().to_vec();
                        self.tree.node_mut(id).state = NodeState::Pending;
                        self.tree.add_in_flight(&path);
                        self.pending.push(PendingLeaf { path, game, moves });
                    }
                    self.started += 1;
                    return true;
                }
                NodeState::Expanded => {
                    let index = forced
                        .take()
                        .or_else(|| (path.len() == 1).then(|| self.forced_root_move()).flatten())
                        .unwrap_or_else(|| self.select(id));
                    let mv = self.tree.edges(id)[index].mv;
                    let child = self.tree.child_or_new(id, index);
                    game.play(&mv);
                    path.push(child);
                }
            }
        }
    }

    /// Visits root move `prior` is owed by forced playouts when the root has `visits`.
    fn forced_visits(&self, prior: f32, visits: u32) -> f32 {
        (self.config.forced_playouts * prior * visits as f32).sqrt()
    }

    /// The root move furthest below its forced playouts, if any (only with root noise on).
    fn forced_root_move(&self) -> Option<usize> {
        if self.config.forced_playouts <= 0.0
            || self.noise != RootNoise::On
            || self.gumbel.is_some()
        {
            return None;
        }
        let root = Tree::<V::Geometry>::ROOT;
        let node = self.tree.node(root);
        let visits = node.visits + node.in_flight;
        self.tree
            .edges(root)
            .iter()
            .enumerate()
            .filter_map(|(index, edge)| {
                let tried = edge.child().map_or(0, |c| {
                    self.tree.node(c).visits + self.tree.node(c).in_flight
                });
                let owed = self.forced_visits(edge.prior, visits) - tried as f32;
                (owed >= 1.0).then_some((index, owed))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(index, _)| index)
    }

    /// The root's visits with forced playouts pruned back (KataGo): every move but the most
    /// visited loses as many of its forced visits as it can while its PUCT score stays at most
    /// the best move's; a move left with a single visit loses it.
    pub fn pruned_visits(&self) -> Vec<u32> {
        let root = Tree::<V::Geometry>::ROOT;
        let edges = self.tree.edges(root);
        let stats: Vec<(u32, f32)> = edges
            .iter()
            .map(|e| {
                e.child().map_or((0, 0.0), |c| {
                    let node = self.tree.node(c);
                    // The child's mean is from the root's view already negated for its mover.
                    (node.visits, if node.visits > 0 { node.mean() } else { 0.0 })
                })
            })
            .collect();
        let total: u32 = stats.iter().map(|s| s.0).sum();
        let Some(best) = (0..stats.len()).max_by_key(|&i| stats[i].0) else {
            return Vec::new();
        };
        let exploration = self.config.c_puct * (total.max(1) as f32).sqrt();
        let puct = |i: usize, n: f32| stats[i].1 + exploration * edges[i].prior / (1.0 + n);
        let ceiling = puct(best, stats[best].0 as f32);
        (0..stats.len())
            .map(|i| {
                let n = stats[i].0;
                if i == best || n == 0 {
                    return n;
                }
                let forced = self.forced_visits(edges[i].prior, total).floor() as u32;
                let mut kept = n.saturating_sub(forced);
                while kept < n && puct(i, kept as f32) > ceiling {
                    kept += 1;
                }
                if kept <= 1 { 0 } else { kept }
            })
            .collect()
    }

    /// The PUCT choice among the edges of `id`.
    fn select(&self, id: NodeId) -> usize {
        let node = self.tree.node(id);
        let parent_visits = (node.visits + node.in_flight).max(1) as f32;
        let exploration = self.config.c_puct * parent_visits.sqrt();
        let edges = self.tree.edges(id);
        let tried_prior: f32 = edges
            .iter()
            .filter_map(|edge| {
                edge.child()
                    .map(|child| (edge.prior, self.tree.node(child)))
            })
            .filter(|(_, child)| child.visits + child.in_flight > 0)
            .map(|(prior, _)| prior)
            .sum();
        // The node's own mean is from its parent's view; its side to move sees the opposite.
        let first_play = -node.mean() - self.config.fpu_reduction * tried_prior.sqrt();
        let mut best = (0, f32::NEG_INFINITY);
        for (index, edge) in edges.iter().enumerate() {
            let (q, n) = match edge.child().map(|child| self.tree.node(child)) {
                Some(child) if child.visits + child.in_flight > 0 => {
                    let n = (child.visits + child.in_flight) as f32;
                    // Visits in flight count as losses until they come back.
                    ((child.value_sum - child.in_flight as f32) / n, n)
                }
                _ => (first_play, 0.0),
            };
            let score = q + exploration * edge.prior / (1.0 + n);
            if score > best.1 {
                best = (index, score);
            }
        }
        best.0
    }

    /// The leaves gathered for evaluation.
    pub fn leaves(&self) -> impl ExactSizeIterator<Item = Leaf<'_, V>> {
        self.pending.iter().map(|leaf| Leaf {
            game: &leaf.game,
            moves: &leaf.moves,
        })
    }

    /// Number of leaves gathered and not yet delivered.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Takes the evaluations of the gathered leaves, in order: expands them and backs up values.
    pub fn deliver(&mut self, evaluations: impl IntoIterator<Item = Evaluation>) {
        let pending = std::mem::take(&mut self.pending);
        let mut evaluations = evaluations.into_iter();
        for leaf in pending {
            let evaluation = evaluations.next().expect("one evaluation per leaf");
            let id = *leaf.path.last().expect("non-empty path");
            self.tree.expand(id, &leaf.moves, &evaluation.priors);
            self.tree.back_up(&leaf.path, evaluation.value, true);
            if id == Tree::<V::Geometry>::ROOT {
                self.root_eval = Some(evaluation.value);
                self.prepare_root();
            }
        }
    }

    /// Root noise and the Gumbel candidates, once the root has its priors.
    fn prepare_root(&mut self) {
        let root = Tree::<V::Geometry>::ROOT;
        if self.config.gumbel {
            let rng = (self.noise != RootNoise::Off).then_some(&mut self.rng);
            self.gumbel = Some(Gumbel::new(&self.tree, &self.config, self.budget, rng));
        } else if self.noise == RootNoise::On && self.tree.node(root).edge_count > 1 {
            let gamma = Gamma::new(self.config.dirichlet_alpha.max(1e-3), 1.0)
                .expect("a positive concentration");
            let noise: Vec<f32> = (0..self.tree.node(root).edge_count)
                .map(|_| gamma.sample(&mut self.rng).max(f32::MIN_POSITIVE))
                .collect();
            let total: f32 = noise.iter().sum();
            let epsilon = self.config.dirichlet_epsilon;
            self.clean_priors = Some(self.tree.edges(root).iter().map(|e| e.prior).collect());
            for (edge, eta) in self.tree.edges_mut(root).iter_mut().zip(noise) {
                edge.prior = (1.0 - epsilon) * edge.prior + epsilon * eta / total;
            }
        }
    }

    /// Runs the whole search for this one game, evaluating one batch of leaves at a time.
    pub fn run(&mut self, evaluator: &impl Evaluator<V>) {
        self.run_while(evaluator, |_| true);
    }

    /// Runs the search for this one game until it finishes or `go_on` (asked before each batch)
    /// says to stop: for searches bounded by time or stopped from outside.
    pub fn run_while(
        &mut self,
        evaluator: &impl Evaluator<V>,
        mut go_on: impl FnMut(&Self) -> bool,
    ) {
        while !self.is_finished() && go_on(self) {
            self.gather();
            if self.pending.is_empty() {
                continue;
            }
            let evaluations = evaluator.evaluate(&self.leaves().collect::<Vec<_>>());
            self.deliver(evaluations);
        }
    }

    /// What the search found at the root.
    pub fn report(&self) -> SearchReport<V> {
        let root = Tree::<V::Geometry>::ROOT;
        let edges = self.tree.edges(root);
        let visits: Vec<u32> = edges
            .iter()
            .map(|e| e.child().map_or(0, |c| self.tree.node(c).visits))
            .collect();
        let total: u32 = visits.iter().sum();
        let pruned =
            (self.config.forced_playouts > 0.0 && self.noise == RootNoise::On && total > 0)
                .then(|| self.pruned_visits())
                .filter(|kept| kept.iter().sum::<u32>() > 0);
        let policy = match (&self.gumbel, pruned) {
            (Some(gumbel), _) => {
                gumbel.improved_policy(&self.tree, &self.config, self.root_value())
            }
            // No visits (a single simulation): the network's own priors, never the noised ones,
            // which would teach the network its exploration noise.
            _ if total == 0 => match &self.clean_priors {
                Some(priors) => priors.clone(),
                None => edges.iter().map(|e| e.prior).collect(),
            },
            (None, Some(kept)) => {
                let sum: u32 = kept.iter().sum();
                kept.iter().map(|&n| n as f32 / sum as f32).collect()
            }
            (None, None) => visits.iter().map(|&n| n as f32 / total as f32).collect(),
        };
        SearchReport {
            moves: edges.iter().map(|e| e.mv).collect(),
            visits,
            policy,
            value: match self.tree.node(root).state {
                NodeState::Terminal(value) => value,
                _ => self.root_value(),
            },
            simulations: self.tree.node(root).visits,
        }
    }

    /// The root's value for its side to move: the mean of the backed-up values, or the
    /// evaluator's value before any.
    fn root_value(&self) -> f32 {
        let root = self.tree.node(Tree::<V::Geometry>::ROOT);
        if root.visits > 0 {
            -root.mean()
        } else {
            self.root_eval.unwrap_or(0.0)
        }
    }

    /// Index (into the report's moves) of the move to play. With Gumbel it is the sequential
    /// halving's winner (if stopped early, the best ranked of its most visited candidates); with
    /// PUCT, `temperature` 0 takes the most visited move and a positive temperature samples
    /// visits^(1/temperature).
    pub fn choose(&mut self, temperature: f32) -> usize {
        if let Some(gumbel) = &self.gumbel {
            return gumbel.best(&self.tree, &self.config, self.root_value());
        }
        let report = self.report();
        if temperature <= 0.0 || report.visits.iter().sum::<u32>() == 0 {
            return report.most_visited().expect("a position with moves");
        }
        let weights: Vec<f64> = report
            .visits
            .iter()
            .map(|&n| (n as f64).powf(1.0 / temperature as f64))
            .collect();
        let mut pick = self.rng.random::<f64>() * weights.iter().sum::<f64>();
        for (index, weight) in weights.iter().enumerate() {
            pick -= weight;
            if pick < 0.0 {
                return index;
            }
        }
        weights.len() - 1
    }

    /// Plays `mv` at the root and keeps the subtree below it for the next search.
    pub fn advance(&mut self, mv: &Move<V::Geometry>) {
        let index = self
            .tree
            .edges(Tree::<V::Geometry>::ROOT)
            .iter()
            .position(|e| e.mv == *mv);
        self.tree = match index {
            Some(index) => self.tree.subtree(index),
            None => Tree::default(),
        };
        self.game.play(mv);
        self.pending.clear();
        self.gumbel = None;
        self.root_eval = None;
        self.clean_priors = None;
    }

    /// This search advanced through the moves `game` played after the searched position,
    /// keeping the subtree below them (Lc0's tree reuse), or `None` if `game` does not continue
    /// the game searched (another start, or another move on the way). The next
    /// [`Search::start_with_budget`] searches on from the kept visits (Gumbel counts only its
    /// own).
    pub fn follow(mut self, game: &Game<V>) -> Option<Self> {
        let played = self.game.moves().len();
        if game.start() != self.game.start() || game.moves().get(..played)? != self.game.moves() {
            return None;
        }
        for mv in &game.moves()[played..] {
            self.advance(mv);
        }
        (self.game.position() == game.position()).then_some(self)
    }
}

/// Runs many searches to the end together: each round gathers leaves from every unfinished
/// search and evaluates them in one batch.
pub fn run_batched<V: Rules>(searches: &mut [Search<V>], evaluator: &impl Evaluator<V>) {
    loop {
        let mut active = false;
        for search in searches.iter_mut().filter(|s| !s.is_finished()) {
            search.gather();
            active = true;
        }
        if !active {
            return;
        }
        evaluate_pending(searches, evaluator);
    }
}

/// Evaluates the leaves every search has gathered, in one call, and delivers the answers.
pub fn evaluate_pending<V: Rules>(searches: &mut [Search<V>], evaluator: &impl Evaluator<V>) {
    let leaves: Vec<Leaf<'_, V>> = searches.iter().flat_map(Search::leaves).collect();
    if leaves.is_empty() {
        return;
    }
    let mut evaluations = evaluator.evaluate(&leaves).into_iter();
    drop(leaves);
    for search in searches {
        let count = search.pending();
        search.deliver(evaluations.by_ref().take(count));
    }
}
