//! `damas egdb build|probe|verify|bench`: endgame databases.

use crate::out::outln;
use anyhow::{Context, bail};
use damas_egdb::build::{SignatureReport, build, by_pieces};
use damas_egdb::verify::verify;
use damas_egdb::{Egdb, Signature, Storage};
use damas_rules::{MoveList, Rules, Variant, VariantVisitor, legal_moves};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `damas egdb`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Solve every table up to a number of pieces (resumes: tables already written are read).
    Build(BuildArgs),
    /// The value of a position from the tables.
    Probe(ProbeArgs),
    /// Check every stored value against its successors' values.
    Verify(DirArgs),
    /// Time probes of random positions from the tables.
    Bench(DirArgs),
}

/// Where the tables are.
#[derive(clap::Args)]
struct DirArgs {
    /// Variant name (see `damas variants`).
    #[arg(long, value_parser = crate::args::parse_variant)]
    variant: Variant,
    /// Database root; a variant's tables are in `DIR/<variant>/`.
    #[arg(long, default_value = "egdb")]
    dir: PathBuf,
}

#[derive(clap::Args)]
struct BuildArgs {
    /// Variant name (see `damas variants`).
    #[arg(long, value_parser = crate::args::parse_variant)]
    variant: Variant,
    /// Build every signature with up to this many pieces.
    #[arg(long, required_unless_present = "signature")]
    pieces: Option<u32>,
    /// Build only this signature and what it reaches (`w<men>.<kings>-b<men>.<kings>`,
    /// repeatable), instead of `--pieces`.
    #[arg(long)]
    signature: Vec<Signature>,
    /// Database root; the tables go to `DIR/<variant>/`.
    #[arg(long = "out", default_value = "egdb")]
    dir: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct ProbeArgs {
    #[command(flatten)]
    position: crate::args::PositionArgs,
    /// Database root; a variant's tables are in `DIR/<variant>/`.
    #[arg(long, default_value = "egdb")]
    dir: PathBuf,
}

/// Runs `damas egdb`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Build(args) => args.variant.visit(Build(&args)),
        Command::Probe(args) => args.position.variant.visit(Probe(&args)),
        Command::Verify(args) => args.variant.visit(Verify(&args)),
        Command::Bench(args) => args.variant.visit(Bench(&args)),
    }
}

struct Build<'a>(&'a BuildArgs);

impl VariantVisitor for Build<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        let args = self.0;
        let wanted = match args.pieces {
            Some(0) => bail!("--pieces must be at least 1"),
            Some(pieces) if pieces > 8 => bail!("--pieces {pieces}: at most 8 are supported"),
            Some(pieces) => Signature::up_to(pieces),
            None => args.signature.clone(),
        };
        let bar = if args.json {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(0)
        };
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} tables {elapsed} {msg}")
                .expect("a valid template"),
        );
        let started = Instant::now();
        let (_, reports) = build::<V>(&args.dir, &wanted, |report, done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            bar.set_message(report.signature.clone());
        })
        .with_context(|| format!("building {} tables in {}", V::NAME, args.dir.display()))?;
        bar.finish_and_clear();
        print_build::<V>(&reports, started.elapsed().as_secs_f64(), args);
        Ok(())
    }
}

fn print_build<V: Rules>(reports: &[SignatureReport], seconds: f64, args: &BuildArgs) {
    let totals = by_pieces(reports);
    if args.json {
        let json = serde_json::json!({
            "variant": V::NAME,
            "dir": damas_egdb::db::variant_dir::<V>(&args.dir),
            "seconds": seconds,
            "pieces": totals,
            "tables": reports,
        });
        outln!("{json}");
        return;
    }
    outln!(
        "{} tables in {} ({} read back from an earlier build)",
        V::NAME,
        damas_egdb::db::variant_dir::<V>(&args.dir).display(),
        reports.iter().filter(|r| r.resumed).count()
    );
    outln!(
        "{:>6} {:>14} {:>14} {:>14} {:>14} {:>9} {:>12} {:>9}",
        "pieces",
        "placements",
        "wins",
        "draws",
        "losses",
        "max plies",
        "bytes",
        "seconds"
    );
    for t in &totals {
        outln!(
            "{:>6} {:>14} {:>14} {:>14} {:>14} {:>9} {:>12} {:>9.1}",
            t.pieces,
            t.placements,
            t.counts.wins,
            t.counts.draws,
            t.counts.losses,
            t.max_plies,
            t.bytes,
            t.seconds
        );
    }
    outln!(
        "placements: positions without the side to move; wins, draws, losses: with either side to move, for the side to move; max plies: the longest win or loss, in plies to the next capture or promotion"
    );
    outln!("total {seconds:.1} s");
}

struct Probe<'a>(&'a ProbeArgs);

impl VariantVisitor for Probe<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        let args = self.0;
        let position = args.position.position::<V>().context("invalid --fen")?;
        let db =
            Egdb::<V>::open_with(&args.dir, Storage::default()).context("opening the tables")?;
        let signature = Signature::of(&position);
        let Some(probe) = db.probe(&position) else {
            if let Some(fault) = db.faults().first() {
                bail!("{fault}");
            }
            bail!(
                "no table for {signature} in {} (built: {})",
                damas_egdb::db::variant_dir::<V>(&args.dir).display(),
                describe(&db)
            );
        };
        outln!("{signature}: {probe} for the side to move");
        let mut moves = MoveList::new();
        legal_moves::<V>(&position, &mut moves);
        for mv in moves.iter() {
            let next = position.after(mv);
            let value = db
                .probe(&next)
                .map(|p| format!("{} for the side to move", p))
                .unwrap_or_else(|| format!("no table for {}", Signature::of(&next)));
            outln!(
                "  {}: {value}",
                damas_rules::notation::pdn::<V>(&position, mv, &moves)
            );
        }
        Ok(())
    }
}

/// The tables loaded, in one line.
fn describe<V: Rules>(db: &Egdb<V>) -> String {
    match db.complete_pieces() {
        0 => format!("{} tables", db.signatures().len()),
        n => format!(
            "every signature up to {n} pieces, {} tables",
            db.signatures().len()
        ),
    }
}

struct Verify<'a>(&'a DirArgs);

impl VariantVisitor for Verify<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        let args = self.0;
        let db = Egdb::<V>::open(&args.dir).context("opening the tables")?;
        let started = Instant::now();
        let report = verify(&db, &db.signatures());
        outln!(
            "{}: {} positions checked in {:.1} s ({}): {} wrong, {} with a move to a missing table",
            V::NAME,
            report.positions,
            started.elapsed().as_secs_f64(),
            describe(&db),
            report.wrong,
            report.unchecked
        );
        for example in &report.examples {
            outln!("  {example}");
        }
        if report.wrong > 0 {
            bail!("{} positions disagree with their successors", report.wrong);
        }
        Ok(())
    }
}

struct Bench<'a>(&'a DirArgs);

impl VariantVisitor for Bench<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        let args = self.0;
        for storage in [Storage::Memory, Storage::default()] {
            let started = Instant::now();
            let db = Egdb::<V>::open_with(&args.dir, storage).context("opening the tables")?;
            let opened = started.elapsed().as_secs_f64();
            let report = damas_egdb::bench::probe_speed(&db, 1_000_000);
            let place = match storage {
                Storage::Memory => "in memory".to_string(),
                Storage::Files { cache_bytes } => {
                    format!("from the files, {} MiB cache", cache_bytes >> 20)
                }
            };
            outln!(
                "{}, {place}: opened in {opened:.2} s; {} random positions from {}: {:.0} ns a probe the first time, {:.0} ns again with the block cache emptied, {:.1} ns over {} probes ({} won, {} drawn, {} lost)",
                V::NAME,
                report.positions,
                describe(&db),
                report.nanos_first_probe,
                report.nanos_uncached_probe,
                report.nanos_per_probe,
                report.probes,
                report.wins,
                report.draws,
                report.losses
            );
            for fault in db.faults() {
                outln!("  fault: {fault}");
            }
        }
        Ok(())
    }
}
