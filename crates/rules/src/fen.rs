//! Positions as text: PDN FEN (`W:W31-50:B1-20`, `K` marks a king, `P` a parachutist) and the
//! Hub protocol's one character per square (`Wbbb...eee...www`), which has no character for a
//! parachutist.

use crate::bitboard::Bits;
use crate::color::Color;
use crate::geometry::Geometry;
use crate::notation::{parse_square, square_from_number, square_name, square_number};
use crate::position::{Kind, Piece, Position};
use crate::variant::{Rules, SquareNotation};

/// Why a FEN or Hub position was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseFenError {
    /// Nothing was given.
    #[error("empty position")]
    Empty,
    /// The side to move is not `W` or `B`.
    #[error("side to move must be `W` or `B`, found `{0}`")]
    Turn(String),
    /// A field after the side to move does not start with `W` or `B`.
    #[error("field `{0}` must start with `W` or `B` (a piece list), `H` or `F` (counters)")]
    Field(String),
    /// A piece list entry that is not a square, a range or a `K`-prefixed square.
    #[error("bad entry `{entry}` in the {color} piece list: {reason}")]
    Entry {
        /// The entry as given.
        entry: String,
        /// Whose list it is in.
        color: Color,
        /// What is wrong with it.
        reason: String,
    },
    /// A square is listed twice.
    #[error("square {0} is listed twice")]
    Overlap(String),
    /// A man stands on a square where it would have been crowned.
    #[error("a {0} man stands on a square where it would have been crowned: {1}")]
    ManOnPromotionRow(Color, String),
    /// A parachutist in a variant without them, or off the squares parachutists stand on (a
    /// variant's parachutists stand where its men would be crowned: a man there is written `P`).
    #[error("a {0} parachutist cannot stand on {1} in this variant")]
    Parachutist(Color, String),
    /// More pieces than a side starts with.
    #[error("{color} has {count} pieces, more than the {max} a side can start with")]
    TooManyPieces {
        /// The side.
        color: Color,
        /// How many it has.
        count: u32,
        /// How many a side can start with.
        max: u32,
    },
    /// A Hub position of the wrong length: one character for the side to move and one per
    /// square, counted as typed.
    #[error(
        "a Hub position needs the side to move and {squares} squares ({} characters), found \
         {found} characters in `{text}`{}",
        .squares + 1,
        fen_hint(.text)
    )]
    HubLength {
        /// Squares of the board.
        squares: u32,
        /// Characters given, side to move included.
        found: usize,
        /// The position as given.
        text: String,
    },
    /// A Hub position character other than `w b W B e`.
    #[error("Hub position character `{0}` at square {1} is not one of w b W B e")]
    HubChar(char, u32),
}

/// Reads a PDN FEN: the side to move, then the white and black piece lists in either order.
/// Squares are numbers or algebraic names; `K` marks a king; ranges such as `31-50` are accepted;
/// quotes, a trailing `.`, and `H`/`F` counter fields (as lidraughts writes them) are ignored.
pub fn parse_fen<V: Rules>(text: &str) -> Result<Position<V::Geometry>, ParseFenError> {
    let text = text.trim().trim_matches('"').trim().trim_end_matches('.');
    if text.is_empty() {
        return Err(ParseFenError::Empty);
    }
    let mut fields = text.split(':');
    let turn_field = fields.next().unwrap_or_default().trim();
    let turn = match turn_field {
        "W" | "w" => Color::White,
        "B" | "b" => Color::Black,
        other => return Err(ParseFenError::Turn(other.to_string())),
    };
    let mut position = Position::<V::Geometry>::empty(turn);
    let mut seen = <V::Geometry as Geometry>::Bits::EMPTY;
    for field in fields {
        let field = field.trim();
        let mut chars = field.chars();
        let color = match chars.next().map(|c| c.to_ascii_uppercase()) {
            Some('W') => Color::White,
            Some('B') => Color::Black,
            Some('H' | 'F') => continue,
            _ => return Err(ParseFenError::Field(field.to_string())),
        };
        for entry in chars
            .as_str()
            .split(',')
            .map(str::trim)
            .filter(|e| !e.is_empty())
        {
            for (square, kind) in parse_entry::<V>(entry, color)? {
                let bit = <V::Geometry as Geometry>::Bits::single(V::Geometry::bit(square));
                if !(seen & bit).is_empty() {
                    return Err(ParseFenError::Overlap(square_name::<V>(square)));
                }
                seen |= bit;
                // A parachutist is written `P`, a man where parachutists stand is not one.
                let parachute_square = !V::PARACHUTIST_CAPTURES.is_empty()
                    && !(crate::movegen::promotion_squares::<V>(color) & bit).is_empty();
                match kind {
                    Kind::Parachutist if !parachute_square => {
                        return Err(ParseFenError::Parachutist(color, square_name::<V>(square)));
                    }
                    Kind::Man if parachute_square => {
                        return Err(ParseFenError::ManOnPromotionRow(
                            color,
                            square_name::<V>(square),
                        ));
                    }
                    _ => {}
                }
                position.set(square, Some(Piece::new(color, kind)));
            }
        }
    }
    validate::<V>(&position)?;
    Ok(position)
}

/// One piece list entry: `K`-prefixed or not, a square or a range of numbers.
fn parse_entry<V: Rules>(entry: &str, color: Color) -> Result<Vec<(u32, Kind)>, ParseFenError> {
    let bad = |reason: String| ParseFenError::Entry {
        entry: entry.to_string(),
        color,
        reason,
    };
    let (kind, body) = if let Some(rest) = entry.strip_prefix(['K', 'k']) {
        (Kind::King, rest)
    } else if let Some(rest) = entry.strip_prefix(['P', 'p']) {
        (Kind::Parachutist, rest)
    } else {
        (Kind::Man, entry)
    };
    if let Some((first, last)) = body.split_once('-') {
        let number = |s: &str| {
            s.trim()
                .trim_start_matches(['K', 'k'])
                .parse::<u32>()
                .map_err(|_| bad(format!("range bound `{s}` is not a square number")))
        };
        let (first, last) = (number(first)?, number(last)?);
        if first > last {
            return Err(bad("range runs backwards".into()));
        }
        return (first..=last)
            .map(|n| {
                square_from_number::<V>(n)
                    .map(|square| (square, kind))
                    .ok_or_else(|| bad(format!("square {n} is not on this board")))
            })
            .collect();
    }
    let square = parse_square::<V>(body).map_err(|e| bad(e.to_string()))?;
    Ok(vec![(square, kind)])
}

/// Rejects positions no game can reach: men on their promotion squares (unless the variant's
/// parachutists stand there, see [`Kind::Parachutist`]), more pieces than a side can start with
/// on this board (every row but the two middle ones filled: 12 on 8x8, 20 on 10x10, which also
/// admits the 12-man Thai set-up the published Thai perft uses; or the variant's own start, if it
/// has more).
pub fn validate<V: Rules>(position: &Position<V::Geometry>) -> Result<(), ParseFenError> {
    let max =
        ((V::Geometry::HEIGHT / 2).saturating_sub(1) * V::Geometry::PER_ROW).max(V::START_PIECES);
    for color in Color::ALL {
        let count = position.pieces(color).count();
        if count > max {
            return Err(ParseFenError::TooManyPieces { color, count, max });
        }
        let promotion = crate::movegen::promotion_squares::<V>(color);
        if let Some(bit) = (position.plain_men::<V>(color) & promotion).iter().next() {
            return Err(ParseFenError::ManOnPromotionRow(
                color,
                square_name::<V>(V::Geometry::square(bit)),
            ));
        }
    }
    Ok(())
}

/// Writes a PDN FEN with White's list first, squares in increasing number, kings marked `K`.
pub fn to_fen<V: Rules>(position: &Position<V::Geometry>) -> String {
    let mut text = String::new();
    text.push(position.turn().letter());
    for color in Color::ALL {
        text.push(':');
        text.push(color.letter());
        // Numbered squares in increasing number; algebraic ones by rank, then file (`a2,b2,a3`).
        let mut squares: Vec<(u32, u32)> = position
            .pieces(color)
            .iter()
            .map(|bit| {
                let square = V::Geometry::square(bit);
                let key = match V::NOTATION {
                    SquareNotation::Numeric => square_number::<V>(square),
                    SquareNotation::Algebraic => {
                        let number = square_number::<V>(square);
                        let row = V::Geometry::row(square);
                        (V::Geometry::HEIGHT - row) * 1000 + number
                    }
                };
                (key, square)
            })
            .collect();
        squares.sort_unstable();
        let names: Vec<String> = squares
            .into_iter()
            .map(|(_, square)| {
                let mark = match position.piece::<V>(square).map(|piece| piece.kind) {
                    Some(Kind::King) => "K",
                    Some(Kind::Parachutist) => "P",
                    _ => "",
                };
                format!("{mark}{}", square_name::<V>(square))
            })
            .collect();
        text.push_str(&names.join(","));
    }
    text
}

/// A hint after a Hub position of the wrong length that looks like a FEN.
fn fen_hint(text: &str) -> &'static str {
    if text.contains(':') {
        " (that is a FEN; the Hub wants one character per square)"
    } else {
        ""
    }
}

/// Reads a Hub position: the side to move, then `w b W B e` for each square in number order.
pub fn parse_hub<V: Rules>(text: &str) -> Result<Position<V::Geometry>, ParseFenError> {
    let text = text.trim();
    let mut chars = text.chars();
    let turn = match chars.next() {
        None => return Err(ParseFenError::Empty),
        Some(c) => Color::from_letter(c).ok_or_else(|| ParseFenError::Turn(c.to_string()))?,
    };
    let body: Vec<char> = chars.collect();
    if body.len() != V::Geometry::SQUARES as usize {
        return Err(ParseFenError::HubLength {
            squares: V::Geometry::SQUARES,
            found: body.len() + 1,
            text: text.to_string(),
        });
    }
    let mut position = Position::<V::Geometry>::empty(turn);
    for (i, &c) in body.iter().enumerate() {
        let number = i as u32 + 1;
        let piece = match c {
            'e' | 'E' | '.' => None,
            'w' => Some(Piece::new(Color::White, Kind::Man)),
            'b' => Some(Piece::new(Color::Black, Kind::Man)),
            'W' => Some(Piece::new(Color::White, Kind::King)),
            'B' => Some(Piece::new(Color::Black, Kind::King)),
            other => return Err(ParseFenError::HubChar(other, number)),
        };
        let square = square_from_number::<V>(number).expect("number within the board");
        position.set(square, piece);
    }
    // The Hub has no parachutists: a man where they would stand is one crowned too late.
    for color in Color::ALL {
        let promotion = crate::movegen::promotion_squares::<V>(color);
        if let Some(bit) = (position.men(color) & promotion).iter().next() {
            return Err(ParseFenError::ManOnPromotionRow(
                color,
                square_name::<V>(V::Geometry::square(bit)),
            ));
        }
    }
    validate::<V>(&position)?;
    Ok(position)
}

/// A position the Hub protocol cannot express: its alphabet (`w b W B e`) has no parachutist.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the Hub protocol has no character for the parachutist on {square}")]
pub struct HubUnsupported {
    /// The parachutist's square, in the variant's notation.
    pub square: String,
}

/// Writes a Hub position, or says why the Hub cannot express it.
pub fn try_to_hub<V: Rules>(position: &Position<V::Geometry>) -> Result<String, HubUnsupported> {
    let mut text = String::new();
    text.push(position.turn().letter());
    for number in 1..=V::Geometry::SQUARES {
        let square = square_from_number::<V>(number).expect("number within the board");
        text.push(match position.piece::<V>(square) {
            None => 'e',
            Some(piece) if piece.kind == Kind::Parachutist => {
                return Err(HubUnsupported {
                    square: square_name::<V>(square),
                });
            }
            Some(piece) => piece.letter(),
        });
    }
    Ok(text)
}

/// Writes a Hub position.
///
/// # Panics
/// If the position holds a parachutist, which the Hub cannot express: callers that may meet one
/// use [`try_to_hub`].
pub fn to_hub<V: Rules>(position: &Position<V::Geometry>) -> String {
    try_to_hub::<V>(position).unwrap_or_else(|e| panic!("{e}"))
}

/// Positions from text with one FEN per line; blank lines and lines starting with `#` are
/// skipped. The error names the line.
pub fn parse_fen_lines<V: Rules>(text: &str) -> Result<Vec<Position<V::Geometry>>, FenLineError> {
    text.lines()
        .enumerate()
        .map(|(number, line)| (number + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .map(|(line, text)| parse_fen::<V>(text).map_err(|source| FenLineError { line, source }))
        .collect()
}

/// A bad line in a file of FENs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}")]
pub struct FenLineError {
    /// The line number, from 1.
    pub line: usize,
    /// What is wrong with the FEN on it.
    #[source]
    pub source: ParseFenError,
}
