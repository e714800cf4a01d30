//! The engine's speed (`damas bench engine`): nodes per second on a fixed set of middle-game
//! positions, one thread, one variant per board family.

use crate::search::{EngineConfig, Limits, Searcher};
use damas_rules::{Direction, Game, Geometry, Rules, Variant, VariantVisitor};
use std::time::{Duration, Instant};

/// One variant's measurement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EngineBench {
    /// The variant.
    pub variant: Variant,
    /// The search depth per position.
    pub depth: u32,
    /// Positions searched.
    pub positions: u32,
    /// Nodes searched in all.
    pub nodes: u64,
    /// Time taken in all.
    pub time: Duration,
}

impl EngineBench {
    /// Nodes per second.
    pub fn nodes_per_second(&self) -> f64 {
        self.nodes as f64 / self.time.as_secs_f64().max(1e-9)
    }
}

/// What makes a board family: the board's size and squares, flying kings, orthogonal captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Family {
    width: u32,
    height: u32,
    dark_only: bool,
    flying: bool,
    orthogonal: bool,
}

struct FamilyOf;
impl VariantVisitor for FamilyOf {
    type Output = Family;
    fn visit<V: Rules>(self) -> Family {
        let orthogonal = |d: &Direction| Direction::ORTHOGONAL.contains(d);
        Family {
            width: V::Geometry::WIDTH,
            height: V::Geometry::HEIGHT,
            dark_only: V::Geometry::DARK_ONLY,
            flying: V::FLYING_KINGS,
            orthogonal: V::MAN_CAPTURES.iter().any(orthogonal),
        }
    }
}

/// One variant per board family (board size, all squares or dark ones, flying kings,
/// orthogonal captures): the first of each in [`Variant::ALL`].
pub fn families() -> Vec<Variant> {
    let mut seen: Vec<Family> = Vec::new();
    let mut chosen = Vec::new();
    for &variant in Variant::ALL {
        let family = variant.visit(FamilyOf);
        if !seen.contains(&family) {
            seen.push(family);
            chosen.push(variant);
        }
    }
    chosen
}

struct Run {
    depth: Option<u32>,
    positions: u32,
}

impl VariantVisitor for Run {
    type Output = (u32, u64, Duration);
    fn visit<V: Rules>(self) -> (u32, u64, Duration) {
        // About a second per family.
        let depth = self.depth.unwrap_or(if !V::Geometry::DARK_ONLY {
            8
        } else if V::Geometry::WIDTH >= 10 {
            11
        } else {
            13
        });
        let mut searcher = Searcher::<V>::new(EngineConfig::for_rules::<V>());
        let (mut nodes, mut time) = (0, Duration::ZERO);
        for index in 0..self.positions {
            // Middle games: 16 to 26 plies in, never a finished game.
            let mut game = Game::<V>::new();
            game.play_random(index as u64 + 1, 16 + 2 * index % 12);
            if game.outcome().is_some() {
                continue;
            }
            searcher.clear();
            let started = Instant::now();
            let result = searcher.search(&game, &Limits::depth(depth), |_| {});
            time += started.elapsed();
            nodes += result.info.nodes;
        }
        (depth, nodes, time)
    }
}

/// Times the engine on `positions` middle-game positions of `variant`, each searched to `depth`
/// (default: 11 on 10x10 and larger, 13 on 8x8 diagonal boards, 8 on all-square boards).
pub fn bench(variant: Variant, depth: Option<u32>, positions: u32) -> EngineBench {
    let (depth, nodes, time) = variant.visit(Run { depth, positions });
    EngineBench {
        variant,
        depth,
        positions,
        nodes,
        time,
    }
}
