//! What the search asks of a network: priors over a position's legal moves and a value, for a
//! whole batch of positions at once.

use damas_engine::eval::{Tables, Weights, evaluate};
use damas_rules::{Game, Move, Rules};

/// One position waiting for an evaluation: the game that reached it (its draw-rule counters
/// matter) and its legal moves, in the order the priors must follow.
pub struct Leaf<'a, V: Rules> {
    /// The game at the leaf, history included.
    pub game: &'a Game<V>,
    /// The legal moves at the leaf (never empty: finished games are not evaluated).
    pub moves: &'a [Move<V::Geometry>],
}

/// An evaluator's answer for one leaf.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Probability of each legal move, in the leaf's move order, summing to 1.
    pub priors: Vec<f32>,
    /// Expected result for the side to move, from -1 (loss) through 0 (draw) to 1 (win).
    pub value: f32,
}

/// Evaluates batches of positions; shared by every search thread.
pub trait Evaluator<V: Rules>: Send + Sync {
    /// One evaluation per leaf, in order.
    fn evaluate(&self, leaves: &[Leaf<'_, V>]) -> Vec<Evaluation>;
}

impl<V: Rules, E: Evaluator<V> + ?Sized> Evaluator<V> for &E {
    fn evaluate(&self, leaves: &[Leaf<'_, V>]) -> Vec<Evaluation> {
        (**self).evaluate(leaves)
    }
}

impl<V: Rules, E: Evaluator<V> + ?Sized> Evaluator<V> for Box<E> {
    fn evaluate(&self, leaves: &[Leaf<'_, V>]) -> Vec<Evaluation> {
        (**self).evaluate(leaves)
    }
}

/// Knows nothing: equal priors and a value of 0. The search then plays on the rules' outcomes
/// alone, which is enough to find short forced wins; used by tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl<V: Rules> Evaluator<V> for UniformEvaluator {
    fn evaluate(&self, leaves: &[Leaf<'_, V>]) -> Vec<Evaluation> {
        leaves
            .iter()
            .map(|leaf| Evaluation {
                priors: vec![1.0 / leaf.moves.len() as f32; leaf.moves.len()],
                value: 0.0,
            })
            .collect()
    }
}

/// The alpha-beta engine's hand-made static evaluation as a stand-in network, for making data
/// before any training: the value is the position's score squashed into (-1, 1), and each move's
/// prior grows with the score of the position it leads to.
#[derive(Clone, Debug)]
pub struct StaticEvaluator<V: Rules> {
    weights: Weights,
    tables: Tables<V::Geometry>,
}

impl<V: Rules> Default for StaticEvaluator<V> {
    fn default() -> Self {
        StaticEvaluator {
            weights: Weights::for_rules::<V>(),
            tables: Tables::new(),
        }
    }
}

impl<V: Rules> StaticEvaluator<V> {
    /// Score difference (in the engine's units, a man is 100) that moves the value by about 0.76.
    const VALUE_SCALE: f32 = 300.0;
    /// Score difference between two moves that makes one e (2.7) times more likely.
    const PRIOR_SCALE: f32 = 60.0;

    fn score(&self, game_position: &damas_rules::Position<V::Geometry>) -> f32 {
        evaluate::<V>(game_position, &self.weights, &self.tables) as f32
    }
}

impl<V: Rules> Evaluator<V> for StaticEvaluator<V> {
    fn evaluate(&self, leaves: &[Leaf<'_, V>]) -> Vec<Evaluation> {
        leaves
            .iter()
            .map(|leaf| {
                let position = leaf.game.position();
                let value = (self.score(position) / Self::VALUE_SCALE).tanh();
                let scores: Vec<f32> = leaf
                    .moves
                    .iter()
                    .map(|mv| -self.score(&position.after(mv)) / Self::PRIOR_SCALE)
                    .collect();
                Evaluation {
                    priors: softmax(&scores),
                    value,
                }
            })
            .collect()
    }
}

/// The softmax of `logits` (numerically stable; an empty slice gives an empty vector).
pub fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps: Vec<f32> = logits.iter().map(|&x| (x - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.into_iter().map(|e| e / sum).collect()
}
