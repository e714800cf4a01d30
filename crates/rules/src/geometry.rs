//! Board shapes, kept apart from rules: which squares exist and how they are laid out in bits.
//!
//! Playable squares are numbered internally from 0, row by row from the top of the diagram (Black's
//! side), left to right, with the top row starting on its second column (international layout).
//! Bit `b` of a set is square `s` with `b = s + s / WIDTH`: one unused *ghost* bit after every two
//! rows, so that a diagonal step is the same shift everywhere and a step off the board lands on a
//! ghost bit or outside the board, never on another square (Scan's layout):
//!
//! ```text
//! 8x8 (35 bits)          10x10 (54 bits)
//!   .  0  .  1 ...        steps: up-left -(W/2+1), up-right -W/2,
//!   4  .  5  . ...               down-left +W/2, down-right +W/2+1
//! ```

use crate::bitboard::Bits;
use std::fmt::Debug;

/// A diagonal step on the board, as seen from the top of the diagram.
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
}

impl Direction {
    /// All four diagonals.
    pub const ALL: [Direction; 4] = [
        Direction::UpLeft,
        Direction::UpRight,
        Direction::DownLeft,
        Direction::DownRight,
    ];
}

/// A board shape: its size and its padded bit layout.
pub trait Geometry: Copy + Default + Debug + PartialEq + Eq + Send + Sync + 'static {
    /// The integer type wide enough for the padded layout.
    type Bits: Bits;
    /// Columns of the full board (8, 10, 12).
    const WIDTH: u32;
    /// Rows of the full board.
    const HEIGHT: u32;
    /// Every playable square's bit.
    const VALID: Self::Bits;
    /// The top row (White's promotion row).
    const TOP_ROW: Self::Bits;
    /// The bottom row (Black's promotion row).
    const BOTTOM_ROW: Self::Bits;

    /// Number of playable squares.
    const SQUARES: u32 = Self::WIDTH * Self::HEIGHT / 2;
    /// Playable squares per row.
    const PER_ROW: u32 = Self::WIDTH / 2;

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
        let row = Self::row(square);
        2 * (square % Self::PER_ROW) + if row % 2 == 0 { 1 } else { 0 }
    }

    /// The internal square at (row, column), if that square is playable.
    fn at(row: u32, column: u32) -> Option<u32> {
        (row < Self::HEIGHT && column < Self::WIDTH && (row + column) % 2 == 1)
            .then(|| row * Self::PER_ROW + column / 2)
    }

    /// Bit shift of one step in `direction`.
    #[inline]
    fn step(direction: Direction) -> i32 {
        let half = Self::PER_ROW as i32;
        match direction {
            Direction::UpLeft => -(half + 1),
            Direction::UpRight => -half,
            Direction::DownLeft => half,
            Direction::DownRight => half + 1,
        }
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

macro_rules! diagonal_geometry {
    ($(#[$doc:meta])* $name:ident, $bits:ty, $width:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $name {
            const fn mask(first_row: u32, last_row: u32) -> $bits {
                let mut set: $bits = 0;
                let mut square = first_row * ($width / 2);
                while square < (last_row + 1) * ($width / 2) {
                    set |= 1 << (square + square / $width);
                    square += 1;
                }
                set
            }
        }

        impl Geometry for $name {
            type Bits = $bits;
            const WIDTH: u32 = $width;
            const HEIGHT: u32 = $width;
            const VALID: $bits = Self::mask(0, $width - 1);
            const TOP_ROW: $bits = Self::mask(0, 0);
            const BOTTOM_ROW: $bits = Self::mask($width - 1, $width - 1);
        }
    };
}

diagonal_geometry!(
    /// The 8x8 board: 32 playable squares in 35 bits.
    Board8,
    u64,
    8
);
diagonal_geometry!(
    /// The 10x10 board: 50 playable squares in 54 bits.
    Board10,
    u64,
    10
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
            for direction in Direction::ALL {
                let (dr, dc): (i32, i32) = match direction {
                    Direction::UpLeft => (-1, -1),
                    Direction::UpRight => (-1, 1),
                    Direction::DownLeft => (1, -1),
                    Direction::DownRight => (1, 1),
                };
                let row = G::row(square) as i32 + dr;
                let column = G::column(square) as i32 + dc;
                let target = bit as i32 + G::step(direction);
                let on_board =
                    target >= 0 && (target as u32) < G::Bits::WIDTH && G::VALID.has(target as u32);
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
        assert_eq!(Board8::VALID.count(), 32);
        assert_eq!(Board10::TOP_ROW.count(), 5);
    }
}
