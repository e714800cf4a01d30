//! Text for the terminal: diagrams of a position with the legend of their letters, and
//! counted nouns.

use damas_rules::notation::square_number;
use damas_rules::variant::Promotion;
use damas_rules::{Bits, Color, Geometry, Kind, Piece, Position, Rules, SquareNotation};
use std::fmt::Write;

/// `1 legal move`, `2 legal moves`: a count and its noun, plural unless the count is one.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// What the letters of [`draw`] mean for variant `V` in `position`: men always, kings if the
/// variant crowns men (or the position has kings), parachutists if the variant has them.
/// For example `White/Black: w/b man, W/B king; . empty`.
pub fn legend<V: Rules>(position: &Position<V::Geometry>) -> String {
    let has_kings = !matches!(V::PROMOTION, Promotion::Never)
        || Color::ALL.iter().any(|&c| !position.kings(c).is_empty());
    let kinds = [
        (Kind::Man, "man", true),
        (Kind::King, "king", has_kings),
        (
            Kind::Parachutist,
            "parachutist",
            V::RULES.parachutists.is_some(),
        ),
    ];
    let parts: Vec<String> = kinds
        .into_iter()
        .filter(|&(_, _, present)| present)
        .map(|(kind, name, _)| {
            let white = Piece::new(Color::White, kind).letter();
            let black = Piece::new(Color::Black, kind).letter();
            format!("{white}/{black} {name}")
        })
        .collect();
    format!("White/Black: {}; . empty", parts.join(", "))
}

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
