//! Building tables: every signature in dependency order, each solved once and written, and
//! read back instead of solved again when a build resumes.

use crate::db::{Egdb, variant_dir};
use crate::signature::Signature;
use crate::solve::{SolveError, solve};
use crate::table::{Counts, Table, TableError};
use damas_rules::Rules;
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// Why a build stopped.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Solving failed.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// A table could not be read or written.
    #[error(transparent)]
    Table(#[from] TableError),
}

/// What one signature's table came to.
#[derive(Clone, Debug, Serialize)]
pub struct SignatureReport {
    /// The material.
    pub signature: String,
    /// Pieces.
    pub pieces: u32,
    /// Placements (positions per side to move).
    pub placements: u64,
    /// Results over both sides to move.
    pub counts: Counts,
    /// Longest win or loss in plies to a conversion.
    pub max_plies: u32,
    /// Bytes of its file.
    pub bytes: u64,
    /// Seconds spent solving (0 when read back from an earlier build).
    pub seconds: f64,
    /// Whether it was read back from an earlier build instead of solved.
    pub resumed: bool,
}

/// Totals for one number of pieces.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PiecesReport {
    /// Pieces on the board.
    pub pieces: u32,
    /// Placements (positions without the side to move, as the checkers proof counts them).
    pub placements: u64,
    /// Results over both sides to move.
    pub counts: Counts,
    /// Longest win or loss in plies to a conversion.
    pub max_plies: u32,
    /// Bytes on disk.
    pub bytes: u64,
    /// Seconds spent solving.
    pub seconds: f64,
}

/// Builds every table `signatures` need (their closures), in `root/<variant>/`, reading back
/// the ones already there. `progress` hears of each table when it is done, with how many are
/// done and how many there are. Returns the database and one report per table.
pub fn build<V: Rules>(
    root: &Path,
    signatures: &[Signature],
    mut progress: impl FnMut(&SignatureReport, usize, usize),
) -> Result<(Egdb<V>, Vec<SignatureReport>), BuildError> {
    let mut all: Vec<Signature> = signatures.iter().flat_map(|s| s.closure()).collect();
    all.sort_by_key(|s| (s.pieces(), s.men_total(), *s));
    all.dedup();
    let dir = variant_dir::<V>(root);
    let mut db = Egdb::new();
    let mut reports = Vec::new();
    for (done, &signature) in all.iter().enumerate() {
        let path = dir.join(Table::<V>::file_name(signature));
        let started = Instant::now();
        let (table, resumed) = match path.exists() {
            true => (Table::<V>::load(&path, signature)?, true),
            false => (solve(signature, &db)?, false),
        };
        let seconds = started.elapsed().as_secs_f64();
        let bytes = match resumed {
            true => std::fs::metadata(&path)
                .map_err(|source| TableError::Io {
                    path: path.clone(),
                    source,
                })?
                .len(),
            false => table.save(&path)?,
        };
        let report = SignatureReport {
            signature: signature.to_string(),
            pieces: signature.pieces(),
            placements: table.placements(),
            counts: table.counts(),
            max_plies: table.max_plies(),
            bytes,
            seconds: if resumed { 0.0 } else { seconds },
            resumed,
        };
        progress(&report, done + 1, all.len());
        reports.push(report);
        db.insert(table);
    }
    Ok((db, reports))
}

/// Sums table reports by number of pieces.
pub fn by_pieces(reports: &[SignatureReport]) -> Vec<PiecesReport> {
    let mut out: Vec<PiecesReport> = Vec::new();
    for r in reports {
        if out.last().is_none_or(|last| last.pieces != r.pieces) {
            out.push(PiecesReport {
                pieces: r.pieces,
                ..PiecesReport::default()
            });
        }
        let last = out.last_mut().expect("pushed");
        last.placements += r.placements;
        last.counts.add(&r.counts);
        last.max_plies = last.max_plies.max(r.max_plies);
        last.bytes += r.bytes;
        last.seconds += r.seconds;
    }
    out
}
