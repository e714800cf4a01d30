//! `damas perft`: leaf counts per depth with time and speed, optionally divided by first move.

use crate::out::outln;
use anyhow::Context;
use damas_rules::notation::{pdn, sort_moves};
use damas_rules::{
    Duplicates, MoveList, Rules, VariantVisitor, divide, legal_moves, perft, to_fen,
};
use serde::Serialize;
use std::time::Instant;

/// Arguments of `damas perft`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    position: crate::args::PositionArgs,
    /// Plies to count.
    #[arg(long)]
    depth: u32,
    /// Also print the count below each legal move at the final depth.
    #[arg(long)]
    divide: bool,
    /// How captures taking the same pieces by different routes count: `unique` or `keep`.
    #[arg(long, default_value = "unique")]
    duplicates: Duplicates,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct DepthRecord {
    depth: u32,
    nodes: u64,
    seconds: f64,
    nodes_per_second: f64,
}

#[derive(Serialize)]
struct DivideRecord {
    r#move: String,
    nodes: u64,
}

#[derive(Serialize)]
struct Report {
    variant: &'static str,
    fen: String,
    duplicates: &'static str,
    depths: Vec<DepthRecord>,
    divide: Vec<DivideRecord>,
}

struct Run<'a>(&'a Args);

impl VariantVisitor for Run<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        let args = self.0;
        let position = args.position.position::<V>().context("invalid --fen")?;
        let mut report = Report {
            variant: V::NAME,
            fen: to_fen::<V>(&position),
            duplicates: match args.duplicates {
                Duplicates::Unique => "unique",
                Duplicates::Keep => "keep",
            },
            depths: Vec::new(),
            divide: Vec::new(),
        };
        if !args.json {
            outln!(
                "{} {} ({} duplicates)",
                V::NAME,
                report.fen,
                report.duplicates
            );
        }
        // Depth 0 counts the position itself: one leaf.
        for depth in args.depth.min(1)..=args.depth {
            let started = Instant::now();
            let nodes = perft::<V>(&position, depth, args.duplicates);
            let seconds = started.elapsed().as_secs_f64();
            let record = DepthRecord {
                depth,
                nodes,
                seconds,
                nodes_per_second: nodes as f64 / seconds.max(1e-9),
            };
            if !args.json {
                outln!(
                    "depth {:2}  {:>14}  {:9.3} s  {:8.2} Mnodes/s",
                    depth,
                    nodes,
                    seconds,
                    record.nodes_per_second / 1e6
                );
            }
            report.depths.push(record);
        }
        if args.divide && args.depth > 0 {
            let mut legal = MoveList::new();
            legal_moves::<V>(&position, &mut legal);
            let mut divided = divide::<V>(&position, args.depth, args.duplicates);
            sort_moves::<V, _>(&mut divided, |(mv, _)| mv);
            for (mv, nodes) in divided {
                let name = pdn::<V>(&position, &mv, &legal);
                if !args.json {
                    outln!("{name:>12}  {nodes}");
                }
                report.divide.push(DivideRecord {
                    r#move: name,
                    nodes,
                });
            }
        }
        if args.json {
            outln!("{}", serde_json::to_string(&report)?);
        }
        Ok(())
    }
}

/// Runs `damas perft`.
pub fn run(args: Args) -> anyhow::Result<()> {
    args.position.variant.visit(Run(&args))
}
