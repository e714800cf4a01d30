//! What a variant is: a board shape plus a set of constant rule flags.
//!
//! Each variant is a zero-sized type implementing [`Rules`] (see [`crate::variants`]); generic code
//! reads its flags as constants, so they fold away at compile time. [`Variant`] is the runtime name
//! of a variant, matched once (by [`Variant::visit`]) where a command line or a file names one.

use crate::color::Color;
use crate::geometry::{Direction, Geometry};
use crate::squares::start_sets;
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
/// against a lone king, is a draw after `moves` more moves by each side (0: at once), counted
/// from the first position where the ending stands and `when` holds. A count once started runs
/// on while the material still makes one of the variant's endings, even if `when` no longer
/// holds, and is never extended by a later one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndgameRule {
    /// Smallest and largest piece count of the stronger side.
    pub strong_pieces: (u32, u32),
    /// Fewest kings the stronger side must have.
    pub strong_min_kings: u32,
    /// Moves each side may still make.
    pub moves: u32,
    /// Where the pieces must stand for the count to start.
    pub when: Placement,
}

impl EndgameRule {
    /// An ending drawn after `moves` moves each, wherever the pieces stand.
    pub const fn new(strong_pieces: (u32, u32), strong_min_kings: u32, moves: u32) -> Self {
        EndgameRule {
            strong_pieces,
            strong_min_kings,
            moves,
            when: Placement::Anywhere,
        }
    }

    /// The same ending, counted only from a position where `when` holds.
    pub const fn when(self, when: Placement) -> Self {
        EndgameRule { when, ..self }
    }
}

/// A condition on where the pieces of a drawn ending stand ([`EndgameRule::when`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// No condition.
    Anywhere,
    /// The lone king is the only piece on the long diagonal ([`crate::Geometry::LONG_DIAGONAL`]).
    LoneKingAloneOnLongDiagonal,
    /// One of the stronger side's kings stands on the long diagonal.
    StrongKingOnLongDiagonal,
}

/// What a game stopped by a move cap (applied by the caller, not by the rules) is worth; see
/// [`crate::Game::outcome_at_cap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapRule {
    /// A draw.
    Draw,
    /// The side with more pieces wins; with equal pieces the side with more kings; else a draw.
    Material,
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
    /// This many consecutive plies without a capture is a draw (0: never): for games whose men
    /// can shuffle sideways for ever.
    pub no_capture_plies: u32,
}

/// How far a position has got towards each automatic draw, as far as the rules can tell two
/// positions apart: a counter is 0 where its rule is absent and stops at its rule's limit.
/// Positions with equal progress are equal before the draw rules, whatever their raw counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DrawProgress {
    /// Plies of king moves, up to [`DrawRules::king_move_plies`].
    pub king_move_plies: u32,
    /// Plies without a capture, up to [`DrawRules::no_capture_plies`].
    pub plies_without_capture: u32,
    /// Occurrences of the position after the first, up to one less than
    /// [`DrawRules::repetitions`].
    pub repeats: u32,
}

impl DrawRules {
    /// The progress of a position with these raw counters (`repetitions`: occurrences so far,
    /// 1 the first time).
    pub fn progress(
        &self,
        king_move_plies: u32,
        plies_without_capture: u32,
        repetitions: u32,
    ) -> DrawProgress {
        let in_force = |count: u32, limit: u32| count.min(limit);
        DrawProgress {
            king_move_plies: in_force(king_move_plies, self.king_move_plies),
            plies_without_capture: in_force(plies_without_capture, self.no_capture_plies),
            repeats: in_force(
                repetitions.saturating_sub(1),
                self.repetitions.saturating_sub(1),
            ),
        }
    }
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
/// The two diagonals backward (as seen by White: towards the bottom of the diagram).
pub const DIAGONAL_BACKWARD: &[Direction] = &[Direction::DownLeft, Direction::DownRight];
/// Forward and the two diagonals forward.
pub const FORWARD_THREE: &[Direction] = &[Direction::Up, Direction::UpLeft, Direction::UpRight];
/// Forward, the two diagonals forward, and sideways.
pub const FORWARD_AND_SIDEWAYS: &[Direction] = &[
    Direction::Up,
    Direction::UpLeft,
    Direction::UpRight,
    Direction::Left,
    Direction::Right,
];
/// All four diagonals.
pub const DIAGONALS: &[Direction] = &Direction::DIAGONAL;
/// All four orthogonals.
pub const ORTHOGONALS: &[Direction] = &Direction::ORTHOGONAL;
/// Diagonals and orthogonals.
pub const EVERY_DIRECTION: &[Direction] = &Direction::ALL;

/// Threefold repetition and 40 king-only moves each: the default where no seed gives draw rules,
/// the common tournament form, applied automatically so that self-play games always end.
pub const DEFAULT_DRAW: DrawRules = DrawRules {
    repetitions: 3,
    king_move_plies: 80,
    endgames: &[],
    no_capture_plies: 0,
};

/// Where the pieces stand at the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// Each side's `rows` rows nearest to it filled with men, after `empty_back_rows` empty rows.
    Rows {
        /// Rows filled with men, per side.
        rows: u32,
        /// Rows left empty behind the men, counted from each side's back row.
        empty_back_rows: u32,
    },
    /// A diagram of the full board, the top row (White's far side) first, one line per row and
    /// one character per square, spaces ignored: `w`/`b` a white/black man, `p`/`q` a white/black
    /// parachutist, `.` an empty square in play, `-` a square not in play (checked against the
    /// board when the variant is compiled).
    Diagram(&'static str),
}

/// Where men promote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Promotion {
    /// On the row they move towards.
    LastRow,
    /// Only on these squares of White's (algebraic names, comma separated); Black's are the same
    /// squares turned half a turn (or the same squares in a one-way game).
    Squares(&'static str),
    /// Never: men stay men.
    Never,
}

/// How a capture sequence may turn between two jumps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turns {
    /// In any of the piece's capture directions.
    Any,
    /// In any but straight back the way it came.
    NotBack,
    /// Not at all: a multiple capture keeps one direction.
    Straight,
}

/// A third kind of piece, beside men and kings: it stands on the opponent's back row, moves only
/// by capturing, and is a man from the square it lands on. It starts (and only ever stands) on its
/// owner's promotion squares, where no man can rest uncrowned, so it is stored as a man there
/// ([`crate::Kind::Parachutist`]); the start diagram must put parachutists on exactly those
/// squares (checked when the variant is compiled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parachutists {
    /// Directions it captures in, as seen by White (Black's are flipped); it jumps the adjacent
    /// piece and lands right behind it.
    pub captures: &'static [Direction],
}

/// One move of an opening played before the first ordinary move: the side to move takes one of
/// its own pieces off the board. The `i`-th removal of [`RuleSet::opening`] is the only kind of
/// move while the board has exactly `i` empty squares (the opening starts from a full board).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Removal {
    /// A piece on one of these squares (algebraic names, comma separated).
    OnSquares(&'static str),
    /// A piece next to an empty square, in one of these directions from it.
    NextToEmpty(&'static [Direction]),
}

/// The rules of one variant as plain data: the board's shape is the [`Rules::Geometry`] type, all
/// the rest is here. A variant is one constant of this type; a variant derived from another
/// states only what differs (`RuleSet { flag: value, ..Base::RULES.named(..) }`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleSet {
    /// Short lowercase name, as used on the command line.
    pub name: &'static str,
    /// The rules in one line.
    pub summary: &'static str,
    /// PDN `GameType` tag value.
    pub game_type: &'static str,
    /// The Hub protocol's name for these rules, where it differs from [`Self::name`]
    /// (shared/reference/protocols.md: `values="normal killer bt frisian losing"`).
    pub hub_name: Option<&'static str>,
    /// The side making the first move.
    pub first_mover: Color,
    /// Where the pieces stand at the start.
    pub start: Start,
    /// Directions a man moves in without capturing (as seen by White; Black's are flipped).
    pub man_moves: &'static [Direction],
    /// Directions a man captures in (its first jump, when [`Self::man_later_captures`] is set).
    pub man_captures: &'static [Direction],
    /// Directions a man's second and later jumps may take, if other than its first's.
    pub man_later_captures: Option<&'static [Direction]>,
    /// Whether a man may also move along an unbroken line of its own men, in one of its move
    /// directions, to the first empty square beyond (Dameo's linear move).
    pub men_move_along_lines: bool,
    /// Whether a man on its last row makes no more non-capturing moves.
    pub men_rest_on_last_row: bool,
    /// Whether Black's men move up the board like White's instead of down: their directions are
    /// not flipped and they promote where White's men do.
    pub one_way: bool,
    /// Where men promote.
    pub promotion: Promotion,
    /// The third kind of piece, if the variant has one.
    pub parachutists: Option<Parachutists>,
    /// Directions a king moves in without capturing.
    pub king_moves: &'static [Direction],
    /// Directions a king captures in.
    pub king_captures: &'static [Direction],
    /// Whether men may capture kings.
    pub men_capture_kings: bool,
    /// Whether kings move and capture at any distance along a line.
    pub flying_kings: bool,
    /// Whether a flying king must land on the square right behind the piece it captures.
    pub king_stops_behind: bool,
    /// Whether a flying king whose last capture takes a king must land right behind it.
    pub king_halts_behind_king: bool,
    /// Whether a man reaching the last row during a capture becomes a king at once and goes on
    /// capturing as one (otherwise it promotes only if the move ends there).
    pub promote_mid_capture: bool,
    /// Whether captured pieces leave the board one by one as they are jumped (otherwise they
    /// stay, blocking, until the move ends).
    pub remove_while_capturing: bool,
    /// How a capture sequence may turn between two jumps.
    pub capture_turns: Turns,
    /// Whether a capture may stop after any jump (each stop is a move of its own) rather than go
    /// on while it can.
    pub captures_may_stop: bool,
    /// Whether a man reaching its promotion square during a capture is crowned and the move ends
    /// there.
    pub crowning_ends_capture: bool,
    /// The removals played before the first ordinary move, if any.
    pub opening: &'static [Removal],
    /// Which captures are allowed when several are available.
    pub precedence: Precedence,
    /// Whether the side that cannot move wins instead of losing (losing draughts).
    pub losing: bool,
    /// While a side has both kings and men, the most non-capturing moves in a row it may make
    /// with the same king (0: no limit).
    pub max_same_king_moves: u32,
    /// Draws applied by the rules.
    pub draw: DrawRules,
    /// What a game stopped by a move cap is worth.
    pub at_move_cap: CapRule,
    /// How squares are written.
    pub notation: SquareNotation,
    /// Whether the diagram is mirrored left-right with respect to the internal layout (boards
    /// whose lower-left corner is a light square, as in Italian and Spanish draughts).
    pub mirrored: bool,
}

impl RuleSet {
    /// A new variant's rules: the most common draughts rules, each to be overridden where the
    /// variant differs (White first, three rows of men, men step and capture diagonally forward
    /// and may take kings, short kings in the four diagonals, free choice of capture, promotion
    /// at the end of a move, captured pieces removed when the move ends, [`DEFAULT_DRAW`],
    /// numbered squares).
    pub const fn new(name: &'static str, summary: &'static str, game_type: &'static str) -> Self {
        RuleSet {
            name,
            summary,
            game_type,
            hub_name: None,
            first_mover: Color::White,
            start: Start::Rows {
                rows: 3,
                empty_back_rows: 0,
            },
            man_moves: DIAGONAL_FORWARD,
            man_captures: DIAGONAL_FORWARD,
            man_later_captures: None,
            men_move_along_lines: false,
            men_rest_on_last_row: false,
            one_way: false,
            promotion: Promotion::LastRow,
            parachutists: None,
            king_moves: DIAGONALS,
            king_captures: DIAGONALS,
            men_capture_kings: true,
            flying_kings: false,
            king_stops_behind: false,
            king_halts_behind_king: false,
            promote_mid_capture: false,
            remove_while_capturing: false,
            capture_turns: Turns::Any,
            captures_may_stop: false,
            crowning_ends_capture: false,
            opening: &[],
            precedence: Precedence::Free,
            losing: false,
            max_same_king_moves: 0,
            draw: DEFAULT_DRAW,
            at_move_cap: CapRule::Draw,
            notation: SquareNotation::Numeric,
            mirrored: false,
        }
    }

    /// The same rules under another name and summary: the base of a derived variant.
    pub const fn named(self, name: &'static str, summary: &'static str) -> Self {
        RuleSet {
            name,
            summary,
            hub_name: None,
            ..self
        }
    }
}

/// A variant: its board and its rules. [`Rules::RULES`] is all a variant states; the other
/// constants read it, so that generic code can write `V::FLYING_KINGS` and have it fold away at
/// compile time. They are not to be overridden.
pub trait Rules: Copy + Default + fmt::Debug + Send + Sync + 'static {
    /// The board the variant is played on.
    type Geometry: Geometry;
    /// The rules, as data.
    const RULES: RuleSet;

    /// Short lowercase name, as used on the command line.
    const NAME: &'static str = Self::RULES.name;
    /// The rules in one line.
    const SUMMARY: &'static str = Self::RULES.summary;
    /// PDN `GameType` tag value.
    const GAME_TYPE: &'static str = Self::RULES.game_type;
    /// The variant's name in the Hub protocol.
    const HUB_NAME: &'static str = match Self::RULES.hub_name {
        Some(name) => name,
        None => Self::RULES.name,
    };
    /// The side making the first move.
    const FIRST_MOVER: Color = Self::RULES.first_mover;
    /// Rows filled with men at the start, per side (for a start given as a diagram: the rows its
    /// pieces would fill).
    const INITIAL_ROWS: u32 = match Self::RULES.start {
        Start::Rows { rows, .. } => rows,
        Start::Diagram(_) => Self::START_PIECES.div_ceil(<Self::Geometry as Geometry>::PER_ROW),
    };
    /// Pieces per side at the start (the larger side's count, if they differ).
    const START_PIECES: u32 = {
        let [white, black] = start_sets::<Self>().pieces;
        let (white, black) = (white.count_ones(), black.count_ones());
        if white > black { white } else { black }
    };
    /// Directions a man moves in without capturing.
    const MAN_MOVES: &'static [Direction] = Self::RULES.man_moves;
    /// Directions a man captures in (its first jump).
    const MAN_CAPTURES: &'static [Direction] = Self::RULES.man_captures;
    /// Directions a man's later jumps may take.
    const MAN_LATER_CAPTURES: &'static [Direction] = match Self::RULES.man_later_captures {
        Some(directions) => directions,
        None => Self::RULES.man_captures,
    };
    /// Whether men make Dameo's linear move.
    const MEN_MOVE_ALONG_LINES: bool = Self::RULES.men_move_along_lines;
    /// Whether a man on its last row makes no more non-capturing moves.
    const MEN_REST_ON_LAST_ROW: bool = Self::RULES.men_rest_on_last_row;
    /// Whether Black's men move up the board like White's.
    const ONE_WAY: bool = Self::RULES.one_way;
    /// Where men promote.
    const PROMOTION: Promotion = Self::RULES.promotion;
    /// Directions parachutists capture in (empty: no parachutists).
    const PARACHUTIST_CAPTURES: &'static [Direction] = match Self::RULES.parachutists {
        Some(parachutists) => parachutists.captures,
        None => &[],
    };
    /// Whether men may move along a row, so that a man's move can be undone (a repetition can
    /// span it).
    const MEN_MOVE_ALONG_ROWS: bool = has_direction(Self::RULES.man_moves, Direction::Left)
        || has_direction(Self::RULES.man_moves, Direction::Right);
    /// Directions a king moves in without capturing.
    const KING_MOVES: &'static [Direction] = Self::RULES.king_moves;
    /// Directions a king captures in.
    const KING_CAPTURES: &'static [Direction] = Self::RULES.king_captures;
    /// Whether men may capture kings.
    const MEN_CAPTURE_KINGS: bool = Self::RULES.men_capture_kings;
    /// Whether kings move and capture at any distance along a line.
    const FLYING_KINGS: bool = Self::RULES.flying_kings;
    /// Whether a flying king must land on the square right behind the piece it captures.
    const KING_STOPS_BEHIND: bool = Self::RULES.king_stops_behind;
    /// Whether a flying king whose last capture takes a king must land right behind it.
    const KING_HALTS_BEHIND_KING: bool = Self::RULES.king_halts_behind_king;
    /// Whether a man reaching the last row during a capture goes on capturing as a king.
    const PROMOTE_MID_CAPTURE: bool = Self::RULES.promote_mid_capture;
    /// Whether captured pieces leave the board one by one as they are jumped.
    const REMOVE_WHILE_CAPTURING: bool = Self::RULES.remove_while_capturing;
    /// How a capture sequence may turn between two jumps.
    const CAPTURE_TURNS: Turns = Self::RULES.capture_turns;
    /// Whether a capture may stop after any jump.
    const CAPTURES_MAY_STOP: bool = Self::RULES.captures_may_stop;
    /// Whether a man crowned during a capture ends its move there.
    const CROWNING_ENDS_CAPTURE: bool = Self::RULES.crowning_ends_capture;
    /// The removals played before the first ordinary move.
    const OPENING: &'static [Removal] = Self::RULES.opening;
    /// Which captures are allowed when several are available.
    const PRECEDENCE: Precedence = Self::RULES.precedence;
    /// Whether the side that cannot move wins instead of losing (losing draughts).
    const LOSING: bool = Self::RULES.losing;
    /// The most non-capturing moves in a row with the same king (0: no limit).
    const MAX_SAME_KING_MOVES: u32 = Self::RULES.max_same_king_moves;
    /// Draws applied by the rules.
    const DRAW: DrawRules = Self::RULES.draw;
    /// What a game stopped by a move cap is worth.
    const AT_MOVE_CAP: CapRule = Self::RULES.at_move_cap;
    /// How squares are written.
    const NOTATION: SquareNotation = Self::RULES.notation;
    /// Whether the diagram is mirrored left-right with respect to the internal layout.
    const MIRRORED: bool = Self::RULES.mirrored;
}

/// Whether `directions` holds `direction`.
const fn has_direction(directions: &[Direction], direction: Direction) -> bool {
    let mut i = 0;
    while i < directions.len() {
        if directions[i] as u8 == direction as u8 {
            return true;
        }
        i += 1;
    }
    false
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
    /// Corner checkers: Czech rules, men promote only on two corner squares.
    Corner => crate::variants::Corner,
    /// One-way checkers: Czech rules, the men of both sides move up the board.
    OneWay => crate::variants::OneWay,
    /// Parachute checkers: Czech rules plus four parachutists each.
    Parachute => crate::variants::Parachute,
    /// Gothic checkers: all 64 squares, men move forward and sideways.
    Gothic => crate::variants::Gothic,
    /// Alquerque on the 5x5 board of lines.
    Alquerque => crate::variants::Alquerque,
    /// Hawaiian checkers (Konane): orthogonal jumps on a full board.
    Hawaiian => crate::variants::Hawaiian,
    /// Dameo: all 64 squares, linear moves, orthogonal captures.
    Dameo => crate::variants::Dameo,
    /// International draughts with seed 000's site rules.
    InternationalSite => crate::variants::InternationalSite,
}

struct NameOf;
impl VariantVisitor for NameOf {
    type Output = &'static str;
    fn visit<V: Rules>(self) -> &'static str {
        V::NAME
    }
}

struct HubNameOf;
impl VariantVisitor for HubNameOf {
    type Output = &'static str;
    fn visit<V: Rules>(self) -> &'static str {
        V::HUB_NAME
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

    /// The name the Hub protocol gives these rules (`normal` for international).
    pub fn hub_name(self) -> &'static str {
        self.visit(HubNameOf)
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
            "one-way" => "oneway",
            "konane" | "kōnane" => "hawaiian",
            "site" => "international-site",
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
