//! Perft: counting the leaves of the legal move tree, the standard check of a move generator.

use crate::geometry::Geometry;
use crate::movegen::{self, CaptureSink, Sequence};
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::variant::Rules;
use std::str::FromStr;

/// How capture sequences taking the same pieces by different routes are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Duplicates {
    /// Moves equal in (from, to, captured set) count once: the tree a search sees.
    #[default]
    Unique,
    /// Sequences taking the same pieces in a different order count separately.
    Keep,
}

impl FromStr for Duplicates {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "unique" => Ok(Duplicates::Unique),
            "keep" => Ok(Duplicates::Keep),
            other => Err(format!(
                "unknown duplicates convention `{other}` (expected `unique` or `keep`)"
            )),
        }
    }
}

/// Leaf count of the legal move tree `depth` plies deep.
pub fn perft<V: Rules>(
    position: &Position<V::Geometry>,
    depth: u32,
    duplicates: Duplicates,
) -> u64 {
    match duplicates {
        Duplicates::Unique => perft_unique::<V>(position, depth),
        Duplicates::Keep => perft_keep::<V>(position, depth),
    }
}

/// Each legal move with the leaf count below it (`depth` counts the move itself).
pub fn divide<V: Rules>(
    position: &Position<V::Geometry>,
    depth: u32,
    duplicates: Duplicates,
) -> Vec<(Move<V::Geometry>, u64)> {
    let moves = match duplicates {
        Duplicates::Unique => {
            let mut list = MoveList::new();
            movegen::legal_moves::<V>(position, &mut list);
            list.iter().map(|&mv| (mv, 1)).collect()
        }
        Duplicates::Keep => moves_with_multiplicity::<V>(position),
    };
    moves
        .into_iter()
        .map(|(mv, times)| {
            let below = if depth <= 1 {
                1
            } else {
                perft::<V>(&position.after(&mv), depth - 1, duplicates)
            };
            (mv, times * below)
        })
        .collect()
}

fn perft_unique<V: Rules>(position: &Position<V::Geometry>, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => movegen::count_legal_moves::<V>(position),
        _ => {
            let mut list = MoveList::new();
            movegen::legal_moves::<V>(position, &mut list);
            list.iter()
                .map(|mv| perft_unique::<V>(&position.after(mv), depth - 1))
                .sum()
        }
    }
}

fn perft_keep<V: Rules>(position: &Position<V::Geometry>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    moves_with_multiplicity::<V>(position)
        .into_iter()
        .map(|(mv, times)| {
            times
                * if depth == 1 {
                    1
                } else {
                    perft_keep::<V>(&position.after(&mv), depth - 1)
                }
        })
        .sum()
}

/// The legal moves, each with the number of distinct capture orders that make it.
fn moves_with_multiplicity<V: Rules>(
    position: &Position<V::Geometry>,
) -> Vec<(Move<V::Geometry>, u64)> {
    let mut sink = OrderedCaptures::<V::Geometry> {
        sequences: Vec::new(),
        best: 0,
    };
    movegen::search_captures::<V, _>(position, None, &mut sink);
    if sink.sequences.is_empty() {
        let mut list = MoveList::new();
        movegen::quiet_moves::<V>(position, &mut list);
        return list.iter().map(|&mv| (mv, 1)).collect();
    }
    sink.sequences.sort_unstable_by_key(|&(mv, order)| {
        (
            mv.from_bit(),
            mv.to_bit(),
            mv.captured_bits(),
            mv.promotes(),
            order,
        )
    });
    sink.sequences.dedup();
    let mut moves: Vec<(Move<V::Geometry>, u64)> = Vec::new();
    for (mv, _) in sink.sequences {
        match moves.last_mut() {
            Some((last, times)) if *last == mv => *times += 1,
            _ => moves.push((mv, 1)),
        }
    }
    moves
}

/// Collects the best-keyed sequences with their capture order.
struct OrderedCaptures<G: Geometry> {
    sequences: Vec<(Move<G>, u128)>,
    best: u64,
}

impl<G: Geometry> CaptureSink<G::Bits> for OrderedCaptures<G> {
    fn sequence(&mut self, s: &Sequence<'_, G::Bits>, key: u64) {
        if key < self.best {
            return;
        }
        if key > self.best {
            self.sequences.clear();
            self.best = key;
        }
        // Seven bits per captured square: exact for up to 18 captures, a hash beyond.
        let order = s
            .order
            .iter()
            .fold(0u128, |acc, &bit| (acc << 7) | bit as u128);
        self.sequences
            .push((Move::new(s.from, s.to, s.captured, s.promotes), order));
    }
}
