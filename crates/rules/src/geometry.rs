//! Board shapes, kept apart from rules: which squares exist, which lines join them, and how they
//! are laid out in bits.
//!
//! Playable squares are numbered internally from 0, row by row from the top of the diagram (Black's
//! side), left to right. On a diagonal board only the dark squares play and the top row starts on
//! its second column (international layout); on the other boards every square (or point) plays.
//! Bit `b` of a set is square `s` with `b = s + s / WIDTH`: one unused *ghost* bit after every
//! WIDTH squares (two rows of a diagonal board, one row of the others), so that a step is the same
//! shift everywhere and a step off the board lands on a ghost bit or outside the board, never on
//! another square (Scan's layout):
//!
//! ```text
//! 8x8 diagonal (35 bits)   steps: up-left -(W/2+1), up-right -W/2, down-left +W/2,
//!   .  0  .  1 ...                down-right +W/2+1, up/down (same column) -/+(W+1),
//!   4  .  5  . ...                left/right (next playable square in the row) -/+1
//!
//! 8x8 all squares (72 bits)  steps: up-left -(W+2), up -(W+1), up-right -W, left -1, ...
//! ```
//!
//! Two exceptions need masks: on a diagonal board the square after a row's last one is the next
//! row's first, so steps along a row are guarded by edge masks; and on a board of lines (the 5x5
//! alquerque board) diagonal lines run only through every other point, so a diagonal step is
//! allowed only from [`Geometry::DIAGONAL_FROM`] ([`Geometry::next`], [`Geometry::shift`]).

use crate::bitboard::Bits;
use std::fmt::Debug;

/// A step on the board, as seen from the top of the diagram. On a diagonal board `Up`/`Down` go to
/// the next square of the same colour in the same column (two rows), `Left`/`Right` to the next
/// playable square in the same row (two columns); on the other boards every step goes to the
/// neighbour.
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

    /// Whether the direction is one of the four diagonals.
    pub const fn is_diagonal(self) -> bool {
        matches!(
            self,
            Direction::UpLeft | Direction::UpRight | Direction::DownLeft | Direction::DownRight
        )
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

/// Bit shift of one step in `direction` on a board `width` columns wide, diagonal (`dark_only`)
/// or not (see the module doc).
pub const fn step_on(width: u32, dark_only: bool, direction: Direction) -> i32 {
    let w = width as i32;
    if dark_only {
        let half = w / 2;
        match direction {
            Direction::UpLeft => -(half + 1),
            Direction::UpRight => -half,
            Direction::DownLeft => half,
            Direction::DownRight => half + 1,
            Direction::Up => -(w + 1),
            Direction::Down => w + 1,
            Direction::Left => -1,
            Direction::Right => 1,
        }
    } else {
        match direction {
            Direction::UpLeft => -(w + 2),
            Direction::UpRight => -w,
            Direction::DownLeft => w,
            Direction::DownRight => w + 2,
            Direction::Up => -(w + 1),
            Direction::Down => w + 1,
            Direction::Left => -1,
            Direction::Right => 1,
        }
    }
}

/// The squares a step in `direction` may not leave from, beyond those whose step lands on a ghost
/// bit: row ends for steps along a row of a diagonal board, points without diagonal lines for a
/// diagonal step on a board of lines. As 128 bits, for tables built at compile time.
pub const fn blocked_wide<G: Geometry>(direction: Direction) -> u128 {
    match direction {
        Direction::Left if G::DARK_ONLY => G::LEFT_EDGE_WIDE,
        Direction::Right if G::DARK_ONLY => G::RIGHT_EDGE_WIDE,
        _ if direction.is_diagonal() && G::PARTIAL_DIAGONALS => {
            G::VALID_WIDE & !G::DIAGONAL_FROM_WIDE
        }
        _ => 0,
    }
}

/// The bit of the square at (`row`, `column`) of the full board, if that square is playable.
pub const fn bit_at<G: Geometry>(row: u32, column: u32) -> Option<u32> {
    if row >= G::HEIGHT || column >= G::WIDTH || (G::DARK_ONLY && (row + column).is_multiple_of(2))
    {
        return None;
    }
    let square = row * G::PER_ROW + if G::DARK_ONLY { column / 2 } else { column };
    Some(square + square / G::WIDTH)
}

/// The bit of an algebraic square name (`a1` at the lower left of the diagram; `mirrored` boards
/// count files from the right); fails to compile, when used in a constant, on a bad name.
pub const fn algebraic_bit<G: Geometry>(name: &[u8], mirrored: bool) -> u32 {
    assert!(name.len() >= 2, "a square name is a file letter and a rank");
    let shown = (name[0] - b'a') as u32;
    let mut rank = 0;
    let mut i = 1;
    while i < name.len() {
        assert!(
            name[i].is_ascii_digit(),
            "a square name is a file letter and a rank"
        );
        rank = rank * 10 + (name[i] - b'0') as u32;
        i += 1;
    }
    assert!(
        rank >= 1 && rank <= G::HEIGHT && shown < G::WIDTH,
        "square off the board"
    );
    let column = if mirrored {
        G::WIDTH - 1 - shown
    } else {
        shown
    };
    match bit_at::<G>(G::HEIGHT - rank, column) {
        Some(bit) => bit,
        None => panic!("not a playable square"),
    }
}

/// The set of comma-separated algebraic square names (`"a7, b8"`), as 128 bits.
pub const fn algebraic_set<G: Geometry>(names: &str, mirrored: bool) -> u128 {
    let bytes = names.as_bytes();
    let mut set = 0u128;
    let mut start = 0;
    while start < bytes.len() {
        if bytes[start] == b',' || bytes[start] == b' ' {
            start += 1;
            continue;
        }
        let mut end = start;
        while end < bytes.len() && bytes[end] != b',' && bytes[end] != b' ' {
            end += 1;
        }
        let (_, rest) = bytes.split_at(start);
        let (name, _) = rest.split_at(end - start);
        set |= 1 << algebraic_bit::<G>(name, mirrored);
        start = end;
    }
    set
}

/// `set` turned half a turn (row `r`, column `c` to `HEIGHT - 1 - r`, `WIDTH - 1 - c`): the
/// squares of one side seen as the other side's.
pub const fn turned_wide<G: Geometry>(set: u128) -> u128 {
    let mut turned = 0u128;
    let mut row = 0;
    while row < G::HEIGHT {
        let mut column = 0;
        while column < G::WIDTH {
            if let Some(bit) = bit_at::<G>(row, column)
                && set & (1 << bit) != 0
                && let Some(to) = bit_at::<G>(G::HEIGHT - 1 - row, G::WIDTH - 1 - column)
            {
                turned |= 1 << to;
            }
            column += 1;
        }
        row += 1;
    }
    turned
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
    /// [`Self::VALID`] widened to 128 bits.
    const VALID_WIDE: u128;
    /// The squares that diagonal lines run through: every square, except on a board of lines
    /// where diagonals join only every other point.
    const DIAGONAL_FROM: Self::Bits;
    /// [`Self::DIAGONAL_FROM`] widened to 128 bits.
    const DIAGONAL_FROM_WIDE: u128;
    /// The long diagonal: the playable diagonal from the lower-left to the upper-right corner of
    /// the internal layout (squares 46 to 5 on 10x10, the "grande diagonal"; on a mirrored board
    /// its diagram runs from the lower right to the upper left).
    const LONG_DIAGONAL: Self::Bits;

    /// Whether some squares have no diagonal lines (a board of lines).
    const PARTIAL_DIAGONALS: bool = Self::DIAGONAL_FROM_WIDE != Self::VALID_WIDE;

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

    /// Bit shift of one step in `direction`.
    #[inline]
    fn step(direction: Direction) -> i32 {
        step_on(Self::WIDTH, Self::DARK_ONLY, direction)
    }

    /// The bit one step from `bit` in `direction`; off the board (or off the lines) it is a ghost
    /// bit, a bit past the layout or negative (never another square).
    #[inline]
    fn next(bit: i32, direction: Direction) -> i32 {
        let inside = (bit as u32) < Self::Bits::WIDTH;
        let blocked = match direction {
            Direction::Left if Self::DARK_ONLY => inside && Self::LEFT_EDGE.has(bit as u32),
            Direction::Right if Self::DARK_ONLY => inside && Self::RIGHT_EDGE.has(bit as u32),
            _ if Self::PARTIAL_DIAGONALS && direction.is_diagonal() => {
                inside && !Self::DIAGONAL_FROM.has(bit as u32)
            }
            _ => false,
        };
        if blocked {
            -1
        } else {
            bit + Self::step(direction)
        }
    }

    /// Every member of `set` moved one step in `direction` (members leaving the board are lost).
    #[inline]
    fn shift(set: Self::Bits, direction: Direction) -> Self::Bits {
        // Only the masks a board needs: elsewhere the ghost bits do the work.
        let movable = match direction {
            Direction::Left if Self::DARK_ONLY => set & !Self::LEFT_EDGE,
            Direction::Right if Self::DARK_ONLY => set & !Self::RIGHT_EDGE,
            _ if Self::PARTIAL_DIAGONALS && direction.is_diagonal() => set & Self::DIAGONAL_FROM,
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
    ($(#[$doc:meta])* $name:ident, $bits:ty, $width:expr, $dark_only:expr, $partial_diagonals:expr) => {
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

            /// The (row, column) of an internal square.
            const fn place(square: u32) -> (u32, u32) {
                let row = square / Self::PER_ROW_;
                let index = square % Self::PER_ROW_;
                let column = if $dark_only { 2 * index + (row + 1) % 2 } else { index };
                (row, column)
            }

            /// The bits of the squares with row + column even (`long_diagonal` false) or equal to
            /// `WIDTH - 1` (true).
            const fn select(long_diagonal: bool) -> $bits {
                let mut set: $bits = 0;
                let mut square = 0;
                while square < $width * Self::PER_ROW_ {
                    let (row, column) = Self::place(square);
                    let keep = if long_diagonal {
                        row + column == $width - 1
                    } else {
                        (row + column) % 2 == 0
                    };
                    if keep {
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
            const VALID_WIDE: u128 = Self::VALID as u128;
            const DIAGONAL_FROM: $bits = if $partial_diagonals {
                Self::select(false)
            } else {
                Self::VALID
            };
            const DIAGONAL_FROM_WIDE: u128 = Self::DIAGONAL_FROM as u128;
            const LONG_DIAGONAL: $bits = Self::select(true);
        }
    };
}

geometry!(
    /// The 8x8 diagonal board: 32 playable squares in 35 bits.
    Board8,
    u64,
    8,
    true,
    false
);
geometry!(
    /// The 10x10 diagonal board: 50 playable squares in 54 bits.
    Board10,
    u64,
    10,
    true,
    false
);
geometry!(
    /// The 12x12 diagonal board: 72 playable squares in 77 bits.
    Board12,
    u128,
    12,
    true,
    false
);
geometry!(
    /// The 8x8 board with all 64 squares in play (Turkish, Gothic, Dameo, Konane), steps in all
    /// eight directions: 72 bits.
    Full8,
    u128,
    8,
    false,
    false
);
geometry!(
    /// The 5x5 alquerque board: 25 points joined by every orthogonal line and by diagonal lines
    /// through every other point (the corners, the centre and the points between them: row +
    /// column even), in 30 bits.
    Lines5,
    u64,
    5,
    false,
    true
);

#[cfg(test)]
mod tests {
    use super::*;

    /// (rows, columns) of one step in `direction` on board `G`.
    fn offset<G: Geometry>(direction: Direction) -> (i32, i32) {
        let far = if G::DARK_ONLY { 2 } else { 1 };
        match direction {
            Direction::UpLeft => (-1, -1),
            Direction::UpRight => (-1, 1),
            Direction::DownLeft => (1, -1),
            Direction::DownRight => (1, 1),
            Direction::Up => (-far, 0),
            Direction::Down => (far, 0),
            Direction::Left => (0, -far),
            Direction::Right => (0, far),
        }
    }

    fn check_layout<G: Geometry>() {
        assert_eq!(G::VALID.count(), G::SQUARES);
        for square in 0..G::SQUARES {
            let bit = G::bit(square);
            assert_eq!(G::square(bit), square);
            assert_eq!(G::at(G::row(square), G::column(square)), Some(square));
            assert_eq!(bit_at::<G>(G::row(square), G::column(square)), Some(bit));
            // A step either reaches the neighbour along a line or leaves the board.
            for direction in Direction::ALL {
                let (dr, dc) = offset::<G>(direction);
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
                let line = !direction.is_diagonal() || G::DIAGONAL_FROM.has(bit);
                match G::at(row as u32, column as u32).filter(|_| row >= 0 && column >= 0) {
                    Some(neighbour) if line => assert_eq!(target as u32, G::bit(neighbour)),
                    _ => assert!(
                        !on_board,
                        "step off the board from {square} {direction:?} lands on a square"
                    ),
                }
            }
        }
        assert_eq!(G::LONG_DIAGONAL.count(), G::HEIGHT);
        assert_eq!(
            turned_wide::<G>(turned_wide::<G>(G::RIGHT_EDGE_WIDE)),
            G::RIGHT_EDGE_WIDE
        );
    }

    #[test]
    fn layouts_are_consistent() {
        check_layout::<Board8>();
        check_layout::<Board10>();
        check_layout::<Board12>();
        check_layout::<Full8>();
        check_layout::<Lines5>();
        assert_eq!(Board12::VALID.count(), 72);
        assert_eq!(Full8::VALID.count(), 64);
        assert_eq!(Board8::VALID.count(), 32);
        assert_eq!(Board10::TOP_ROW.count(), 5);
        assert_eq!(Lines5::VALID.count(), 25);
    }

    #[test]
    fn the_alquerque_board_has_diagonals_through_every_other_point() {
        // a1, c1, e1, b2, d2, a3, c3, e3, b4, d4, a5, c5, e5: file + rank even (a = 1).
        let expected = algebraic_set::<Lines5>("a1,c1,e1,b2,d2,a3,c3,e3,b4,d4,a5,c5,e5", false);
        assert_eq!(Lines5::DIAGONAL_FROM_WIDE, expected);
        // From b1 (no diagonal) only the orthogonal lines lead on.
        let b1 = algebraic_bit::<Lines5>(b"b1", false) as i32;
        assert_eq!(Lines5::next(b1, Direction::UpRight), -1);
        assert_eq!(
            Lines5::next(b1, Direction::Up),
            algebraic_bit::<Lines5>(b"b2", false) as i32
        );
        const { assert!(!Board8::PARTIAL_DIAGONALS && Lines5::PARTIAL_DIAGONALS) };
    }

    #[test]
    fn named_squares_and_half_turns() {
        // Corner checkers: White's a7 and b8 turned half a turn are Black's h2 and g1.
        let white = algebraic_set::<Board8>("a7, b8", false);
        assert_eq!(
            turned_wide::<Board8>(white),
            algebraic_set::<Board8>("g1,h2", false)
        );
        // The long diagonal of 10x10 runs from square 46 (internal 45) to square 5 (internal 4).
        assert!(
            Board10::LONG_DIAGONAL.has(Board10::bit(45))
                && Board10::LONG_DIAGONAL.has(Board10::bit(4))
        );
    }
}
