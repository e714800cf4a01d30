//! A position: where the pieces stand and who is to move. No history: see [`crate::Game`].

use crate::bitboard::Bits;
use crate::color::{ByColor, Color};
use crate::geometry::Geometry;
use crate::movegen::promotion_squares;
use crate::moves::Move;
use crate::squares::start_sets;
use crate::variant::Rules;
use crate::zobrist;

/// The kinds of piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A man.
    Man,
    /// A king (a crowned man).
    King,
    /// A parachutist: it moves only by its own capture and is a man from the square it lands on
    /// (see [`crate::variant::Parachutists`]). It is stored as a man on its owner's promotion
    /// squares, where no man can otherwise rest (it would have been crowned): the bits need no
    /// third set, and only code that knows the variant tells the two apart ([`Position::piece`]).
    Parachutist,
}

/// What stands on a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// The owner.
    pub color: Color,
    /// What kind of piece it is.
    pub kind: Kind,
}

impl Piece {
    /// A piece of `color` and `kind`.
    pub const fn new(color: Color, kind: Kind) -> Self {
        Piece { color, kind }
    }

    /// Whether it is a king.
    pub const fn is_king(self) -> bool {
        matches!(self.kind, Kind::King)
    }

    /// Its letter in a diagram: `w`/`b` a man, `W`/`B` a king, `p`/`q` a parachutist (White's
    /// first each time).
    pub const fn letter(self) -> char {
        match (self.color, self.kind) {
            (Color::White, Kind::Man) => 'w',
            (Color::Black, Kind::Man) => 'b',
            (Color::White, Kind::King) => 'W',
            (Color::Black, Kind::King) => 'B',
            (Color::White, Kind::Parachutist) => 'p',
            (Color::Black, Kind::Parachutist) => 'q',
        }
    }
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

    /// The starting position of variant `V` (its parachutists are men on their promotion
    /// squares, see [`Kind::Parachutist`]).
    pub fn initial<V: Rules<Geometry = G>>() -> Self {
        let sets = const { start_sets::<V>() };
        Position {
            pieces: ByColor {
                white: G::Bits::from_wide(sets.pieces[0]),
                black: G::Bits::from_wide(sets.pieces[1]),
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

    /// The same pieces with `turn` to move.
    #[inline]
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

    /// The uncrowned pieces of `color` (its men, and its parachutists if the variant has any), as
    /// bits.
    #[inline]
    pub fn men(&self, color: Color) -> G::Bits {
        self.pieces(color) & !self.kings
    }

    /// The parachutists of `color` under `V`'s rules: its uncrowned pieces on its promotion
    /// squares, if `V` has parachutists (none otherwise, at no cost).
    #[inline]
    pub fn parachutists<V: Rules<Geometry = G>>(&self, color: Color) -> G::Bits {
        if const { V::PARACHUTIST_CAPTURES.is_empty() } {
            G::Bits::EMPTY
        } else {
            self.men(color) & promotion_squares::<V>(color)
        }
    }

    /// The men of `color` under `V`'s rules: its uncrowned pieces but its parachutists.
    #[inline]
    pub fn plain_men<V: Rules<Geometry = G>>(&self, color: Color) -> G::Bits {
        self.men(color) & !self.parachutists::<V>(color)
    }

    /// Whether the piece on bit `bit`, which must hold one, is a king.
    #[inline]
    pub fn king_at_bit(&self, bit: u32) -> bool {
        self.kings.has(bit)
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

    /// The piece on internal square `square`, if any, as a man or a king (a parachutist shows
    /// as the man it is stored as; [`Position::piece`] tells it apart).
    pub fn piece_at(&self, square: u32) -> Option<Piece> {
        let bit = G::bit(square);
        Color::ALL
            .into_iter()
            .find(|&c| self.pieces(c).has(bit))
            .map(|color| {
                let kind = if self.kings.has(bit) {
                    Kind::King
                } else {
                    Kind::Man
                };
                Piece::new(color, kind)
            })
    }

    /// The piece on internal square `square` under `V`'s rules, if any: a man, a king or a
    /// parachutist.
    pub fn piece<V: Rules<Geometry = G>>(&self, square: u32) -> Option<Piece> {
        self.piece_at(square).map(|piece| {
            let parachutist = self.parachutists::<V>(piece.color).has(G::bit(square));
            if parachutist {
                Piece::new(piece.color, Kind::Parachutist)
            } else {
                piece
            }
        })
    }

    /// Puts `piece` on internal square `square`, replacing what was there. A parachutist is
    /// stored as a man (see [`Kind::Parachutist`]).
    pub fn set(&mut self, square: u32, piece: Option<Piece>) {
        let bit = G::Bits::single(G::bit(square));
        self.pieces.white &= !bit;
        self.pieces.black &= !bit;
        self.kings &= !bit;
        if let Some(piece) = piece {
            *self.pieces.get_mut(piece.color) |= bit;
            if piece.kind == Kind::King {
                self.kings |= bit;
            }
        }
    }

    /// Plays `mv`, which must be legal here, and passes the turn.
    #[inline]
    pub fn play(&mut self, mv: &Move<G>) {
        let from = G::Bits::single(mv.from_bit());
        // A removal "goes to" another of the mover's pieces: the piece is simply gone.
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
        let mut change = zobrist::SIDE ^ zobrist::piece(us, was_king, mv.from_bit());
        if mv.is_removal() {
            return change;
        }
        change ^= zobrist::piece(us, was_king || mv.promotes(), mv.to_bit());
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
