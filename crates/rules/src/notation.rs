//! Square and move notation: PDN numbers or algebraic squares, PDN moves (short and full path) and
//! the Hub protocol's move form. Moves are always read against the legal move list. A removal of
//! an opening (Konane) is written as its square alone (`d5`, in the Hub form its number).

use crate::geometry::Geometry;
use crate::movegen::{self, CaptureSink, Sequence};
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::variant::{Rules, SquareNotation};
use std::fmt::Write;

/// The PDN number (1..N) of an internal square, in the variant's numbering.
pub fn square_number<V: Rules>(square: u32) -> u32 {
    let row = V::Geometry::row(square);
    row * V::Geometry::PER_ROW + index_in_row::<V>(square) + 1
}

/// Position of a square among the playable squares of its row, counted from the diagram's left.
fn index_in_row<V: Rules>(square: u32) -> u32 {
    let shown = display_column::<V>(square);
    if V::Geometry::DARK_ONLY {
        shown / 2
    } else {
        shown
    }
}

/// The internal square of a PDN number, if it is on the board.
pub fn square_from_number<V: Rules>(number: u32) -> Option<u32> {
    if number == 0 || number > V::Geometry::SQUARES {
        return None;
    }
    let row = (number - 1) / V::Geometry::PER_ROW;
    let index = (number - 1) % V::Geometry::PER_ROW;
    // The playable square at this index of the displayed row.
    (0..V::Geometry::WIDTH)
        .filter_map(|column| V::Geometry::at(row, column))
        .find(|&square| index_in_row::<V>(square) == index)
}

/// The column of an internal square as the variant's diagram shows it (mirrored boards flip it).
fn display_column<V: Rules>(square: u32) -> u32 {
    let column = V::Geometry::column(square);
    if V::MIRRORED {
        V::Geometry::WIDTH - 1 - column
    } else {
        column
    }
}

/// The algebraic name of an internal square (`a1` at White's lower left of the diagram).
pub fn algebraic_name<V: Rules>(square: u32) -> String {
    let file = (b'a' + display_column::<V>(square) as u8) as char;
    let rank = V::Geometry::HEIGHT - V::Geometry::row(square);
    format!("{file}{rank}")
}

/// The name of an internal square in the variant's notation.
pub fn square_name<V: Rules>(square: u32) -> String {
    match V::NOTATION {
        SquareNotation::Numeric => square_number::<V>(square).to_string(),
        SquareNotation::Algebraic => algebraic_name::<V>(square),
    }
}

/// Why a square could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseSquareError {
    /// Neither a number nor a file letter and a rank.
    #[error("`{0}` is not a square (expected a number or a file letter and rank such as c3)")]
    Syntax(String),
    /// A well-formed name that is not a playable square of this board.
    #[error("`{0}` is not a playable square of this board")]
    OffBoard(String),
}

/// Reads a square as a PDN number or an algebraic name, whatever the variant's own notation.
pub fn parse_square<V: Rules>(text: &str) -> Result<u32, ParseSquareError> {
    let text = text.trim();
    if let Ok(number) = text.parse::<u32>() {
        return square_from_number::<V>(number)
            .ok_or_else(|| ParseSquareError::OffBoard(text.into()));
    }
    let mut chars = text.chars();
    let file = chars
        .next()
        .filter(char::is_ascii_alphabetic)
        .ok_or_else(|| ParseSquareError::Syntax(text.into()))?;
    let rank: u32 = chars
        .as_str()
        .parse()
        .map_err(|_| ParseSquareError::Syntax(text.into()))?;
    let shown = file.to_ascii_lowercase() as u32 - 'a' as u32;
    let off_board = || ParseSquareError::OffBoard(text.into());
    if shown >= V::Geometry::WIDTH || rank == 0 || rank > V::Geometry::HEIGHT {
        return Err(off_board());
    }
    let column = if V::MIRRORED {
        V::Geometry::WIDTH - 1 - shown
    } else {
        shown
    };
    V::Geometry::at(V::Geometry::HEIGHT - rank, column).ok_or_else(off_board)
}

/// Records the route of the first sequence matching a move.
struct RouteOf<'m, G: Geometry> {
    wanted: &'m Move<G>,
    route: Option<Vec<u32>>,
}

impl<G: Geometry> CaptureSink<G::Bits> for RouteOf<'_, G> {
    fn sequence(&mut self, s: &Sequence<'_, G::Bits>, _key: u64) {
        if self.route.is_none()
            && s.to == self.wanted.to_bit()
            && s.captured == self.wanted.captured_bits()
            && s.promotes == self.wanted.promotes()
        {
            self.route = Some(s.path.iter().map(|&bit| G::square(bit as u32)).collect());
        }
    }
}

/// Every square the moving piece lands on, in order, the final square included (internal squares).
pub fn landing_squares<V: Rules>(
    position: &Position<V::Geometry>,
    mv: &Move<V::Geometry>,
) -> Vec<u32> {
    if !mv.is_capture() {
        return vec![mv.to()];
    }
    let mut sink = RouteOf {
        wanted: mv,
        route: None,
    };
    movegen::search_captures::<V, _>(position, Some(mv.from_bit()), &mut sink);
    sink.route.unwrap_or_else(|| vec![mv.to()])
}

fn separator(mv: &Move<impl Geometry>) -> char {
    if mv.is_capture() { 'x' } else { '-' }
}

/// The move with every landing square (`46x23x34x43`).
pub fn full_path<V: Rules>(position: &Position<V::Geometry>, mv: &Move<V::Geometry>) -> String {
    let mut text = square_name::<V>(mv.from());
    if mv.is_removal() {
        return text;
    }
    for square in landing_squares::<V>(position, mv) {
        let _ = write!(text, "{}{}", separator(mv), square_name::<V>(square));
    }
    text
}

/// The move in PDN: `from-to` or `fromxto`, with every landing square only when another legal
/// move shares the same start and end. Algebraic variants (Russian, Brazilian, Czech) write every
/// capture with its landing squares, as their notation does (`b6xd8xg5`).
pub fn pdn<V: Rules>(
    position: &Position<V::Geometry>,
    mv: &Move<V::Geometry>,
    legal: &[Move<V::Geometry>],
) -> String {
    let ambiguous = legal
        .iter()
        .any(|other| other != mv && other.from() == mv.from() && other.to() == mv.to());
    if mv.is_removal() || ambiguous || (mv.is_capture() && V::NOTATION == SquareNotation::Algebraic)
    {
        full_path::<V>(position, mv)
    } else {
        format!(
            "{}{}{}",
            square_name::<V>(mv.from()),
            separator(mv),
            square_name::<V>(mv.to())
        )
    }
}

/// The move in the Hub protocol's form: `from-to`, or `fromxto` followed by `x` and every captured
/// square, always as PDN numbers.
pub fn hub<V: Rules>(mv: &Move<V::Geometry>) -> String {
    if mv.is_removal() {
        return square_number::<V>(mv.from()).to_string();
    }
    let mut text = format!(
        "{}{}{}",
        square_number::<V>(mv.from()),
        separator(mv),
        square_number::<V>(mv.to())
    );
    let mut captured: Vec<u32> = mv.captured().map(square_number::<V>).collect();
    captured.sort_unstable();
    for square in captured {
        let _ = write!(text, "x{square}");
    }
    text
}

/// The order every listing of moves uses (`damas moves`, `perft --divide`, `play`): by the PDN
/// numbers of the start square, then of the end square, then of the captured squares.
pub fn move_order_key<V: Rules>(mv: &Move<V::Geometry>) -> (u32, u32, Vec<u32>, bool) {
    let mut captured: Vec<u32> = mv.captured().map(square_number::<V>).collect();
    captured.sort_unstable();
    (
        square_number::<V>(mv.from()),
        square_number::<V>(mv.to()),
        captured,
        mv.promotes(),
    )
}

/// Sorts `items`, each carrying the move `move_of` returns, in [`move_order_key`]'s order.
pub fn sort_moves<V: Rules, T>(items: &mut [T], move_of: impl Fn(&T) -> &Move<V::Geometry>) {
    items.sort_by_cached_key(|item| move_order_key::<V>(move_of(item)));
}

/// The legal moves of `position` in [`move_order_key`]'s order.
pub fn sorted_legal_moves<V: Rules>(position: &Position<V::Geometry>) -> Vec<Move<V::Geometry>> {
    let mut legal = MoveList::new();
    movegen::legal_moves::<V>(position, &mut legal);
    let mut moves = legal.to_vec();
    sort_moves::<V, _>(&mut moves, |mv| mv);
    moves
}

/// Why a move string was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseMoveError {
    /// The text is not shaped like a move.
    #[error("`{input}` is not a move: {reason}")]
    Syntax {
        /// The text given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Well formed, but no legal move matches.
    #[error("`{input}` is not a legal move here (legal: {legal})")]
    Illegal {
        /// The text given.
        input: String,
        /// The legal moves, in PDN.
        legal: String,
    },
    /// Several legal moves match; the full path or the Hub form tells them apart.
    #[error("`{input}` is ambiguous: it matches {candidates}")]
    Ambiguous {
        /// The text given.
        input: String,
        /// The matching moves, with full paths.
        candidates: String,
    },
}

/// Reads a move in any accepted form (short PDN, full path, Hub, `:` as capture mark) against the
/// legal moves of `position`.
pub fn parse_move<V: Rules>(
    position: &Position<V::Geometry>,
    text: &str,
) -> Result<Move<V::Geometry>, ParseMoveError> {
    let input = text.trim();
    let syntax = |reason: String| ParseMoveError::Syntax {
        input: input.to_string(),
        reason,
    };
    let parts: Vec<&str> = input.split(['-', 'x', 'X', ':']).collect();
    let mut legal = MoveList::new();
    movegen::legal_moves::<V>(position, &mut legal);
    let removals = legal.iter().any(Move::is_removal);
    if parts.len() < 2 && !removals {
        return Err(syntax(
            "expected squares separated by `-`, `x` or `:`".into(),
        ));
    }
    let squares = parts
        .iter()
        .map(|part| parse_square::<V>(part).map_err(|e| syntax(e.to_string())))
        .collect::<Result<Vec<u32>, _>>()?;
    let from = squares[0];
    let to = squares.get(1).copied().unwrap_or(from);
    let matches: Vec<Move<V::Geometry>> = legal
        .iter()
        .copied()
        .filter(|mv| {
            mv.from() == from
                && if squares.len() == 1 {
                    mv.is_removal()
                } else if squares.len() == 2 {
                    mv.to() == to
                } else {
                    // Full path (every landing square) or Hub form (to, then the captured set).
                    let mut captured: Vec<u32> = mv.captured().collect();
                    let mut given: Vec<u32> = squares[2..].to_vec();
                    captured.sort_unstable();
                    given.sort_unstable();
                    (mv.to() == to && captured == given)
                        || landing_squares::<V>(position, mv) == squares[1..]
                }
        })
        .collect();
    // Several moves from `from` to `to` (a king's capture may circle back through its start):
    // the one whose landing squares are exactly the ones given is the move the text spells out,
    // as `pdn` writes it (`f1xh3`, a single jump, beside `f1xd3xd1xf1xh3`).
    let exact: Vec<Move<V::Geometry>> = matches
        .iter()
        .copied()
        .filter(|mv| mv.is_capture() && landing_squares::<V>(position, mv) == squares[1..])
        .collect();
    let matches = if matches.len() > 1 && exact.len() == 1 {
        exact
    } else {
        matches
    };
    match matches.as_slice() {
        [mv] => Ok(*mv),
        [] => Err(ParseMoveError::Illegal {
            input: input.to_string(),
            legal: sorted_legal_moves::<V>(position)
                .iter()
                .map(|mv| pdn::<V>(position, mv, &legal))
                .collect::<Vec<_>>()
                .join(" "),
        }),
        several => Err(ParseMoveError::Ambiguous {
            input: input.to_string(),
            candidates: several
                .iter()
                .map(|mv| format!("{} ({})", full_path::<V>(position, mv), hub::<V>(mv)))
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}
