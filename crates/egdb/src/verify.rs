//! The verification pass: every position's stored value must be the best of its successors'
//! (a loss in 0 where it has no move, a win one ply longer than its quickest lost successor,
//! else a loss one ply longer than its slowest won successor when all are won, else a draw).
//! Where distances count plies to a conversion, a successor of other material is 0 plies away
//! from it whatever its own distance.

use crate::db::Egdb;
use crate::signature::Signature;
use crate::value::{Distance, Value, Wdl};
use damas_rules::movegen::legal_moves;
use damas_rules::{Color, MoveList, Position, Rules, to_fen};
use rayon::prelude::*;

/// What a verification pass found.
#[derive(Clone, Debug, Default)]
pub struct VerifyReport {
    /// Positions checked (both sides to move).
    pub positions: u64,
    /// Positions whose stored value differs from their successors' best.
    pub wrong: u64,
    /// Moves leading to material without a table (their positions are not checked).
    pub unchecked: u64,
    /// Up to ten wrong positions: FEN, stored value and the value the successors give.
    pub examples: Vec<String>,
}

/// The value `position` must have given its successors' stored values, with distances that
/// count `distance`, or `None` if a successor's table is missing.
pub fn expected_value<V: Rules>(
    db: &Egdb<V>,
    position: &Position<V::Geometry>,
    distance: Distance,
) -> Option<Value> {
    let mut moves = MoveList::new();
    legal_moves::<V>(position, &mut moves);
    if moves.is_empty() {
        return Some(if V::LOSING {
            Value::win(0)
        } else {
            Value::loss(0)
        });
    }
    let mut quickest_win: Option<u32> = None;
    let mut slowest_loss = 0;
    let mut all_won = true;
    let signature = Signature::of(position);
    for mv in moves.iter() {
        let next = position.after(mv);
        let reached = Signature::of(&next);
        let v = db.table(reached)?.value(&next);
        let plies = match distance {
            Distance::Conversion if reached != signature => 1,
            _ => v.plies().unwrap_or(0) + 1,
        };
        match v.wdl() {
            Some(Wdl::Loss) => {
                quickest_win = Some(quickest_win.map_or(plies, |q| q.min(plies)));
            }
            Some(Wdl::Win) => slowest_loss = slowest_loss.max(plies),
            _ => all_won = false,
        }
    }
    Some(match (quickest_win, all_won) {
        (Some(plies), _) => Value::win(plies),
        (None, true) => Value::loss(slowest_loss),
        (None, false) => Value::DRAW,
    })
}

/// Checks every position of the tables `signatures` in `db`.
pub fn verify<V: Rules>(db: &Egdb<V>, signatures: &[Signature]) -> VerifyReport {
    let mut report = VerifyReport::default();
    for &signature in signatures {
        let Some(table) = db.table(signature) else {
            continue;
        };
        let size = table.indexer().size() as usize;
        let part = table
            .values()
            .par_iter()
            .enumerate()
            .with_min_len(4096)
            .fold(VerifyReport::default, |mut r, (slot, &stored)| {
                let turn = if slot < size {
                    Color::White
                } else {
                    Color::Black
                };
                let Some(position) = table.indexer().decode((slot % size) as u64, turn) else {
                    return r;
                };
                r.positions += 1;
                match expected_value(db, &position, table.distance()) {
                    None => r.unchecked += 1,
                    Some(expected) if expected.bits() != stored => {
                        r.wrong += 1;
                        if r.examples.len() < 10 {
                            r.examples.push(format!(
                                "{}: stored {}, successors give {expected}",
                                to_fen::<V>(&position),
                                Value::from_bits(stored)
                            ));
                        }
                    }
                    Some(_) => {}
                }
                r
            })
            .reduce(VerifyReport::default, |mut a, b| {
                a.positions += b.positions;
                a.wrong += b.wrong;
                a.unchecked += b.unchecked;
                a.examples.extend(b.examples);
                a.examples.truncate(10);
                a
            });
        report.positions += part.positions;
        report.wrong += part.wrong;
        report.unchecked += part.unchecked;
        report.examples.extend(part.examples);
        report.examples.truncate(10);
    }
    report
}
