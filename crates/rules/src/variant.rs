//! What a variant is: a board shape plus a set of constant rule flags.
//!
//! Each variant is a zero-sized type implementing [`Rules`] (see [`crate::variants`]); generic code
//! reads its flags as constants, so they fold away at compile time. [`Variant`] is the runtime name
//! of a variant, matched once (by [`Variant::visit`]) where a command line or a file names one.

use crate::color::Color;
use crate::geometry::{Direction, Geometry};
use std::fmt;
use std::str::FromStr;

/// Which capture sequences are allowed when several are available.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precedence {
    /// Any capture may be chosen (it must still be completed).
    Free,
    /// A capture with a king must be chosen if there is one; otherwise free.
    KingFirst,
    /// The capture taking the most pieces must be chosen.
    Quantity,
    /// Most pieces, then most kings among them.
    QuantityThenKings,
    /// Most pieces, then a capture made by a king, then most kings, then kings met earliest.
    Italian,
    /// Highest value, a king counting a little less than two men, then a capture made by a king.
    Frisian,
}

/// A drawn ending: a side with `strong_pieces` pieces, `strong_min_kings` of them kings or more,
/// against a lone king, is a draw after `moves` more moves by each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndgameRule {
    /// Smallest and largest piece count of the stronger side.
    pub strong_pieces: (u32, u32),
    /// Fewest kings the stronger side must have.
    pub strong_min_kings: u32,
    /// Moves each side may still make.
    pub moves: u32,
}

/// The draw rules a game applies by itself (without an offer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRules {
    /// The same position with the same side to move this many times is a draw (0: never).
    pub repetitions: u32,
    /// This many consecutive plies of king moves without a capture or man move is a draw (0: never).
    pub king_move_plies: u32,
    /// Endings that are drawn after a fixed number of moves.
    pub endgames: &'static [EndgameRule],
}

/// How squares are written in FEN and moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SquareNotation {
    /// Numbers 1..N, row by row from the top of the diagram.
    Numeric,
    /// File letter and rank digit, `a1` at White's lower left; captures are written with every
    /// landing square (`c3xe5xg3`), as Russian notation does.
    Algebraic,
}

/// Men step one square forward along the two diagonals (as seen by White; Black's are flipped).
pub const DIAGONAL_FORWARD: &[Direction] = &[Direction::UpLeft, Direction::UpRight];
/// All four diagonals.
pub const DIAGONALS: &[Direction] = &Direction::DIAGONAL;
/// All four orthogonals.
pub const ORTHOGONALS: &[Direction] = &Direction::ORTHOGONAL;
/// Diagonals and orthogonals.
pub const EVERY_DIRECTION: &[Direction] = &Direction::ALL;

/// The rules of one variant, as constants. Directions are as seen by White (moving up); Black's
/// are the same flipped.
pub trait Rules: Copy + Default + fmt::Debug + Send + Sync + 'static {
    /// The board the variant is played on.
    type Geometry: Geometry;
    /// Short lowercase name, as used on the command line.
    const NAME: &'static str;
    /// The rules in one line.
    const SUMMARY: &'static str;
    /// PDN `GameType` tag value.
    const GAME_TYPE: &'static str;
    /// The side making the first move.
    const FIRST_MOVER: Color;
    /// Rows filled with men at the start, per side.
    const INITIAL_ROWS: u32;
    /// Rows left empty behind the men at the start, counted from each side's back row.
    const EMPTY_BACK_ROWS: u32 = 0;
    /// Directions a man moves in without capturing.
    const MAN_MOVES: &'static [Direction] = DIAGONAL_FORWARD;
    /// Directions a man captures in.
    const MAN_CAPTURES: &'static [Direction];
    /// Directions a king moves in without capturing.
    const KING_MOVES: &'static [Direction] = DIAGONALS;
    /// Directions a king captures in.
    const KING_CAPTURES: &'static [Direction] = DIAGONALS;
    /// Whether men may capture kings.
    const MEN_CAPTURE_KINGS: bool;
    /// Whether kings move and capture at any distance along a line.
    const FLYING_KINGS: bool;
    /// Whether a flying king must land on the square right behind the piece it captures.
    const KING_STOPS_BEHIND: bool;
    /// Whether a flying king whose last capture takes a king must land right behind it.
    const KING_HALTS_BEHIND_KING: bool = false;
    /// Whether a man reaching the last row during a capture becomes a king at once and goes on
    /// capturing as one (otherwise it promotes only if the move ends there).
    const PROMOTE_MID_CAPTURE: bool;
    /// Whether captured pieces leave the board one by one as they are jumped (otherwise they stay,
    /// blocking, until the move ends).
    const REMOVE_WHILE_CAPTURING: bool = false;
    /// Whether a capturing piece may not turn back 180 degrees between two captures.
    const NO_REVERSE_IN_CAPTURE: bool = false;
    /// Which captures are allowed when several are available.
    const PRECEDENCE: Precedence;
    /// Whether the side that cannot move wins instead of losing (losing draughts).
    const LOSING: bool = false;
    /// While a side has both kings and men, the most non-capturing moves in a row it may make
    /// with the same king (0: no limit).
    const MAX_SAME_KING_MOVES: u32 = 0;
    /// Draws applied by the rules.
    const DRAW: DrawRules;
    /// How squares are written.
    const NOTATION: SquareNotation;
    /// Whether the diagram is mirrored left-right with respect to the internal layout (boards whose
    /// lower-left corner is a light square, as in Italian and Spanish draughts).
    const MIRRORED: bool;
}

/// Generic code to run for a variant chosen at run time; see [`Variant::visit`].
pub trait VariantVisitor {
    /// What the visit returns.
    type Output;
    /// Runs with the variant's rule type.
    fn visit<V: Rules>(self) -> Self::Output;
}

macro_rules! variants {
    ($($(#[$doc:meta])* $name:ident => $ty:ty),* $(,)?) => {
        /// A variant named at run time.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Variant {
            $($(#[$doc])* $name,)*
        }

        impl Variant {
            /// Every supported variant.
            pub const ALL: &'static [Variant] = &[$(Variant::$name),*];

            /// Runs generic code for this variant's rule type.
            pub fn visit<T: VariantVisitor>(self, visitor: T) -> T::Output {
                match self {
                    $(Variant::$name => visitor.visit::<$ty>(),)*
                }
            }
        }
    };
}

variants! {
    /// FMJD international draughts, 10x10.
    International => crate::variants::International,
    /// Brazilian draughts: international rules on 8x8.
    Brazilian => crate::variants::Brazilian,
    /// Russian draughts (shashki).
    Russian => crate::variants::Russian,
    /// English draughts / American checkers.
    English => crate::variants::English,
    /// Spanish draughts.
    Spanish => crate::variants::Spanish,
    /// Portuguese draughts.
    Portuguese => crate::variants::Portuguese,
    /// Italian draughts.
    Italian => crate::variants::Italian,
    /// Czech draughts.
    Czech => crate::variants::Czech,
    /// American pool checkers.
    Pool => crate::variants::Pool,
    /// Thai draughts (makhos).
    Thai => crate::variants::Thai,
    /// Canadian draughts: international rules on 12x12.
    Canadian => crate::variants::Canadian,
    /// Killer draughts: international with the killer rule.
    Killer => crate::variants::Killer,
    /// Antidraughts: international move rules, the side that cannot move wins.
    Antidraughts => crate::variants::Antidraughts,
    /// Anti-American checkers: English move rules, the side that cannot move wins.
    AntiEnglish => crate::variants::AntiEnglish,
    /// Frisian draughts.
    Frisian => crate::variants::Frisian,
    /// Frysk!: Frisian with five men each.
    Frysk => crate::variants::Frysk,
    /// Turkish draughts (dama).
    Turkish => crate::variants::Turkish,
}

struct NameOf;
impl VariantVisitor for NameOf {
    type Output = &'static str;
    fn visit<V: Rules>(self) -> &'static str {
        V::NAME
    }
}

struct SummaryOf;
impl VariantVisitor for SummaryOf {
    type Output = &'static str;
    fn visit<V: Rules>(self) -> &'static str {
        V::SUMMARY
    }
}

impl Variant {
    /// The short lowercase name (`international`, `russian`, ...).
    pub fn name(self) -> &'static str {
        self.visit(NameOf)
    }

    /// The rules in one line.
    pub fn summary(self) -> &'static str {
        self.visit(SummaryOf)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A variant name that is not known.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant `{given}` (known: {known})")]
pub struct UnknownVariant {
    /// The name given.
    pub given: String,
    /// The known names, comma separated.
    pub known: String,
}

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        let wanted = s.trim().to_ascii_lowercase();
        // Other names the same rules go by (the Hub protocol calls international `normal`).
        let canonical = match wanted.as_str() {
            "normal" | "fmjd" | "10x10" => "international",
            "american" | "checkers" => "english",
            "shashki" => "russian",
            "makhos" => "thai",
            "losing" => "antidraughts",
            "antiamerican" | "anti-american" | "anti-english" => "antienglish",
            "frysk!" => "frysk",
            "dama" => "turkish",
            other => other,
        };
        Variant::ALL
            .iter()
            .copied()
            .find(|v| v.name() == canonical)
            .ok_or_else(|| UnknownVariant {
                given: s.to_string(),
                known: Variant::ALL
                    .iter()
                    .map(|v| v.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}
