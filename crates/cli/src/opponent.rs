//! Computer players named by one string: `random`, `alphabeta:depth=6`, `alphabeta:nodes=200000`,
//! `alphabeta:time=0.5` (seconds per move).

use anyhow::{Context, bail};
use damas_engine::{EngineConfig, Limits, Searcher};
use damas_rules::{Game, Move, Rules};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use std::str::FromStr;
use std::time::Duration;

/// A computer player, as given on the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum OpponentSpec {
    /// Picks uniformly among the legal moves.
    Random,
    /// The alpha-beta baseline under these limits.
    AlphaBeta(Limits),
}

impl FromStr for OpponentSpec {
    type Err = anyhow::Error;
    fn from_str(text: &str) -> anyhow::Result<Self> {
        let (kind, options) = text.split_once(':').unwrap_or((text, ""));
        match kind {
            "random" if options.is_empty() => Ok(OpponentSpec::Random),
            "alphabeta" => {
                let mut limits = Limits::default();
                for option in options.split(',').filter(|o| !o.is_empty()) {
                    let (key, value) = option
                        .split_once('=')
                        .with_context(|| format!("`{option}` in `{text}` is not key=value"))?;
                    let bad = || format!("`{value}` is not a valid {key} in `{text}`");
                    match key {
                        "depth" => limits.depth = Some(value.parse().with_context(bad)?),
                        "nodes" => limits.nodes = Some(value.parse().with_context(bad)?),
                        "time" => {
                            let seconds: f64 = value.parse().with_context(bad)?;
                            if !(seconds.is_finite() && seconds > 0.0) {
                                bail!(bad());
                            }
                            limits.move_time = Some(Duration::from_secs_f64(seconds));
                        }
                        other => bail!(
                            "unknown alphabeta option `{other}` in `{text}` (depth, nodes, time)"
                        ),
                    }
                }
                if limits == Limits::default() {
                    limits.depth = Some(6);
                }
                Ok(OpponentSpec::AlphaBeta(limits))
            }
            _ => bail!(
                "unknown player `{text}` (expected `random` or `alphabeta:depth=N|nodes=N|time=SECONDS`)"
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
