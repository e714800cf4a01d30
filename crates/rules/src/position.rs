//! A position: where the pieces stand and who is to move. No history: see [`crate::Game`].

use crate::bitboard::Bits;
use crate::color::{ByColor, Color};
use crate::geometry::Geometry;
use crate::moves::Move;
use crate::variant::Rules;
use crate::zobrist;

/// What stands on a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// The owner.
    pub color: Color,
    /// Whether it is a king (otherwise a man).
    pub king: bool,
}

/// The pieces on the board and the side to move, as bit sets over a [`Geometry`]'s layout.
///
/// Architecture invariant: no ghost bit is ever set, the two sides never share a square, and every
/// king bit is also a piece bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position<G: Geometry> {
    pieces: ByColor<G::Bits>,
    kings: G::Bits,
    turn: Color,
}

impl<G: Geometry> Position<G> {
    /// An empty board with `turn` to move.
    pub fn empty(turn: Color) -> Self {
        Position {
            pieces: ByColor::default(),
            kings: G::Bits::EMPTY,
            turn,
        }
    }

    /// The starting position of variant `V`.
    pub fn initial<V: Rules<Geometry = G>>() -> Self {
        Position {
            pieces: ByColor {
                white: G::rows(V::INITIAL_ROWS + V::EMPTY_BACK_ROWS, false)
                    & !G::rows(V::EMPTY_BACK_ROWS, false),
                black: G::rows(V::INITIAL_ROWS + V::EMPTY_BACK_ROWS, true)
                    & !G::rows(V::EMPTY_BACK_ROWS, true),
            },
            kings: G::Bits::EMPTY,
            turn: V::FIRST_MOVER,
        }
    }

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The same position with `turn` to move.
    pub fn with_turn(mut self, turn: Color) -> Self {
        self.turn = turn;
        self
    }

    /// All pieces of `color`, as bits.
    #[inline]
    pub fn pieces(&self, color: Color) -> G::Bits {
        *self.pieces.get(color)
    }

    /// All kings of both sides, as bits.
    #[inline]
    pub fn all_kings(&self) -> G::Bits {
        self.kings
    }

    /// The kings of `color`, as bits.
    #[inline]
    pub fn kings(&self, color: Color) -> G::Bits {
        self.pieces(color) & self.kings
    }

    /// The men of `color`, as bits.
    #[inline]
    pub fn men(&self, color: Color) -> G::Bits {
        self.pieces(color) & !self.kings
    }

    /// Every occupied square, as bits.
    #[inline]
    pub fn occupied(&self) -> G::Bits {
        self.pieces.white | self.pieces.black
    }

    /// Every empty playable square, as bits.
    #[inline]
    pub fn empty_squares(&self) -> G::Bits {
        G::VALID & !self.occupied()
    }

    /// The piece on internal square `square`, if any.
    pub fn piece_at(&self, square: u32) -> Option<Piece> {
        let bit = G::bit(square);
        let king = self.kings.has(bit);
        Color::ALL
            .into_iter()
            .find(|&c| self.pieces(c).has(bit))
            .map(|color| Piece { color, king })
    }

    /// Puts `piece` on internal square `square`, replacing what was there.
    pub fn set(&mut self, square: u32, piece: Option<Piece>) {
        let bit = G::Bits::single(G::bit(square));
        self.pieces.white &= !bit;
        self.pieces.black &= !bit;
        self.kings &= !bit;
        if let Some(piece) = piece {
            *self.pieces.get_mut(piece.color) |= bit;
            if piece.king {
                self.kings |= bit;
            }
        }
    }

    /// Plays `mv`, which must be legal here, and passes the turn.
    #[inline]
    pub fn play(&mut self, mv: &Move<G>) {
        let from = G::Bits::single(mv.from_bit());
        let to = G::Bits::single(mv.to_bit());
        // Captures first: where pieces leave the board as they are taken (Turkish), a capturing
        // piece may end on a square it emptied earlier in the same move.
        let captured = mv.captured_bits();
        *self.pieces.get_mut(!self.turn) &= !captured;
        self.kings &= !captured;
        let own = self.pieces.get_mut(self.turn);
        *own = (*own & !from) | to;
        if !(self.kings & from).is_empty() || mv.promotes() {
            self.kings = (self.kings & !from) | to;
        }
        self.turn = !self.turn;
    }

    /// The position after `mv`.
    #[inline]
    pub fn after(&self, mv: &Move<G>) -> Self {
        let mut next = *self;
        next.play(mv);
        next
    }

    /// The Zobrist hash, computed from scratch.
    pub fn hash(&self) -> u64 {
        let mut hash = if self.turn == Color::Black {
            zobrist::SIDE
        } else {
            0
        };
        for color in Color::ALL {
            for bit in self.pieces(color).iter() {
                hash ^= zobrist::piece(color, self.kings.has(bit), bit);
            }
        }
        hash
    }

    /// What playing `mv` toggles in the Zobrist hash: `hash() ^ hash_change(mv)` is the hash of
    /// the position after `mv`.
    #[inline]
    pub fn hash_change(&self, mv: &Move<G>) -> u64 {
        let us = self.turn;
        let was_king = self.kings.has(mv.from_bit());
        let mut change = zobrist::SIDE
            ^ zobrist::piece(us, was_king, mv.from_bit())
            ^ zobrist::piece(us, was_king || mv.promotes(), mv.to_bit());
        for bit in mv.captured_bits().iter() {
            change ^= zobrist::piece(!us, self.kings.has(bit), bit);
        }
        change
    }

    /// Whether the layout invariants hold (no ghost bits, no shared squares, kings are pieces).
    pub fn is_consistent(&self) -> bool {
        let all = self.occupied();
        (all & !G::VALID).is_empty()
            && (self.pieces.white & self.pieces.black).is_empty()
            && (self.kings & !all).is_empty()
    }
}
