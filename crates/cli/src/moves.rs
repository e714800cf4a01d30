//! `damas moves`: the legal moves of a position, sorted, as text or JSON lines.

use crate::out::outln;
use anyhow::Context;
use damas_rules::notation::{full_path, hub, pdn, sort_moves, square_number};
use damas_rules::{MoveList, Rules, VariantVisitor, legal_moves, to_fen};
use serde::Serialize;

/// Arguments of `damas moves`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    position: crate::args::PositionArgs,
    /// One JSON object per move and line, for other tools.
    #[arg(long)]
    json: bool,
}

/// One legal move as `--json` prints it. Squares are PDN numbers whatever the display notation.
#[derive(Serialize)]
struct MoveRecord {
    pdn: String,
    full: String,
    hub: String,
    from: u32,
    to: u32,
    captured: Vec<u32>,
    fen_after: String,
}

struct Run<'a>(&'a Args);

impl VariantVisitor for Run<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        let position = self.0.position.position::<V>().context("invalid --fen")?;
        let mut list = MoveList::new();
        legal_moves::<V>(&position, &mut list);
        let mut sorted = list.clone();
        sort_moves::<V, _>(&mut sorted, |mv| mv);
        let records: Vec<MoveRecord> = sorted
            .iter()
            .map(|mv| {
                let mut captured: Vec<u32> = mv.captured().map(square_number::<V>).collect();
                captured.sort_unstable();
                MoveRecord {
                    pdn: pdn::<V>(&position, mv, &list),
                    full: full_path::<V>(&position, mv),
                    hub: hub::<V>(mv),
                    from: square_number::<V>(mv.from()),
                    to: square_number::<V>(mv.to()),
                    captured,
                    fen_after: to_fen::<V>(&position.after(mv)),
                }
            })
            .collect();
        for record in &records {
            if self.0.json {
                outln!("{}", serde_json::to_string(record)?);
            } else {
                outln!("{}", record.pdn);
            }
        }
        if !self.0.json {
            eprintln!("{}", crate::board::count(records.len(), "legal move"));
        }
        Ok(())
    }
}

/// Runs `damas moves`.
pub fn run(args: Args) -> anyhow::Result<()> {
    args.position.variant.visit(Run(&args))
}
