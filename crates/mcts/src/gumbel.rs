//! Gumbel root search with sequential halving (Danihelka et al., "Policy improvement by planning
//! with Gumbel", ICLR 2022): sample `m` candidate moves without replacement by Gumbel-top-k,
//! share the simulations among them in phases, halving the candidates after each phase by
//! `g + logits + sigma(q)`; the training target is the improved policy
//! `softmax(logits + sigma(completed q))`.

use crate::search::SearchConfig;
use crate::tree::{NodeId, Tree};
use damas_rules::Geometry;
use rand::Rng;
use rand::rngs::StdRng;
use std::collections::VecDeque;

/// The sequential-halving state of one root.
#[derive(Clone, Debug)]
pub(crate) struct Gumbel {
    /// Log prior of every root move.
    logits: Vec<f32>,
    /// Gumbel noise plus log prior of every root move.
    scores: Vec<f32>,
    /// Moves still in the running.
    candidates: Vec<usize>,
    /// Number of candidates at the start (sets the number of phases).
    initial: usize,
    /// Root moves to visit, in order, in the current phase.
    queue: VecDeque<usize>,
    /// Phases started so far.
    phase: u32,
    finished: bool,
}

impl Gumbel {
    /// Samples the candidates from the root priors; without `rng` the Gumbel noise is zero and
    /// the candidates are simply the moves with the highest priors.
    pub(crate) fn new(priors: &[f32], config: &SearchConfig, rng: Option<&mut StdRng>) -> Self {
        let logits: Vec<f32> = priors.iter().map(|p| p.max(1e-12).ln()).collect();
        let scores: Vec<f32> = match rng {
            Some(rng) => logits
                .iter()
                .map(|logit| {
                    let u: f32 = rng.random_range(f32::MIN_POSITIVE..1.0);
                    logit - (-u.ln()).ln()
                })
                .collect(),
            None => logits.clone(),
        };
        let mut candidates: Vec<usize> = (0..priors.len()).collect();
        candidates.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        candidates.truncate((config.gumbel_candidates as usize).clamp(1, priors.len().max(1)));
        Gumbel {
            logits,
            scores,
            initial: candidates.len(),
            candidates,
            queue: VecDeque::new(),
            phase: 0,
            finished: false,
        }
    }

    /// Whether sequential halving has picked its move.
    pub(crate) fn finished(&self) -> bool {
        self.finished
    }

    /// Whether the current phase has handed out all its visits.
    pub(crate) fn phase_done(&self) -> bool {
        self.queue.is_empty() && !self.finished
    }

    /// The next root move to visit in this phase.
    pub(crate) fn next_action(&mut self) -> Option<usize> {
        self.queue.pop_front()
    }

    /// Gives back a visit that could not be made (a collision), to be made next time.
    pub(crate) fn put_back(&mut self, action: usize) {
        self.queue.push_front(action);
    }

    /// Halves the candidates (after the first phase) and schedules the next phase's visits:
    /// `budget / (phases x candidates)` each, at least one.
    pub(crate) fn next_phase<G: Geometry>(
        &mut self,
        tree: &Tree<G>,
        config: &SearchConfig,
        budget: u32,
        budget_left: u32,
    ) {
        let root_value = -tree.node(Tree::<G>::ROOT).mean();
        if self.phase > 0 {
            let keep = self.candidates.len().div_ceil(2);
            let ranked = self.rank(tree, config, root_value);
            self.candidates = ranked.into_iter().take(keep).collect();
        }
        if self.candidates.len() <= 1 || budget_left == 0 {
            self.finished = true;
            return;
        }
        let phases = (self.initial as f32).log2().ceil().max(1.0) as u32;
        let per_move = (budget / (phases * self.candidates.len() as u32)).max(1);
        for _ in 0..per_move {
            self.queue.extend(self.candidates.iter().copied());
        }
        self.phase += 1;
    }

    /// The candidates, best first by `g + logits + sigma(q)`.
    fn rank<G: Geometry>(
        &self,
        tree: &Tree<G>,
        config: &SearchConfig,
        root_value: f32,
    ) -> Vec<usize> {
        let sigma = self.sigma_of_completed_q(tree, config, root_value);
        let mut ranked = self.candidates.clone();
        let key = |a: usize| self.scores[a] + sigma[a];
        ranked.sort_by(|&a, &b| key(b).total_cmp(&key(a)));
        ranked
    }

    /// The move sequential halving picks.
    pub(crate) fn best<G: Geometry>(
        &self,
        tree: &Tree<G>,
        config: &SearchConfig,
        root_value: f32,
    ) -> usize {
        self.rank(tree, config, root_value)[0]
    }

    /// The improved policy `softmax(logits + sigma(completed q))` over every root move.
    pub(crate) fn improved_policy<G: Geometry>(
        &self,
        tree: &Tree<G>,
        config: &SearchConfig,
        root_value: f32,
    ) -> Vec<f32> {
        let sigma = self.sigma_of_completed_q(tree, config, root_value);
        let logits: Vec<f32> = self.logits.iter().zip(&sigma).map(|(l, s)| l + s).collect();
        crate::evaluator::softmax(&logits)
    }

    /// `sigma(q) = (c_visit + max visits) * c_scale * q`, with q rescaled to [0, 1] and
    /// unvisited moves given the mixed value estimate of the paper's appendix D.
    fn sigma_of_completed_q<G: Geometry>(
        &self,
        tree: &Tree<G>,
        config: &SearchConfig,
        root_value: f32,
    ) -> Vec<f32> {
        let stats: Vec<(u32, f32)> = tree
            .edges(Tree::<G>::ROOT)
            .iter()
            .map(|edge| match edge.child().map(|c: NodeId| tree.node(c)) {
                Some(child) if child.visits > 0 => (child.visits, child.mean()),
                _ => (0, 0.0),
            })
            .collect();
        let priors: Vec<f32> = self.logits.iter().map(|l| l.exp()).collect();
        let visits: u32 = stats.iter().map(|s| s.0).sum();
        let max_visits = stats.iter().map(|s| s.0).max().unwrap_or(0);
        let (mut visited_prior, mut weighted_q) = (0.0, 0.0);
        for ((n, q), p) in stats.iter().zip(&priors) {
            if *n > 0 {
                visited_prior += p;
                weighted_q += p * q;
            }
        }
        let mixed = if visited_prior > 0.0 {
            (root_value + visits as f32 * weighted_q / visited_prior) / (1.0 + visits as f32)
        } else {
            root_value
        };
        let scale = (config.gumbel_c_visit + max_visits as f32) * config.gumbel_c_scale;
        stats
            .iter()
            .map(|&(n, q)| {
                let completed = if n > 0 { q } else { mixed };
                scale * (completed + 1.0) / 2.0
            })
            .collect()
    }
}
