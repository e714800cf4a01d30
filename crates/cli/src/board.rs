//! Text diagrams of a position for the terminal.

use damas_rules::notation::square_number;
use damas_rules::{Geometry, Piece, Position, Rules, SquareNotation};
use std::fmt::Write;

/// The board as text, White at the bottom: `w`/`b` men, `W`/`B` kings, `p`/`q` parachutists, `.`
/// empty playable squares, with square numbers (or ranks and files) beside it.
pub fn draw<V: Rules>(position: &Position<V::Geometry>) -> String {
    let width = V::Geometry::WIDTH;
    let mut text = String::new();
    for row in 0..V::Geometry::HEIGHT {
        let rank = V::Geometry::HEIGHT - row;
        let _ = write!(text, "{rank:>3} ");
        let mut numbers = Vec::new();
        for shown in 0..width {
            let column = if V::MIRRORED {
                width - 1 - shown
            } else {
                shown
            };
            let cell = match V::Geometry::at(row, column) {
                None => ' ',
                Some(square) => {
                    numbers.push(square_number::<V>(square));
                    position.piece::<V>(square).map_or('.', Piece::letter)
                }
            };
            let _ = write!(text, " {cell}");
        }
        if V::NOTATION == SquareNotation::Numeric {
            numbers.sort_unstable();
            let _ = write!(
                text,
                "    {}-{}",
                numbers.first().unwrap_or(&0),
                numbers.last().unwrap_or(&0)
            );
        }
        text.push('\n');
    }
    text.push_str("    ");
    for shown in 0..width {
        let _ = write!(text, " {}", (b'a' + shown as u8) as char);
    }
    text.push('\n');
    text
}
