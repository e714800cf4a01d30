//! The retrograde solver for one signature.
//!
//! A first pass generates every position's moves: a move that captures or promotes (a
//! conversion) leaves the signature and is looked up in a table already solved, for its result
//! only: distances count plies to the next conversion ([`crate::value::Distance::Conversion`]),
//! so such a move is one ply whatever comes after it. The other moves stay inside and are
//! counted. Positions without a move are decided at once (lost, or won in losing variants).
//! Then the decided positions are taken in order of distance, and each one's predecessors
//! inside the signature are found by unmaking: every piece of the side that just moved is put
//! back on each empty square in line with it, and the candidate is kept only if its own legal
//! moves lead here (so the rules alone say what a move is; nothing about moves is written twice).
//! A predecessor of a loss is a win one ply longer; a predecessor whose last undecided move
//! leads to a win is a loss one ply longer than its longest. What is never decided is a draw.

use crate::db::Egdb;
use crate::index::Indexer;
use crate::signature::Signature;
use crate::table::Table;
use crate::value::{Distance, Value, Wdl};
use damas_rules::movegen::legal_moves;
use damas_rules::{Bits, Color, Geometry, MoveList, Position, Rules};
use rayon::prelude::*;

/// Why a signature could not be solved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// A move leads to material whose table is not loaded.
    #[error("solving {signature} needs the table {missing} first")]
    Missing {
        /// What was being solved.
        signature: Signature,
        /// The table it needs.
        missing: Signature,
    },
    /// The signature has more positions than one table indexes.
    #[error("{0} has too many positions for one table")]
    TooLarge(Signature),
    /// A distance past [`Value::MAX_PLIES`].
    #[error("{0}: a distance passes {max} plies", max = Value::MAX_PLIES)]
    TooDeep(Signature),
}

/// Positions handed to rayon at a time.
const CHUNK: usize = 4096;
/// A loss floor meaning "cannot lose": a move out of the signature draws or wins.
const CANNOT_LOSE: u16 = u16::MAX;

/// What the first pass learns of one position.
#[derive(Clone, Copy, Default)]
struct Start {
    /// Decided now, or pending at a distance.
    value: u16,
    /// Moves that stay in the signature.
    inside: u16,
    /// 1 where a move that leaves wins (it converts in one ply), else 0.
    win_out: u16,
    /// Plies the position loses in at least, from moves that leave: 1 where one leaves into a
    /// won position, 0 where none leaves ([`CANNOT_LOSE`]: one leaves into a draw or a loss).
    loss_floor: u16,
}

/// Solves `signature` under `V`, with every table it reaches already in `tables`.
pub fn solve<V: Rules>(signature: Signature, tables: &Egdb<V>) -> Result<Table<V>, SolveError> {
    let indexer = Indexer::<V>::new(signature);
    let size = indexer.size();
    if 2 * size > u32::MAX as u64 {
        return Err(SolveError::TooLarge(signature));
    }
    let n = 2 * size as usize;
    let starts: Vec<Start> = (0..n)
        .into_par_iter()
        .with_min_len(CHUNK)
        .map(|slot| first_pass(&indexer, slot, tables))
        .collect::<Result<_, _>>()?;
    let mut values = vec![Value::DRAW.0; n];
    let mut inside = vec![0u16; n];
    let mut floor = vec![0u16; n];
    // Buckets of positions to decide, by distance: (slot, win?).
    let mut buckets: Vec<Vec<(u32, bool)>> = Vec::new();
    let push = |buckets: &mut Vec<Vec<(u32, bool)>>, plies: u32, slot: usize, win: bool| {
        let at = plies as usize;
        if buckets.len() <= at {
            buckets.resize_with(at + 1, Vec::new);
        }
        buckets[at].push((slot as u32, win));
    };
    for (slot, s) in starts.iter().enumerate() {
        if s.value == Value::INVALID.0 {
            values[slot] = Value::INVALID.0;
            continue;
        }
        inside[slot] = s.inside;
        floor[slot] = s.loss_floor;
        if s.value != Value::DRAW.0 {
            let v = Value(s.value);
            push(
                &mut buckets,
                v.plies().unwrap(),
                slot,
                v.wdl() == Some(Wdl::Win),
            );
        } else if s.win_out > 0 {
            push(&mut buckets, s.win_out as u32, slot, true);
        } else if s.inside == 0 && s.loss_floor != CANNOT_LOSE {
            push(&mut buckets, s.loss_floor as u32, slot, false);
        }
    }
    drop(starts);
    let mut plies = 0;
    while plies < buckets.len() {
        let bucket = std::mem::take(&mut buckets[plies]);
        let mut frontier = Vec::with_capacity(bucket.len());
        for (slot, win) in bucket {
            let slot = slot as usize;
            if values[slot] == Value::DRAW.0 {
                values[slot] = if win {
                    Value::win(plies as u32).0
                } else {
                    Value::loss(plies as u32).0
                };
                frontier.push((slot, win));
            }
        }
        let next = plies as u32 + 1;
        if next > Value::MAX_PLIES && !frontier.is_empty() {
            return Err(SolveError::TooDeep(signature));
        }
        let updates: Vec<(u32, u16, bool)> = frontier
            .par_iter()
            .with_min_len(64)
            .flat_map_iter(|&(slot, win)| {
                predecessors(&indexer, slot, &values)
                    .into_iter()
                    .map(move |(pred, moves)| (pred, moves, win))
            })
            .collect();
        for (pred, moves, successor_won) in updates {
            let pred = pred as usize;
            if values[pred] != Value::DRAW.0 {
                continue;
            }
            if !successor_won {
                push(&mut buckets, next, pred, true);
            } else {
                inside[pred] -= moves;
                if inside[pred] == 0 && floor[pred] != CANNOT_LOSE {
                    push(&mut buckets, next.max(floor[pred] as u32), pred, false);
                }
            }
        }
        plies += 1;
    }
    Ok(Table::new(indexer, values, Distance::Conversion))
}

/// The position at `slot` (White to move in the first half).
fn position_at<V: Rules>(indexer: &Indexer<V>, slot: usize) -> Option<Position<V::Geometry>> {
    let size = indexer.size() as usize;
    let turn = if slot < size {
        Color::White
    } else {
        Color::Black
    };
    indexer.decode((slot % size) as u64, turn)
}

/// The first pass over one position.
fn first_pass<V: Rules>(
    indexer: &Indexer<V>,
    slot: usize,
    tables: &Egdb<V>,
) -> Result<Start, SolveError> {
    let Some(position) = position_at(indexer, slot) else {
        return Ok(Start {
            value: Value::INVALID.0,
            ..Start::default()
        });
    };
    let mut moves = MoveList::new();
    legal_moves::<V>(&position, &mut moves);
    if moves.is_empty() {
        let end = if V::LOSING {
            Value::win(0)
        } else {
            Value::loss(0)
        };
        return Ok(Start {
            value: end.0,
            ..Start::default()
        });
    }
    let signature = indexer.signature();
    let mut start = Start::default();
    for mv in moves.iter() {
        let next = position.after(mv);
        let reached = Signature::of(&next);
        if reached == signature {
            start.inside += 1;
            continue;
        }
        let table = tables.table(reached).ok_or(SolveError::Missing {
            signature,
            missing: reached,
        })?;
        match table.value(&next).wdl() {
            Some(Wdl::Loss) => start.win_out = 1,
            Some(Wdl::Win) => {
                if start.loss_floor != CANNOT_LOSE {
                    start.loss_floor = 1;
                }
            }
            _ => start.loss_floor = CANNOT_LOSE,
        }
    }
    if start.win_out > 0 {
        start.loss_floor = CANNOT_LOSE;
    }
    Ok(start)
}

/// Whether squares `a` and `b` lie on one line (a row, a column or a diagonal), the only way
/// a quiet move of any variant goes.
fn in_line<G: Geometry>(a: u32, b: u32) -> bool {
    let (ra, ca) = (G::row(a) as i32, G::column(a) as i32);
    let (rb, cb) = (G::row(b) as i32, G::column(b) as i32);
    ra == rb || ca == cb || (ra - rb).abs() == (ca - cb).abs()
}

/// The undecided positions inside the signature with a move to the position at `slot`, each
/// with how many of its moves lead there.
fn predecessors<V: Rules>(indexer: &Indexer<V>, slot: usize, values: &[u16]) -> Vec<(u32, u16)> {
    let Some(position) = position_at(indexer, slot) else {
        return Vec::new();
    };
    let mover = !position.turn();
    let size = indexer.size() as usize;
    let base = if mover == Color::White { 0 } else { size };
    let empty = position.empty_squares();
    let mut found = Vec::new();
    let mut moves = MoveList::new();
    for bit in position.pieces(mover).iter() {
        let to = V::Geometry::square(bit);
        let king = position.king_at_bit(bit);
        let piece = position.piece_at(to).expect("a piece stands there");
        for from in 0..V::Geometry::SQUARES {
            if !empty.has(V::Geometry::bit(from))
                || !in_line::<V::Geometry>(from, to)
                || (!king && !indexer.man_may_stand(mover, from))
            {
                continue;
            }
            let mut before = position.with_turn(mover);
            before.set(to, None);
            before.set(from, Some(piece));
            let pred = base + indexer.index(&before) as usize;
            if values[pred] != Value::DRAW.0 {
                continue;
            }
            moves.clear();
            legal_moves::<V>(&before, &mut moves);
            let count = moves
                .iter()
                .filter(|mv| before.after(mv) == position)
                .count();
            if count > 0 {
                found.push((pred as u32, count as u16));
            }
        }
    }
    found
}
