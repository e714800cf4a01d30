//! Monte Carlo tree search for draughts, AlphaZero style, over a batched evaluator.
//!
//! - [`evaluator`]: the [`Evaluator`] trait a network implements (priors and a value for a batch
//!   of positions), with a uniform mock and the alpha-beta engine's static evaluation.
//! - [`cache`]: [`CachedEvaluator`], evaluations remembered across searches (Lc0's NNCache).
//! - [`tree`]: nodes and edges in flat arenas.
//! - [`search`]: PUCT with first-play urgency, virtual loss, root noise, tree reuse, and the
//!   gather/deliver cycle that lets many games share one evaluation batch.
//! - `gumbel`: the Gumbel root search with sequential halving, as an option of [`SearchConfig`].

pub mod cache;
pub mod evaluator;
mod gumbel;
pub mod search;
pub mod tree;

pub use cache::{CacheStats, CachedEvaluator};
pub use evaluator::{Evaluation, Evaluator, Leaf, StaticEvaluator, UniformEvaluator, softmax};
pub use search::{
    InvalidValue, RootNoise, Search, SearchConfig, SearchReport, evaluate_pending, run_batched,
};
