//! Board shapes, kept apart from rules: which squares exist and how they are laid out in bits.
//!
//! Playable squares are numbered internally from 0, row by row from the top of the diagram (Black's
//! side), left to right. On a diagonal board only the dark squares play and the top row starts on
//! its second column (international layout); an orthogonal board (Turkish) plays on every square.
//! Bit `b` of a set is square `s` with `b = s + s / WIDTH`: one unused *ghost* bit after every
//! WIDTH squares (two rows of a diagonal board, one row of an orthogonal one), so that a diagonal
//! or vertical step is the same shift everywhere and a step off the board lands on a ghost bit or
//! outside the board, never on another square (Scan's layout):
//!
//! ```text
//! 8x8 diagonal (35 bits)   steps: up-left -(W/2+1), up-right -W/2, down-left +W/2,
//!   .  0  .  1 ...                down-right +W/2+1, up/down (same column) -/+(W+1),
//!   4  .  5  . ...                left/right (next playable square in the row) -/+1
//! ```
//!
//! Horizontal steps are the one exception: on a diagonal board the square after a row's last one
//! is the next row's first, so those steps are guarded by edge masks ([`Geometry::next`]).

use crate::bitboard::Bits;
use std::fmt::Debug;

/// A step on the board, as seen from the top of the diagram. On a diagonal board `Up`/`Down` go to
/// the next square of the same colour in the same column (two rows), `Left`/`Right` to the next
/// playable square in the same row (two columns); on an orthogonal board they go to the neighbour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Towards the top row and the left edge.
    UpLeft,
    /// Towards the top row and the right edge.
    UpRight,
    /// Towards the bottom row and the left edge.
    DownLeft,
    /// Towards the bottom row and the right edge.
    DownRight,
    /// Towards the top row, same column.
    Up,
    /// Towards the bottom row, same column.
    Down,
    /// Towards the left edge, same row.
    Left,
    /// Towards the right edge, same row.
    Right,
}

impl Direction {
    /// The four diagonals.
    pub const DIAGONAL: [Direction; 4] = [
        Direction::UpLeft,
        Direction::UpRight,
        Direction::DownLeft,
        Direction::DownRight,
    ];
    /// The four orthogonals.
    pub const ORTHOGONAL: [Direction; 4] = [
        Direction::Up,
        Direction::Down,
        Direction::Left,
        Direction::Right,
    ];
    /// All eight directions.
    pub const ALL: [Direction; 8] = [
        Direction::UpLeft,
        Direction::UpRight,
        Direction::DownLeft,
        Direction::DownRight,
        Direction::Up,
        Direction::Down,
        Direction::Left,
        Direction::Right,
    ];

    /// The same direction seen from the other side of the board (up and down swapped).
    pub const fn flipped(self) -> Direction {
        match self {
            Direction::UpLeft => Direction::DownLeft,
            Direction::UpRight => Direction::DownRight,
            Direction::DownLeft => Direction::UpLeft,
            Direction::DownRight => Direction::UpRight,
            Direction::Up => Direction::Down,
            Direction::Down => Direction::Up,
            Direction::Left | Direction::Right => self,
        }
    }

    /// The direction turned by 180 degrees.
    pub const fn opposite(self) -> Direction {
        match self {
            Direction::UpLeft => Direction::DownRight,
            Direction::UpRight => Direction::DownLeft,
            Direction::DownLeft => Direction::UpRight,
            Direction::DownRight => Direction::UpLeft,
            Direction::Up => Direction::Down,
            Direction::Down => Direction::Up,
            Direction::Left => Direction::Right,
            Direction::Right => Direction::Left,
        }
    }
}

/// Bit shift of one step in `direction` on a board `width` columns wide (see the module doc).
pub const fn step_on(width: u32, direction: Direction) -> i32 {
    let half = (width / 2) as i32;
    let row_pair = width as i32 + 1;
    match direction {
        Direction::UpLeft => -(half + 1),
        Direction::UpRight => -half,
        Direction::DownLeft => half,
        Direction::DownRight => half + 1,
        Direction::Up => -row_pair,
        Direction::Down => row_pair,
        Direction::Left => -1,
        Direction::Right => 1,
    }
}

/// A board shape: its size and its padded bit layout.
pub trait Geometry: Copy + Default + Debug + PartialEq + Eq + Send + Sync + 'static {
    /// The integer type wide enough for the padded layout.
    type Bits: Bits;
    /// Columns of the full board (8, 10, 12).
    const WIDTH: u32;
    /// Rows of the full board.
    const HEIGHT: u32;
    /// Whether only the dark squares are played (diagonal boards); otherwise every square is.
    const DARK_ONLY: bool;
    /// Every playable square's bit.
    const VALID: Self::Bits;
    /// The top row (White's promotion row).
    const TOP_ROW: Self::Bits;
    /// The bottom row (Black's promotion row).
    const BOTTOM_ROW: Self::Bits;
    /// Squares with no playable square to their left in the same row.
    const LEFT_EDGE: Self::Bits;
    /// Squares with no playable square to their right in the same row.
    const RIGHT_EDGE: Self::Bits;
    /// [`Self::LEFT_EDGE`] widened to 128 bits, for tables built at compile time.
    const LEFT_EDGE_WIDE: u128;
    /// [`Self::RIGHT_EDGE`] widened to 128 bits, for tables built at compile time.
    const RIGHT_EDGE_WIDE: u128;

    /// Playable squares per row.
    const PER_ROW: u32 = if Self::DARK_ONLY {
        Self::WIDTH / 2
    } else {
        Self::WIDTH
    };
    /// Number of playable squares.
    const SQUARES: u32 = Self::PER_ROW * Self::HEIGHT;

    /// Bit index of internal square `square` (0-based).
    #[inline]
    fn bit(square: u32) -> u32 {
        square + square / Self::WIDTH
    }

    /// Internal square (0-based) of a bit index that is a playable square.
    #[inline]
    fn square(bit: u32) -> u32 {
        bit - bit / (Self::WIDTH + 1)
    }

    /// Row of an internal square, 0 at the top.
    #[inline]
    fn row(square: u32) -> u32 {
        square / Self::PER_ROW
    }

    /// Column of an internal square, 0 at the left edge of the diagram.
    #[inline]
    fn column(square: u32) -> u32 {
        if Self::DARK_ONLY {
            2 * (square % Self::PER_ROW) + if Self::row(square) % 2 == 0 { 1 } else { 0 }
        } else {
            square % Self::PER_ROW
        }
    }

    /// The internal square at (row, column), if that square is playable.
    fn at(row: u32, column: u32) -> Option<u32> {
        let inside = row < Self::HEIGHT && column < Self::WIDTH;
        (inside && (!Self::DARK_ONLY || (row + column) % 2 == 1))
            .then(|| row * Self::PER_ROW + if Self::DARK_ONLY { column / 2 } else { column })
    }

    /// Bit shift of one step in `direction` (diagonal steps only on diagonal boards).
    #[inline]
    fn step(direction: Direction) -> i32 {
        step_on(Self::WIDTH, direction)
    }

    /// The bit one step from `bit` in `direction`; off the board it is a ghost bit, a bit past the
    /// layout or negative (never another square).
    #[inline]
    fn next(bit: i32, direction: Direction) -> i32 {
        let blocked = match direction {
            Direction::Left => Self::LEFT_EDGE,
            Direction::Right => Self::RIGHT_EDGE,
            _ => Self::Bits::EMPTY,
        };
        if (bit as u32) < Self::Bits::WIDTH && blocked.has(bit as u32) {
            -1
        } else {
            bit + Self::step(direction)
        }
    }

    /// Every member of `set` moved one step in `direction` (members leaving the board are lost).
    #[inline]
    fn shift(set: Self::Bits, direction: Direction) -> Self::Bits {
        let movable = match direction {
            Direction::Left => set & !Self::LEFT_EDGE,
            Direction::Right => set & !Self::RIGHT_EDGE,
            _ => set,
        };
        movable.shift(Self::step(direction)) & Self::VALID
    }

    /// The bits of the `rows` rows nearest the top (`from_top`) or the bottom of the board.
    fn rows(rows: u32, from_top: bool) -> Self::Bits {
        let mut set = Self::Bits::EMPTY;
        for square in 0..Self::SQUARES {
            let row = Self::row(square);
            let inside = if from_top {
                row < rows
            } else {
                row >= Self::HEIGHT - rows
            };
            if inside {
                set |= Self::Bits::single(Self::bit(square));
            }
        }
        set
    }
}

macro_rules! geometry {
    ($(#[$doc:meta])* $name:ident, $bits:ty, $width:expr, $dark_only:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $name {
            const PER_ROW_: u32 = if $dark_only { $width / 2 } else { $width };

            /// The bits of rows `first..=last`, keeping only the squares at `index` within their
            /// row if `index` is given (0 = leftmost playable square, `u32::MAX` = rightmost).
            const fn mask(first: u32, last: u32, index: Option<u32>) -> $bits {
                let mut set: $bits = 0;
                let mut square = first * Self::PER_ROW_;
                while square < (last + 1) * Self::PER_ROW_ {
                    let at = square % Self::PER_ROW_;
                    let wanted = match index {
                        None => true,
                        Some(u32::MAX) => at == Self::PER_ROW_ - 1,
                        Some(i) => at == i,
                    };
                    if wanted {
                        set |= 1 << (square + square / $width);
                    }
                    square += 1;
                }
                set
            }
        }

        impl Geometry for $name {
            type Bits = $bits;
            const WIDTH: u32 = $width;
            const HEIGHT: u32 = $width;
            const DARK_ONLY: bool = $dark_only;
            const VALID: $bits = Self::mask(0, $width - 1, None);
            const TOP_ROW: $bits = Self::mask(0, 0, None);
            const BOTTOM_ROW: $bits = Self::mask($width - 1, $width - 1, None);
            const LEFT_EDGE: $bits = Self::mask(0, $width - 1, Some(0));
            const RIGHT_EDGE: $bits = Self::mask(0, $width - 1, Some(u32::MAX));
            const LEFT_EDGE_WIDE: u128 = Self::LEFT_EDGE as u128;
            const RIGHT_EDGE_WIDE: u128 = Self::RIGHT_EDGE as u128;
        }
    };
}

geometry!(
    /// The 8x8 diagonal board: 32 playable squares in 35 bits.
    Board8,
    u64,
    8,
    true
);
geometry!(
    /// The 10x10 diagonal board: 50 playable squares in 54 bits.
    Board10,
    u64,
    10,
    true
);
geometry!(
    /// The 12x12 diagonal board: 72 playable squares in 77 bits.
    Board12,
    u128,
    12,
    true
);
geometry!(
    /// The 8x8 orthogonal board (Turkish): all 64 squares in 72 bits.
    Orthogonal8,
    u128,
    8,
    false
);

#[cfg(test)]
mod tests {
    use super::*;

    fn check_layout<G: Geometry>() {
        assert_eq!(G::VALID.count(), G::SQUARES);
        for square in 0..G::SQUARES {
            let bit = G::bit(square);
            assert_eq!(G::square(bit), square);
            assert_eq!(G::at(G::row(square), G::column(square)), Some(square));
            // A step either reaches the diagonal neighbour or leaves the board.
            let directions: &[Direction] = if G::DARK_ONLY {
                &Direction::ALL
            } else {
                &Direction::ORTHOGONAL
            };
            for &direction in directions {
                let far = if G::DARK_ONLY { 2 } else { 1 };
                let (dr, dc): (i32, i32) = match direction {
                    Direction::UpLeft => (-1, -1),
                    Direction::UpRight => (-1, 1),
                    Direction::DownLeft => (1, -1),
                    Direction::DownRight => (1, 1),
                    Direction::Up => (-far, 0),
                    Direction::Down => (far, 0),
                    Direction::Left => (0, -far),
                    Direction::Right => (0, far),
                };
                let row = G::row(square) as i32 + dr;
                let column = G::column(square) as i32 + dc;
                let target = G::next(bit as i32, direction);
                let shifted = G::shift(G::Bits::single(bit), direction);
                let on_board =
                    target >= 0 && (target as u32) < G::Bits::WIDTH && G::VALID.has(target as u32);
                let expected_shift = if on_board {
                    G::Bits::single(target as u32)
                } else {
                    G::Bits::EMPTY
                };
                assert_eq!(shifted, expected_shift, "shift from {square} {direction:?}");
                match G::at(row as u32, column as u32).filter(|_| row >= 0 && column >= 0) {
                    Some(neighbour) => assert_eq!(target as u32, G::bit(neighbour)),
                    None => assert!(
                        !on_board,
                        "step off the board from {square} lands on a square"
                    ),
                }
            }
        }
    }

    #[test]
    fn layouts_are_consistent() {
        check_layout::<Board8>();
        check_layout::<Board10>();
        check_layout::<Board12>();
        check_layout::<Orthogonal8>();
        assert_eq!(Board12::VALID.count(), 72);
        assert_eq!(Orthogonal8::VALID.count(), 64);
        assert_eq!(Board8::VALID.count(), 32);
        assert_eq!(Board10::TOP_ROW.count(), 5);
    }
}
