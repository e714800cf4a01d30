//! A position's game-theoretic value from the side to move's view, with its distance in plies
//! ([`Distance`]: to the next conversion in the tables built now), packed in 16 bits for the
//! tables.

use crate::signature::Signature;
use damas_rules::{Color, DrawReason, Outcome, WinReason};
use std::fmt;

/// Win, draw or loss for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move loses with best play.
    Loss,
    /// Neither side can force a win (draw counters ignored).
    Draw,
    /// The side to move wins with best play.
    Win,
}

impl Wdl {
    /// The value for the other side.
    pub fn flipped(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        })
    }
}

/// What a table's distances count: the plies until the game changes material (a capture or a
/// promotion) or ends, or, in the tables of the first two sessions, until it ends.
///
/// Tables store distance to conversion because the draw counters that can turn a won ending
/// into a draw count moves since the material last changed (Russian's 15 moves for three kings
/// against one, International's 16 and 5 moves) or since the last capture or man move (the
/// king-move rules): a player that converts as soon as it can win keeps inside them where the
/// tables allow it. Kingsrow's and Chinook's moves-to-conversion databases count the same way.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Distance {
    /// Plies to the end of the game (the files written before 2026-12-08, whose header names
    /// no distance).
    #[default]
    End,
    /// Plies to the next capture or promotion, or to the end of the game where none comes first.
    Conversion,
}

/// The distance new tables are built with.
pub const DISTANCE: Distance = Distance::Conversion;

/// A table entry: unknown (a draw once the table is solved), no position, or a win or loss in
/// a number of plies (its table's [`Distance`]: the winner shortening it, the loser lengthening
/// it; draw counters ignored).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Value(pub(crate) u16);

impl Value {
    /// Not decided (after solving: a draw).
    pub const DRAW: Value = Value(0);
    /// An index that is no position (two men on one square).
    pub const INVALID: Value = Value(1);
    /// Longest distance a value holds.
    pub const MAX_PLIES: u32 = (u16::MAX as u32 - 3) / 2;

    /// A win in `plies` plies.
    pub fn win(plies: u32) -> Value {
        debug_assert!(plies <= Self::MAX_PLIES);
        Value(2 + 2 * plies as u16 + 1)
    }

    /// A loss in `plies` plies.
    pub fn loss(plies: u32) -> Value {
        debug_assert!(plies <= Self::MAX_PLIES);
        Value(2 + 2 * plies as u16)
    }

    /// Whether this is a position's value (not [`Value::INVALID`]).
    pub fn is_position(self) -> bool {
        self != Value::INVALID
    }

    /// Win, draw or loss (`None` for [`Value::INVALID`]).
    pub fn wdl(self) -> Option<Wdl> {
        match self.0 {
            0 => Some(Wdl::Draw),
            1 => None,
            v if v & 1 == 1 => Some(Wdl::Win),
            _ => Some(Wdl::Loss),
        }
    }

    /// Plies to the next conversion (or the end of the game) for a win or loss.
    pub fn plies(self) -> Option<u32> {
        (self.0 >= 2).then(|| (self.0 as u32 - 2) / 2)
    }

    /// The raw 16 bits.
    pub fn bits(self) -> u16 {
        self.0
    }

    /// A value from its raw bits.
    pub fn from_bits(bits: u16) -> Value {
        Value(bits)
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.wdl() {
            None => f.write_str("no position"),
            Some(_) => fmt::Display::fmt(&Probe::from(*self), f),
        }
    }
}

/// What a probe answers: the value for the side to move, and for a win or a loss the plies to
/// the next conversion (capture or promotion) or the end of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// Win, draw or loss for the side to move.
    pub wdl: Wdl,
    /// Plies to the next capture or promotion, or until the loser has no move where that comes
    /// first, with best play (`None` for a draw). Tables built before 2026-12-08 count to the
    /// end of the game ([`Distance::End`]).
    pub plies: Option<u32>,
}

impl From<Value> for Probe {
    /// A table value as a probe's answer (a non-position reads as a draw).
    fn from(v: Value) -> Probe {
        Probe {
            wdl: v.wdl().unwrap_or(Wdl::Draw),
            plies: v.plies(),
        }
    }
}

/// Plies to a conversion that count in [`Probe::progress`] before the material's rank does.
const PROGRESS_PLIES: u32 = 256;

impl Probe {
    /// How far a won or lost position of material `signature` is from the end for a player
    /// that converts whenever it can and keeps the win: the material's [`Signature::rank`]
    /// first, then the plies to the next conversion (`None` for a draw). Along the winner's
    /// best line it falls at every ply (a quiet move takes a ply off the distance, a conversion
    /// lowers the rank), so a player that takes the win with the smallest progress never goes
    /// round in circles, and reaches each conversion as soon as the tables allow, which is what
    /// the draw counters ask. Distances from 256 plies on count as 255.
    pub fn progress(self, signature: Signature) -> Option<u32> {
        let plies = self.plies?.min(PROGRESS_PLIES - 1);
        Some(signature.rank() * PROGRESS_PLIES + plies)
    }

    /// The game's result when it is adjudicated by this value, `side_to_move` being the side
    /// the value is for: a win or draw by [`WinReason::Adjudication`] /
    /// [`DrawReason::Adjudication`].
    pub fn outcome(self, side_to_move: Color) -> Outcome {
        let winner = match self.wdl {
            Wdl::Win => side_to_move,
            Wdl::Loss => !side_to_move,
            Wdl::Draw => return Outcome::Draw(DrawReason::Adjudication),
        };
        Outcome::Win {
            winner,
            reason: WinReason::Adjudication,
        }
    }
}

impl fmt::Display for Probe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.plies {
            Some(0) => write!(f, "{} (no move left)", self.wdl),
            Some(plies) => write!(f, "{} ({plies} plies to a conversion)", self.wdl),
            None => write!(f, "{}", self.wdl),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_pack_and_unpack() {
        assert_eq!(Value::DRAW.wdl(), Some(Wdl::Draw));
        assert_eq!(Value::INVALID.wdl(), None);
        for plies in [0, 1, 7, Value::MAX_PLIES] {
            assert_eq!(Value::win(plies).wdl(), Some(Wdl::Win));
            assert_eq!(Value::win(plies).plies(), Some(plies));
            assert_eq!(Value::loss(plies).wdl(), Some(Wdl::Loss));
            assert_eq!(Value::loss(plies).plies(), Some(plies));
        }
        assert_eq!(Value::loss(3).to_string(), "loss (3 plies to a conversion)");
        assert_eq!(Value::loss(0).to_string(), "loss (no move left)");
    }
}
