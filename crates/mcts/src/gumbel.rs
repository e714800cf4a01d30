//! Gumbel root search with sequential halving (Danihelka et al., "Policy improvement by planning
//! with Gumbel", ICLR 2022): sample `m` candidate moves without replacement by Gumbel-top-k,
//! share the simulations among them in phases, halving the candidates after each phase by
//! `g + logits + sigma(q)`; the training target is the improved policy
//! `softmax(logits + sigma(completed q))`.
//!
//! The phases are planned by [`Schedule`] as visit targets, never as lists of visits, so a
//! search whose budget is unknown in advance (bounded by time, a stop flag or a large node
//! count, with a budget of `u32::MAX`) keeps state of the size of its candidates only: it
//! plans a round over the configured simulations and, while the budget allows, plans the next
//! round over twice as many (the doubling trick), so that wherever it is stopped it has a
//! ranked set of candidates and an improved policy from every visit made.

use crate::search::SearchConfig;
use crate::tree::{NodeId, Tree};
use damas_rules::Geometry;
use rand::Rng;
use rand::rngs::StdRng;

/// One phase of sequential halving, as [`Schedule`] plans it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Phase {
    /// Round of the doubling trick, 0 first.
    pub(crate) round: u32,
    /// Nominal simulations of the round.
    pub(crate) nominal: u64,
    /// Phase within the round, 0 first (every candidate takes part in phase 0).
    pub(crate) index: u32,
    /// Candidates taking part.
    pub(crate) width: usize,
    /// Visits of this search each of them has when the phase ends.
    pub(crate) target: u64,
}

/// The sequential-halving plan: rounds of `ceil(log2 m)` phases over the `m` candidates.
///
/// A round with nominal budget `n` halves the candidates after each phase; in phase `k` each of
/// the `m_k` candidates left is brought up to `sum over j <= k of max(1, n / (phases x m_j))`
/// visits, which is the paper's plan of `n` simulations. When a round ends and the search's
/// budget is larger than its nominal one, the next round starts again from all `m` candidates
/// with twice the nominal budget (at most the whole budget); the visits already made count
/// towards its targets, so each round costs about as much as all the rounds before it. The
/// plan holds a few numbers whatever the budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Schedule {
    /// Candidates at the start of every round.
    initial: usize,
    /// Phases of a round.
    phases: u32,
    /// Simulations the search may make in all.
    budget: u64,
    /// The phase under way; none before the first.
    current: Option<Phase>,
    /// Nominal simulations of the first round.
    first: u64,
}

impl Schedule {
    /// The plan for `candidates` candidates, a first round of `first` simulations (at most
    /// `budget`) and a search of at most `budget` simulations.
    pub(crate) fn new(candidates: usize, first: u32, budget: u32) -> Self {
        let budget = u64::from(budget);
        Schedule {
            initial: candidates,
            phases: candidates
                .max(1)
                .next_power_of_two()
                .trailing_zeros()
                .max(1),
            budget,
            current: None,
            first: u64::from(first).clamp(1, budget.max(1)),
        }
    }

    /// Moves on to the next phase and returns it; none once the plan is done (after a round
    /// whose nominal budget is the whole budget, or at once with fewer than two candidates).
    pub(crate) fn next_phase(&mut self) -> Option<Phase> {
        if self.initial <= 1 {
            return None;
        }
        let (round, nominal, index, width, target) = match self.current {
            None => (0, self.first, 0, self.initial, 0),
            Some(p) if p.index + 1 < self.phases => (
                p.round,
                p.nominal,
                p.index + 1,
                p.width.div_ceil(2),
                p.target,
            ),
            Some(p) if p.nominal < self.budget => (
                p.round + 1,
                p.nominal.saturating_mul(2).min(self.budget),
                0,
                self.initial,
                0,
            ),
            Some(_) => return None,
        };
        let share = nominal / (u64::from(self.phases) * width as u64);
        let phase = Phase {
            round,
            nominal,
            index,
            width,
            target: target + share.max(1),
        };
        self.current = Some(phase);
        Some(phase)
    }
}

/// The sequential-halving state of one root.
#[derive(Clone, Debug)]
pub(crate) struct Gumbel {
    /// Log prior of every root move.
    logits: Vec<f32>,
    /// Gumbel noise plus log prior of every root move.
    scores: Vec<f32>,
    /// The sampled candidates, best score first: every round starts from them.
    sampled: Vec<usize>,
    /// Moves still in the running this round, in the order the phase visits them.
    candidates: Vec<usize>,
    /// Visits of every root move before this search (a tree kept from the last move).
    base: Vec<u32>,
    /// The plan of phases.
    schedule: Schedule,
    /// The phase under way; none before the first.
    phase: Option<Phase>,
    /// Whether the plan is done and `candidates` holds the chosen move.
    finished: bool,
}

impl Gumbel {
    /// Samples the candidates from the root's priors for a search of at most `budget`
    /// simulations; without `rng` the Gumbel noise is zero and the candidates are simply the
    /// moves with the highest priors.
    pub(crate) fn new<G: Geometry>(
        tree: &Tree<G>,
        config: &SearchConfig,
        budget: u32,
        rng: Option<&mut StdRng>,
    ) -> Self {
        let edges = tree.edges(Tree::<G>::ROOT);
        let logits: Vec<f32> = edges.iter().map(|e| e.prior.max(1e-12).ln()).collect();
        let base: Vec<u32> = edges
            .iter()
            .map(|e| e.child().map_or(0, |c| tree.node(c).visits))
            .collect();
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
        let mut sampled: Vec<usize> = (0..logits.len()).collect();
        sampled.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        sampled.truncate((config.gumbel_candidates as usize).clamp(1, logits.len().max(1)));
        Gumbel {
            logits,
            scores,
            candidates: sampled.clone(),
            schedule: Schedule::new(sampled.len(), config.simulations, budget),
            sampled,
            base,
            phase: None,
            finished: false,
        }
    }

    /// Whether sequential halving has picked its move.
    pub(crate) fn finished(&self) -> bool {
        self.finished
    }

    /// Completed visits of root move `action` in this search.
    fn visits<G: Geometry>(&self, tree: &Tree<G>, action: usize) -> u64 {
        let edge = &tree.edges(Tree::<G>::ROOT)[action];
        edge.child().map_or(0, |c| {
            u64::from(tree.node(c).visits.saturating_sub(self.base[action]))
        })
    }

    /// Visits of root move `action` in this search, those in flight included.
    fn sent<G: Geometry>(&self, tree: &Tree<G>, action: usize) -> u64 {
        let edge = &tree.edges(Tree::<G>::ROOT)[action];
        let in_flight = edge.child().map_or(0, |c| tree.node(c).in_flight);
        self.visits(tree, action) + u64::from(in_flight)
    }

    /// The root move to visit next: the candidate furthest below the phase's target, the
    /// better ranked on a tie; none when the phase's visits are all sent (or it is finished).
    pub(crate) fn next_action<G: Geometry>(&self, tree: &Tree<G>) -> Option<usize> {
        let phase = self.phase.filter(|_| !self.finished)?;
        self.candidates
            .iter()
            .map(|&action| (action, self.sent(tree, action)))
            .filter(|&(_, sent)| sent < phase.target)
            .min_by_key(|&(_, sent)| sent)
            .map(|(action, _)| action)
    }

    /// Starts the phases whose visits are all made (nothing may be in flight): ranks and
    /// halves the candidates, or starts the next round, or finishes with the best one.
    pub(crate) fn plan<G: Geometry>(&mut self, tree: &Tree<G>, config: &SearchConfig) {
        while !self.finished && self.next_action(tree).is_none() {
            let root_value = -tree.node(Tree::<G>::ROOT).mean();
            match self.schedule.next_phase() {
                Some(phase) => {
                    let pool = if phase.index == 0 {
                        &self.sampled
                    } else {
                        &self.candidates
                    };
                    let mut ranked = self.rank(tree, config, root_value, pool);
                    ranked.truncate(phase.width);
                    self.candidates = ranked;
                    self.phase = Some(phase);
                }
                None => {
                    self.candidates = self.rank(tree, config, root_value, &self.candidates);
                    self.candidates.truncate(1);
                    self.finished = true;
                }
            }
        }
    }

    /// `pool`, best first by `g + logits + sigma(q)`.
    fn rank<G: Geometry>(
        &self,
        tree: &Tree<G>,
        config: &SearchConfig,
        root_value: f32,
        pool: &[usize],
    ) -> Vec<usize> {
        let sigma = self.sigma_of_completed_q(tree, config, root_value);
        let mut ranked = pool.to_vec();
        let key = |a: usize| self.scores[a] + sigma[a];
        ranked.sort_by(|&a, &b| key(b).total_cmp(&key(a)));
        ranked
    }

    /// The move sequential halving picks: the best ranked of the candidates with the most
    /// visits (mctx's rule), so that a search stopped in the middle of a phase, or just after
    /// a new round started, never prefers a move searched less than the leaders.
    pub(crate) fn best<G: Geometry>(
        &self,
        tree: &Tree<G>,
        config: &SearchConfig,
        root_value: f32,
    ) -> usize {
        let most = self
            .candidates
            .iter()
            .map(|&a| self.visits(tree, a))
            .max()
            .unwrap_or(0);
        let leaders: Vec<usize> = self
            .candidates
            .iter()
            .copied()
            .filter(|&a| self.visits(tree, a) == most)
            .collect();
        self.rank(tree, config, root_value, &leaders)
            .first()
            .copied()
            .unwrap_or(0)
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

#[cfg(test)]
mod tests {
    use super::*;
    use damas_rules::variants::Russian;
    use damas_rules::{Game, Rules};

    /// Every phase of the plan, in order, until it is done (at most 1000).
    fn plan(candidates: usize, first: u32, budget: u32) -> Vec<Phase> {
        let mut schedule = Schedule::new(candidates, first, budget);
        std::iter::from_fn(|| schedule.next_phase())
            .take(1000)
            .collect()
    }

    /// Simulations a run of phases hands out: each phase's new visits for each candidate.
    fn spent(phases: &[Phase]) -> u64 {
        let mut before = 0;
        phases
            .iter()
            .map(|p| {
                let last = if p.index == 0 { 0 } else { before };
                before = p.target;
                p.width as u64 * (p.target - last)
            })
            .sum()
    }

    #[test]
    fn a_known_budget_is_planned_as_in_the_paper() {
        let phases = plan(16, 200, 200);
        let shape: Vec<(usize, u64)> = phases.iter().map(|p| (p.width, p.target)).collect();
        assert_eq!(shape, [(16, 3), (8, 9), (4, 21), (2, 46)]);
        assert!(phases.iter().all(|p| p.round == 0 && p.nominal == 200));
        assert_eq!(spent(&phases), 194, "within the budget");
        let widths: Vec<usize> = plan(5, 60, 60).iter().map(|p| p.width).collect();
        assert_eq!(
            widths,
            [5, 3, 2],
            "odd counts keep the better half rounded up"
        );
        let cut = plan(4, 200, 50);
        assert!(
            cut.iter().all(|p| p.nominal == 50),
            "a first round over the budget is cut"
        );
    }

    #[test]
    fn an_unbounded_budget_is_planned_in_doubling_rounds() {
        let phases = plan(16, 200, u32::MAX);
        assert_eq!(
            phases[..4],
            plan(16, 200, 200)[..],
            "the first round is the configured one"
        );
        assert_eq!(phases.len() % 4, 0, "whole rounds of four phases");
        let nominals: Vec<u64> = phases.iter().step_by(4).map(|p| p.nominal).collect();
        assert_eq!(nominals[..3], [200, 400, 800]);
        assert_eq!(nominals.last(), Some(&u64::from(u32::MAX)));
        assert!(
            nominals
                .windows(2)
                .all(|w| w[1] == (2 * w[0]).min(u64::from(u32::MAX)))
        );
        for (round, phases) in phases.chunks(4).enumerate() {
            assert!(phases.iter().all(|p| p.round == round as u32));
            // A round's targets add up to its nominal budget at most, earlier rounds' visits
            // included.
            assert!(spent(phases) <= phases[0].nominal);
            assert!(phases.windows(2).all(|w| w[0].target < w[1].target));
        }
    }

    #[test]
    fn tiny_budgets_give_each_candidate_a_visit_and_one_candidate_none() {
        let targets: Vec<u64> = plan(16, 2, 2).iter().map(|p| p.target).collect();
        assert_eq!(targets, [1, 2, 3, 4]);
        assert!(plan(1, 200, u32::MAX).is_empty());
        assert!(plan(0, 200, 200).is_empty());
    }

    #[test]
    fn an_unbounded_gumbel_root_plans_the_configured_simulations_first() {
        let game = Game::<Russian>::new();
        let moves = game.legal_moves().to_vec();
        let mut tree: Tree<<Russian as Rules>::Geometry> = Tree::default();
        let priors = vec![1.0 / moves.len() as f32; moves.len()];
        tree.expand(Tree::<<Russian as Rules>::Geometry>::ROOT, &moves, &priors);
        let config = SearchConfig {
            gumbel: true,
            ..SearchConfig::default()
        };
        let mut gumbel = Gumbel::new(&tree, &config, u32::MAX, None);
        gumbel.plan(&tree, &config);
        let phase = gumbel.phase.expect("a phase under way");
        assert_eq!((phase.round, phase.index), (0, 0));
        assert_eq!(phase.nominal, u64::from(config.simulations));
        assert!(phase.target <= u64::from(config.simulations));
        assert!(gumbel.candidates.capacity() <= moves.len());
        assert!(gumbel.next_action(&tree).is_some());
        assert!(!gumbel.finished());
    }
}
