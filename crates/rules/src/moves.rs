//! Moves and move lists.

use crate::bitboard::Bits;
use crate::geometry::Geometry;
use arrayvec::ArrayVec;

/// A legal move: where the piece starts and ends, what it captures, and whether it promotes.
///
/// Two capture sequences with the same start, end and captured set are the same move (the
/// "unique" convention); the route is recovered by [`crate::notation::landing_squares`] when a
/// notation needs it. A removal of an opening (Konane), which takes the mover's own piece off the
/// board, is flagged as one and goes "to" another of the mover's pieces: [`Position::play`] then
/// takes the piece off with no branch of its own, and [`Move::to`] gives the removed square.
///
/// [`Position::play`]: crate::Position::play
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move<G: Geometry> {
    captured: G::Bits,
    from: u8,
    to: u8,
    promotes: bool,
    removal: bool,
}

impl<G: Geometry> Move<G> {
    /// A move between two bit indices.
    #[inline]
    pub(crate) fn new(from_bit: u32, to_bit: u32, captured: G::Bits, promotes: bool) -> Self {
        Move {
            captured,
            from: from_bit as u8,
            to: to_bit as u8,
            promotes,
            removal: false,
        }
    }

    /// Internal square (0-based) the piece starts on.
    #[inline]
    pub fn from(&self) -> u32 {
        G::square(self.from as u32)
    }

    /// Internal square (0-based) the piece ends on (a removal's own square).
    #[inline]
    pub fn to(&self) -> u32 {
        if self.is_removal() {
            self.from()
        } else {
            G::square(self.to as u32)
        }
    }

    /// Bit index of the start square.
    #[inline]
    pub fn from_bit(&self) -> u32 {
        self.from as u32
    }

    /// Bit index of the end square (for a removal, that of another of the mover's pieces).
    #[inline]
    pub fn to_bit(&self) -> u32 {
        self.to as u32
    }

    /// The captured pieces, as bits.
    #[inline]
    pub fn captured_bits(&self) -> G::Bits {
        self.captured
    }

    /// The captured pieces' internal squares, in increasing order.
    pub fn captured(&self) -> impl Iterator<Item = u32> + '_ {
        self.captured.iter().map(G::square)
    }

    /// Whether the move captures.
    #[inline]
    pub fn is_capture(&self) -> bool {
        !self.captured.is_empty()
    }

    /// A removal of the mover's piece on bit index `bit`; `other` is the bit of another of its
    /// pieces (an opening starts from a full board, so there is one).
    #[inline]
    pub(crate) fn removal(bit: u32, other: u32) -> Self {
        Move {
            captured: G::Bits::EMPTY,
            from: bit as u8,
            to: other as u8,
            promotes: false,
            removal: true,
        }
    }

    /// Whether the move takes the mover's own piece off the board (an opening removal).
    #[inline]
    pub fn is_removal(&self) -> bool {
        self.removal
    }

    /// Whether a man becomes a king by this move.
    #[inline]
    pub fn promotes(&self) -> bool {
        self.promotes
    }
}

/// Most moves a list can hold. Positions reachable under the piece limits stay far below it.
pub const MAX_MOVES: usize = 1024;

/// A list of moves on the stack: generating moves never allocates.
pub type MoveList<G> = ArrayVec<Move<G>, MAX_MOVES>;
