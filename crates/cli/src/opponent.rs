//! The computer opponent of `damas play` and `damas dxp`: a player string (the arena's
//! [`PlayerSpec`]) limited to `random` and `alphabeta:...`, with a one-line report per move.

use damas_arena::PlayerSpec;
use damas_engine::{EngineConfig, Limits, Searcher};
use damas_rules::{Game, Move, Rules};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;

/// A computer opponent, as given on the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum OpponentSpec {
    /// Picks uniformly among the legal moves.
    Random,
    /// The alpha-beta baseline under these limits.
    AlphaBeta(Limits),
}

impl std::str::FromStr for OpponentSpec {
    type Err = anyhow::Error;
    fn from_str(text: &str) -> anyhow::Result<Self> {
        match text.parse::<PlayerSpec>()? {
            PlayerSpec::Random => Ok(OpponentSpec::Random),
            PlayerSpec::AlphaBeta(limits) => Ok(OpponentSpec::AlphaBeta(limits)),
            _ => anyhow::bail!(
                "`{text}`: only `random` and `alphabeta:depth=N|nodes=N|time=SECONDS` can be used here"
            ),
        }
    }
}

/// A player ready to move in games of variant `V`.
pub enum Opponent<V: Rules> {
    /// Uniform random moves.
    Random(Box<StdRng>),
    /// The alpha-beta searcher and its limits.
    AlphaBeta(Box<Searcher<V>>, Limits),
}

impl<V: Rules> Opponent<V> {
    /// Builds the player; `seed` fixes its random choices (ties, random moves).
    pub fn new(spec: &OpponentSpec, seed: u64) -> Self {
        match spec {
            OpponentSpec::Random => Opponent::Random(Box::new(StdRng::seed_from_u64(seed))),
            OpponentSpec::AlphaBeta(limits) => {
                let mut config = EngineConfig::for_rules::<V>();
                config.randomize = true;
                config.seed = seed;
                Opponent::AlphaBeta(Box::new(Searcher::new(config)), *limits)
            }
        }
    }

    /// The move to play in `game`, with a one-line report; `None` if there is no legal move.
    pub fn choose(&mut self, game: &Game<V>) -> Option<(Move<V::Geometry>, String)> {
        match self {
            Opponent::Random(rng) => game
                .legal_moves()
                .choose(rng)
                .map(|&mv| (mv, String::new())),
            Opponent::AlphaBeta(searcher, limits) => {
                let result = searcher.search(game, limits, |_| {});
                let info = &result.info;
                result.best.map(|mv| {
                    (
                        mv,
                        format!(
                            "depth {}, score {:+.2}, {} nodes",
                            info.depth,
                            info.score as f64 / 100.0,
                            info.nodes
                        ),
                    )
                })
            }
        }
    }
}
