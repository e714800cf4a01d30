//! Variants and games as the page draws them: a board's squares from the rules' geometry, and a
//! game (a start and the moves played) as its pieces, legal moves and result.

use crate::error::ApiError;
use damas_rules::notation::{landing_squares, pdn, sorted_legal_moves, square_name};
use damas_rules::{
    Bits, Color, Game, Geometry, Kind, Move, Outcome, Position, Rules, Variant, VariantVisitor,
    parse_fen, parse_move, to_fen, write_game_with_outcome,
};
use serde::{Deserialize, Serialize};

/// The most moves a game given to the API may have: longer games are refused, so that one
/// request cannot make the server replay without end.
pub const MAX_MOVES: usize = 2_000;

/// One playable square: its internal index (what every other answer names squares by), where
/// the diagram draws it and its name in the variant's notation.
#[derive(Clone, Debug, Serialize)]
pub struct SquareInfo {
    /// Internal index, 0 at the top left.
    pub square: u32,
    /// Row in the diagram, 0 at the top (White plays up).
    pub row: u32,
    /// Column in the diagram, 0 at the left.
    pub column: u32,
    /// The square's name in the variant's notation (`32`, `c3`).
    pub name: String,
}

/// A variant as the page needs it to draw its board and name its pieces.
#[derive(Clone, Debug, Serialize)]
pub struct VariantInfo {
    /// The variant's name (`russian`).
    pub name: &'static str,
    /// One line about its rules.
    pub summary: &'static str,
    /// Columns of the diagram.
    pub width: u32,
    /// Rows of the diagram.
    pub height: u32,
    /// Whether every square is played (Turkish, Dameo, ...) rather than the dark ones only.
    pub all_squares: bool,
    /// Whether pieces stand on the points of a board of lines (Alquerque), drawn as `lines`.
    pub board_of_lines: bool,
    /// The playable squares.
    pub squares: Vec<SquareInfo>,
    /// On a board of lines, the lines between neighbouring points (pairs of internal squares).
    pub lines: Vec<[u32; 2]>,
    /// The start position as FEN.
    pub start_fen: String,
    /// Whether the variant has parachutists, a third kind of piece.
    pub parachutists: bool,
}

struct Describe;

impl VariantVisitor for Describe {
    type Output = VariantInfo;
    fn visit<V: Rules>(self) -> VariantInfo {
        type G<V> = <V as Rules>::Geometry;
        let squares: Vec<SquareInfo> = (0..G::<V>::SQUARES)
            .map(|square| SquareInfo {
                square,
                row: G::<V>::row(square),
                column: G::<V>::column(square),
                name: square_name::<V>(square),
            })
            .collect();
        let board_of_lines = G::<V>::PARTIAL_DIAGONALS;
        let mut lines = Vec::new();
        if board_of_lines {
            let diagonal = G::<V>::DIAGONAL_FROM;
            for info in &squares {
                let (row, column) = (info.row, info.column);
                let mut link = |r: u32, c: u32, needs_diagonal: bool| {
                    if let Some(other) = G::<V>::at(r, c) {
                        let on_diagonal = diagonal.has(G::<V>::bit(info.square))
                            && diagonal.has(G::<V>::bit(other));
                        if !needs_diagonal || on_diagonal {
                            lines.push([info.square, other]);
                        }
                    }
                };
                link(row, column + 1, false);
                link(row + 1, column, false);
                link(row + 1, column + 1, true);
                if column > 0 {
                    link(row + 1, column - 1, true);
                }
            }
        }
        let start = Position::initial::<V>();
        let parachutists = (0..G::<V>::SQUARES).any(|square| {
            start
                .piece::<V>(square)
                .is_some_and(|piece| piece.kind == Kind::Parachutist)
        });
        VariantInfo {
            name: V::NAME,
            summary: V::SUMMARY,
            width: G::<V>::WIDTH,
            height: G::<V>::HEIGHT,
            all_squares: !G::<V>::DARK_ONLY,
            board_of_lines,
            squares,
            lines,
            start_fen: to_fen::<V>(&start),
            parachutists,
        }
    }
}

/// Every variant the rules know, in `damas variants` order.
pub fn variants() -> Vec<VariantInfo> {
    Variant::ALL.iter().map(|v| v.visit(Describe)).collect()
}

/// The variant named `name`, or an error naming it.
pub fn parse_variant(name: &str) -> Result<Variant, ApiError> {
    name.parse::<Variant>()
        .map_err(|error| ApiError::bad_request(format!("variant: {error}")))
}

/// A game as the page sends it: a variant, a start (its start position if none) and the moves
/// played from there, in any notation the rules read.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GameRequest {
    /// The variant's name.
    pub variant: String,
    /// The start position as FEN (the variant's start if absent).
    #[serde(default)]
    pub fen: Option<String>,
    /// The moves played from the start.
    #[serde(default)]
    pub moves: Vec<String>,
}

/// A game replayed from a request: the game and each move as the variant writes it.
pub struct Replayed<V: Rules> {
    /// The game at its last move.
    pub game: Game<V>,
    /// The moves in PDN.
    pub history: Vec<String>,
    /// The last move played, described from the position before it.
    pub last: Option<MoveInfo>,
}

impl<V: Rules> Replayed<V> {
    /// Plays `mv`, legal in the game, keeping the history and the last move.
    pub fn play(&mut self, mv: &Move<V::Geometry>) {
        let info = move_info::<V>(self.game.position(), mv, &self.game.legal_moves());
        self.game.play(mv);
        self.history.push(info.text.clone());
        self.last = Some(info);
    }
}

/// Replays `request` for variant `V`: the start parsed, every move checked against the rules.
pub fn replay<V: Rules>(request: &GameRequest) -> Result<Replayed<V>, ApiError> {
    if request.moves.len() > MAX_MOVES {
        return Err(ApiError::bad_request(format!(
            "moves: {} moves given, at most {MAX_MOVES} are accepted",
            request.moves.len()
        )));
    }
    let start = match &request.fen {
        Some(fen) => parse_fen::<V>(fen)
            .map_err(|error| ApiError::bad_request(format!("fen `{fen}`: {error}")))?,
        None => Position::initial::<V>(),
    };
    let mut replayed = Replayed {
        game: Game::<V>::from_position(start),
        history: Vec::with_capacity(request.moves.len()),
        last: None,
    };
    for (ply, text) in request.moves.iter().enumerate() {
        let game = &mut replayed.game;
        if let Some(outcome) = game.outcome() {
            return Err(ApiError::bad_request(format!(
                "move {} `{text}`: the game is already over ({outcome})",
                ply + 1
            )));
        }
        let position = *game.position();
        let mv = parse_move::<V>(&position, text).map_err(|error| {
            ApiError::bad_request(format!("move {} `{text}`: {error}", ply + 1))
        })?;
        if ply + 1 == request.moves.len() {
            // Only the last move is shown whole (its landing squares take a route search).
            replayed.play(&mv);
        } else {
            replayed
                .history
                .push(pdn::<V>(&position, &mv, &game.legal_moves()));
            game.play(&mv);
        }
    }
    Ok(replayed)
}

/// A piece on the board.
#[derive(Clone, Debug, Serialize)]
pub struct PieceInfo {
    /// Its square (internal index).
    pub square: u32,
    /// `white` or `black`.
    pub color: &'static str,
    /// `man`, `king` or `parachutist`.
    pub kind: &'static str,
}

/// A legal move, with what the page needs to let it be clicked and to show it.
#[derive(Clone, Debug, Serialize)]
pub struct MoveInfo {
    /// The move in PDN, as the API takes it back.
    pub text: String,
    /// The square the piece leaves.
    pub from: u32,
    /// The square it ends on.
    pub to: u32,
    /// Every square it lands on, the last included.
    pub path: Vec<u32>,
    /// The squares of the pieces it captures.
    pub captured: Vec<u32>,
}

/// How a game ended.
#[derive(Clone, Debug, Serialize)]
pub struct OutcomeInfo {
    /// The PDN result (`2-0`, `1-1`, `0-2` on 10x10; `1-0` ... on 8x8).
    pub result: &'static str,
    /// In words, with the reason.
    pub text: String,
}

impl OutcomeInfo {
    /// `outcome` as the page shows it, on a board of geometry `G`.
    pub fn of<G: Geometry>(outcome: Outcome) -> Self {
        OutcomeInfo {
            result: outcome.pdn_result::<G>(),
            text: outcome.to_string(),
        }
    }
}

/// One of the variant's draw counters where the game stands.
#[derive(Clone, Debug, Serialize)]
pub struct DrawCounter {
    /// What it counts.
    pub rule: &'static str,
    /// How far it has run.
    pub count: u32,
    /// Where it draws the game.
    pub limit: u32,
}

/// A game's state: what the page draws and what it may play next.
#[derive(Clone, Debug, Serialize)]
pub struct GameState {
    /// The variant's name.
    pub variant: &'static str,
    /// The position as FEN.
    pub fen: String,
    /// The side to move: `white` or `black`.
    pub turn: &'static str,
    /// Plies played from the start.
    pub ply: u32,
    /// The pieces.
    pub pieces: Vec<PieceInfo>,
    /// The legal moves, in the order every listing uses (none once the game is over).
    pub legal: Vec<MoveInfo>,
    /// The moves played, in PDN.
    pub history: Vec<String>,
    /// The last move played, if any.
    pub last: Option<MoveInfo>,
    /// The result, once the game is over.
    pub outcome: Option<OutcomeInfo>,
    /// The variant's draw counters (repetitions, king moves, moves without a capture, a limited
    /// ending once its count runs) as the rules count them.
    pub draw_counters: Vec<DrawCounter>,
    /// The game as PDN, its result included once it is over.
    pub pdn: String,
}

/// `white` or `black`, as every answer names a side.
pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// A move of `position` described for the page.
pub fn move_info<V: Rules>(
    position: &Position<V::Geometry>,
    mv: &Move<V::Geometry>,
    legal: &[Move<V::Geometry>],
) -> MoveInfo {
    MoveInfo {
        text: pdn::<V>(position, mv, legal),
        from: mv.from(),
        to: mv.to(),
        path: if mv.is_removal() {
            vec![mv.from()]
        } else {
            landing_squares::<V>(position, mv)
        },
        captured: mv.captured().collect(),
    }
}

/// The pieces of `position`.
pub fn pieces<V: Rules>(position: &Position<V::Geometry>) -> Vec<PieceInfo> {
    (0..V::Geometry::SQUARES)
        .filter_map(|square| {
            position.piece::<V>(square).map(|piece| PieceInfo {
                square,
                color: color_name(piece.color),
                kind: match piece.kind {
                    Kind::Man => "man",
                    Kind::King => "king",
                    Kind::Parachutist => "parachutist",
                },
            })
        })
        .collect()
}

/// The state of a replayed game.
pub fn game_state<V: Rules>(replayed: &Replayed<V>) -> GameState {
    let game = &replayed.game;
    let position = *game.position();
    let outcome = game.outcome();
    let legal = if outcome.is_some() {
        Vec::new()
    } else {
        let all = game.legal_moves();
        let sorted = sorted_legal_moves::<V>(&position);
        // The game's own list (it may be narrower than the position's, as with Frisian's
        // same-king limit), in the listing order.
        sorted
            .iter()
            .filter(|mv| all.contains(mv))
            .map(|mv| move_info::<V>(&position, mv, &all))
            .collect()
    };
    let rules = V::DRAW;
    let progress = game.draw_progress();
    let draw_counters = [
        (
            "occurrences of the position",
            progress.repeats + 1,
            rules.repetitions,
        ),
        (
            "plies of king moves",
            progress.king_move_plies,
            rules.king_move_plies,
        ),
        (
            "plies without a capture",
            progress.plies_without_capture,
            rules.no_capture_plies,
        ),
    ]
    .into_iter()
    .chain(
        game.endgame_count()
            .map(|(count, limit)| ("plies of the limited ending", count, limit)),
    )
    .filter(|&(_, _, limit)| limit > 0)
    .map(|(rule, count, limit)| DrawCounter { rule, count, limit })
    .collect();
    GameState {
        draw_counters,
        pdn: write_game_with_outcome(game, &[("Event", "damas serve")], outcome),
        variant: V::NAME,
        fen: to_fen::<V>(&position),
        turn: color_name(position.turn()),
        ply: game.ply(),
        pieces: pieces::<V>(&position),
        legal,
        history: replayed.history.clone(),
        last: replayed.last.clone(),
        outcome: outcome.map(OutcomeInfo::of::<V::Geometry>),
    }
}

/// The state of the game a request gives.
pub fn state(request: &GameRequest) -> Result<GameState, ApiError> {
    struct State<'a>(&'a GameRequest);
    impl VariantVisitor for State<'_> {
        type Output = Result<GameState, ApiError>;
        fn visit<V: Rules>(self) -> Self::Output {
            Ok(game_state(&replay::<V>(self.0)?))
        }
    }
    parse_variant(&request.variant)?.visit(State(request))
}
