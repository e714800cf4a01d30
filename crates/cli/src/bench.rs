//! `damas bench engine`: the alpha-beta engine's speed on a fixed set of middle-game positions per
//! board family, one thread.

use damas_engine::{EngineConfig, Limits, Searcher};
use damas_rules::{Game, Geometry, Rules, Variant, VariantVisitor};
use std::time::{Duration, Instant};

/// Arguments of `damas bench`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// Nodes per second of the alpha-beta search.
    Engine(EngineArgs),
    /// Network evaluations per second, GFLOP/s against peak, self-play speed.
    Selfplay(crate::bench_selfplay::Args),
    /// Training samples per second.
    Train(crate::bench_train::Args),
}

#[derive(clap::Args)]
struct EngineArgs {
    /// Search depth per position (default: 11 on 10x10 and larger, 13 on 8x8 diagonal boards,
    /// 8 on the orthogonal board, about a second per family).
    #[arg(long)]
    depth: Option<u32>,
    /// Positions per variant.
    #[arg(long, default_value_t = 6)]
    positions: u32,
    /// Only this variant (default: one per board family).
    #[arg(long, value_parser = |s: &str| s.parse::<Variant>().map_err(|e| e.to_string()))]
    variant: Option<Variant>,
}

/// One representative per board family: 10x10, 8x8 with flying kings, 8x8 with short kings,
/// orthogonal captures, the orthogonal board, 12x12.
const FAMILIES: &[Variant] = &[
    Variant::International,
    Variant::Russian,
    Variant::English,
    Variant::Frisian,
    Variant::Turkish,
    Variant::Canadian,
];

struct Run<'a>(&'a EngineArgs);

impl VariantVisitor for Run<'_> {
    type Output = (u32, u64, Duration);
    fn visit<V: Rules>(self) -> (u32, u64, Duration) {
        let depth = self.0.depth.unwrap_or(if !V::Geometry::DARK_ONLY {
            8
        } else if V::Geometry::WIDTH >= 10 {
            11
        } else {
            13
        });
        let mut searcher = Searcher::<V>::new(EngineConfig::for_rules::<V>());
        let (mut nodes, mut time) = (0, Duration::ZERO);
        for index in 0..self.0.positions {
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

/// Runs `damas bench`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let args = match args.what {
        What::Engine(args) => args,
        What::Selfplay(args) => return crate::bench_selfplay::run(args),
        What::Train(args) => return crate::bench_train::run(args),
    };
    let variants: Vec<Variant> = match args.variant {
        Some(v) => vec![v],
        None => FAMILIES.to_vec(),
    };
    println!(
        "{:<14} {:>6} {:>10} {:>12} {:>9} {:>12}",
        "variant", "depth", "positions", "nodes", "seconds", "nodes/s"
    );
    for variant in variants {
        let (depth, nodes, time) = variant.visit(Run(&args));
        println!(
            "{:<14} {:>6} {:>10} {:>12} {:>9.3} {:>12.0}",
            variant.name(),
            depth,
            args.positions,
            nodes,
            time.as_secs_f64(),
            nodes as f64 / time.as_secs_f64().max(1e-9)
        );
    }
    Ok(())
}
