//! How positions become network inputs and moves become policy indices (documented for other
//! engines in docs/model-format.md; bump [`ENCODING_VERSION`] on any change).
//!
//! Everything is seen from the side to move: when Black is to move the board is turned half a
//! turn (internal square `s` becomes `SQUARES - 1 - s`), so the network always plays "up" (in a
//! one-way game, where Black's men also move up the board, Black's view is not turned).
//!
//! Input: [`INPUT_PLANES`] planes of `HEIGHT x WIDTH` (the full board, light squares included),
//! row 0 at the top of the side to move's diagram:
//!
//! | plane | meaning |
//! |---|---|
//! | 0 | own men |
//! | 1 | own kings |
//! | 2 | opponent's men |
//! | 3 | opponent's kings |
//! | 4 | playable squares |
//! | 5-12 | rule flags, constant planes: men capture backwards, flying kings, men capture kings, promotion during a capture, majority capture rule, losing game, flying king lands right behind, pieces removed while capturing |
//! | 13 | king-only plies so far over the variant's limit (0 without a limit) |
//! | 14 | repetitions of this position so far over the variant's limit, minus one (0 without) |
//! | 15 | own parachutists |
//! | 16 | opponent's parachutists |
//! | 17 | plies without a capture so far over the variant's limit (0 without a limit) |
//! | 18 | squares where the side to move's men are crowned |
//!
//! Policy: index `from * SQUARES + to` over playable squares numbered in the side to move's
//! view (0 at its top left, row by row). Captures with the same start and end share an index
//! and split its probability evenly. Every kind of move has its own (from, to) pair: a Dameo
//! linear move or a Konane multiple jump stopping half-way ends on its own square, a
//! parachutist's drop starts on the parachutist's square, and an opening removal (Konane), the
//! only move that starts and ends on the same square without capturing, is `from * SQUARES +
//! from`.

use damas_rules::movegen::promotion_squares;
use damas_rules::{Bits, Color, Direction, Game, Geometry, Move, Position, Precedence, Rules};
use serde::{Deserialize, Serialize};

/// Version of the input and policy layouts; checkpoints and shards record it. Version 2 added
/// planes 15-18 (parachutists, the no-capture count, promotion squares) and Black's unturned view
/// in one-way games.
pub const ENCODING_VERSION: u32 = 2;

/// Number of input planes.
pub const INPUT_PLANES: usize = 19;

/// The shape of the network's input and policy for a variant's board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardShape {
    /// Rows of the full board.
    pub height: usize,
    /// Columns of the full board.
    pub width: usize,
    /// Playable squares.
    pub squares: usize,
}

impl BoardShape {
    /// The shape of `V`'s board.
    pub fn of<V: Rules>() -> Self {
        BoardShape {
            height: V::Geometry::HEIGHT as usize,
            width: V::Geometry::WIDTH as usize,
            squares: V::Geometry::SQUARES as usize,
        }
    }

    /// Floats in one encoded position.
    pub fn input_len(&self) -> usize {
        INPUT_PLANES * self.height * self.width
    }

    /// Entries of the policy vector.
    pub fn policy_len(&self) -> usize {
        self.squares * self.squares
    }
}

/// A position as the network sees it, without the encoding's redundancy: what a training shard
/// stores. Square sets are bit `s` for playable square `s` in the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackedPosition {
    /// The side to move's men.
    pub own_men: u128,
    /// The side to move's kings.
    pub own_kings: u128,
    /// The opponent's men.
    pub their_men: u128,
    /// The opponent's kings.
    pub their_kings: u128,
    /// The side to move's parachutists.
    pub own_parachutists: u128,
    /// The opponent's parachutists.
    pub their_parachutists: u128,
    /// Consecutive king-only plies so far.
    pub king_move_plies: u16,
    /// Consecutive plies without a capture so far.
    pub plies_without_capture: u16,
    /// Times this position has occurred, this time included.
    pub repetitions: u8,
}

/// A square in the side to move's view: turned half a turn for Black, unless Black's men move up
/// the board like White's (one-way games).
fn view<V: Rules>(square: u32, turn: Color) -> u32 {
    match turn {
        Color::Black if !V::ONE_WAY => V::Geometry::SQUARES - 1 - square,
        _ => square,
    }
}

/// A set of bits as a set of viewed squares.
fn viewed_set<V: Rules>(bits: <V::Geometry as Geometry>::Bits, turn: Color) -> u128 {
    bits.iter()
        .map(|bit| 1u128 << view::<V>(V::Geometry::square(bit), turn))
        .fold(0, |set, square| set | square)
}

/// Whether men capture backwards in some jump of a capture (Alquerque: in their later jumps).
fn men_capture_backwards<V: Rules>() -> bool {
    V::MAN_CAPTURES
        .iter()
        .chain(V::MAN_LATER_CAPTURES)
        .any(|d| {
            matches!(
                d,
                Direction::Down | Direction::DownLeft | Direction::DownRight
            )
        })
}

impl PackedPosition {
    /// Packs `game`'s current position and draw counters.
    pub fn of<V: Rules>(game: &Game<V>) -> Self {
        Self::from_position::<V>(
            game.position(),
            game.king_move_plies(),
            game.plies_without_capture(),
            game.repetitions(),
        )
    }

    /// Packs a position with the given draw counters.
    pub fn from_position<V: Rules>(
        position: &Position<V::Geometry>,
        king_move_plies: u32,
        plies_without_capture: u32,
        repetitions: u32,
    ) -> Self {
        let us = position.turn();
        let set = |bits| viewed_set::<V>(bits, us);
        let count = |n: u32| n.min(u16::MAX as u32) as u16;
        PackedPosition {
            own_men: set(position.plain_men::<V>(us)),
            own_kings: set(position.kings(us)),
            their_men: set(position.plain_men::<V>(!us)),
            their_kings: set(position.kings(!us)),
            own_parachutists: set(position.parachutists::<V>(us)),
            their_parachutists: set(position.parachutists::<V>(!us)),
            king_move_plies: count(king_move_plies),
            plies_without_capture: count(plies_without_capture),
            repetitions: repetitions.min(u8::MAX as u32) as u8,
        }
    }

    /// Writes the network input into `out` (length [`BoardShape::input_len`]).
    pub fn encode<V: Rules>(&self, out: &mut [f32]) {
        type G<V> = <V as Rules>::Geometry;
        let shape = BoardShape::of::<V>();
        let area = shape.height * shape.width;
        assert_eq!(out.len(), INPUT_PLANES * area, "input buffer size");
        out.fill(0.0);
        let cell = |square: u32| {
            G::<V>::row(square) as usize * shape.width + G::<V>::column(square) as usize
        };
        // The squares where the side to move's men are crowned: in its own view they are the same
        // for either side, White's.
        let promotion = viewed_set::<V>(promotion_squares::<V>(Color::White), Color::White);
        let sets = [
            (0, self.own_men),
            (1, self.own_kings),
            (2, self.their_men),
            (3, self.their_kings),
            (15, self.own_parachutists),
            (16, self.their_parachutists),
            (18, promotion),
        ];
        for (plane, set) in sets {
            let mut set = set;
            while set != 0 {
                let square = set.trailing_zeros();
                set &= set - 1;
                out[plane * area + cell(square)] = 1.0;
            }
        }
        for square in 0..G::<V>::SQUARES {
            out[4 * area + cell(square)] = 1.0;
        }
        let draw = V::DRAW;
        // The counters as the draw rules see them, the same that key the evaluation cache.
        let progress = draw.progress(
            u32::from(self.king_move_plies),
            u32::from(self.plies_without_capture),
            u32::from(self.repetitions),
        );
        let constants = [
            flag(men_capture_backwards::<V>()),
            flag(V::FLYING_KINGS),
            flag(V::MEN_CAPTURE_KINGS),
            flag(V::PROMOTE_MID_CAPTURE),
            flag(!matches!(
                V::PRECEDENCE,
                Precedence::Free | Precedence::KingFirst
            )),
            flag(V::LOSING),
            flag(V::KING_STOPS_BEHIND),
            flag(V::REMOVE_WHILE_CAPTURING),
            ratio(progress.king_move_plies, draw.king_move_plies),
            ratio(progress.repeats, draw.repetitions.saturating_sub(1)),
        ];
        for (offset, value) in constants.into_iter().enumerate() {
            let plane = 5 + offset;
            out[plane * area..(plane + 1) * area].fill(value);
        }
        let no_capture = ratio(progress.plies_without_capture, draw.no_capture_plies);
        out[17 * area..18 * area].fill(no_capture);
    }
}

fn flag(on: bool) -> f32 {
    if on { 1.0 } else { 0.0 }
}

/// A counter within its rule's limit as a share of it (0 where the rule is absent).
fn ratio(count: u32, limit: u32) -> f32 {
    if limit == 0 {
        0.0
    } else {
        count as f32 / limit as f32
    }
}

/// Writes the network input for `game`'s current position into `out`.
pub fn encode<V: Rules>(game: &Game<V>, out: &mut [f32]) {
    PackedPosition::of(game).encode::<V>(out);
}

/// The policy index of `mv` played by the side `turn`.
pub fn policy_index<V: Rules>(mv: &Move<V::Geometry>, turn: Color) -> usize {
    let squares = V::Geometry::SQUARES;
    let from = view::<V>(mv.from(), turn);
    let to = view::<V>(mv.to(), turn);
    (from * squares + to) as usize
}

/// Turns policy logits over all indices into probabilities over `moves` (side `turn` to move):
/// a softmax over the distinct indices the moves use, each index's share split evenly among the
/// moves that use it.
pub fn move_priors<V: Rules>(logits: &[f32], moves: &[Move<V::Geometry>], turn: Color) -> Vec<f32> {
    let indices: Vec<usize> = moves.iter().map(|mv| policy_index::<V>(mv, turn)).collect();
    let mut distinct = indices.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let max = distinct
        .iter()
        .map(|&i| logits[i])
        .fold(f32::NEG_INFINITY, f32::max);
    let total: f32 = distinct.iter().map(|&i| (logits[i] - max).exp()).sum();
    indices
        .iter()
        .map(|&i| {
            let sharing = indices.iter().filter(|&&j| j == i).count() as f32;
            (logits[i] - max).exp() / total / sharing
        })
        .collect()
}

/// A sparse policy target over indices from a distribution over `moves`: moves sharing an
/// index add up.
pub fn policy_target<V: Rules>(
    moves: &[Move<V::Geometry>],
    probabilities: &[f32],
    turn: Color,
) -> Vec<(u16, f32)> {
    let mut target: Vec<(u16, f32)> = Vec::with_capacity(moves.len());
    for (mv, &p) in moves.iter().zip(probabilities) {
        let index = policy_index::<V>(mv, turn) as u16;
        match target.iter_mut().find(|(i, _)| *i == index) {
            Some(entry) => entry.1 += p,
            None => target.push((index, p)),
        }
    }
    target
}
