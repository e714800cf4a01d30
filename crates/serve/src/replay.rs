//! Games read from PDN for the Replay view: every position of every game, with the move that
//! led to it, so that the page steps through them without asking again.

use crate::board::{
    MoveInfo, OutcomeInfo, PieceInfo, color_name, move_info, parse_variant, pieces,
};
use crate::error::ApiError;
use damas_rules::{Game, Rules, VariantVisitor, read_games, to_fen};
use serde::{Deserialize, Serialize};

/// The most games one replay answer holds.
pub const MAX_GAMES: usize = 500;

/// PDN text to replay, in a variant.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayRequest {
    /// The variant the games are in.
    pub variant: String,
    /// One or more PDN games.
    pub pdn: String,
}

/// One position of a game.
#[derive(Clone, Debug, Serialize)]
pub struct PositionView {
    /// As FEN.
    pub fen: String,
    /// The side to move.
    pub turn: &'static str,
    /// The pieces.
    pub pieces: Vec<PieceInfo>,
}

/// A game of the PDN text.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayGame {
    /// Its tags, in file order.
    pub tags: Vec<(String, String)>,
    /// The result the file gives, if any.
    pub result: Option<String>,
    /// The moves, each as played from the position before it.
    pub moves: Vec<MoveInfo>,
    /// The positions: the start, then one after each move.
    pub positions: Vec<PositionView>,
    /// How the game ended by the rules, if it did.
    pub outcome: Option<OutcomeInfo>,
    /// The start position as FEN and the moves in PDN, for the Play view or the API.
    pub start_fen: String,
}

/// The games of `request`, every move checked against the rules.
pub fn replay_pdn(request: &ReplayRequest) -> Result<Vec<ReplayGame>, ApiError> {
    struct Replay<'a>(&'a str);
    impl VariantVisitor for Replay<'_> {
        type Output = Result<Vec<ReplayGame>, ApiError>;
        fn visit<V: Rules>(self) -> Self::Output {
            let games = read_games::<V>(self.0)
                .map_err(|error| ApiError::bad_request(format!("pdn: {error}")))?;
            if games.is_empty() {
                return Err(ApiError::bad_request("pdn: no game in the text"));
            }
            if games.len() > MAX_GAMES {
                return Err(ApiError::bad_request(format!(
                    "pdn: {} games, at most {MAX_GAMES} are replayed at once",
                    games.len()
                )));
            }
            Ok(games
                .into_iter()
                .map(|pdn| {
                    let mut game = Game::<V>::from_position(*pdn.game.start());
                    let view = |game: &Game<V>| PositionView {
                        fen: to_fen::<V>(game.position()),
                        turn: color_name(game.position().turn()),
                        pieces: pieces::<V>(game.position()),
                    };
                    let mut positions = vec![view(&game)];
                    let mut moves = Vec::new();
                    for mv in pdn.game.moves() {
                        moves.push(move_info::<V>(game.position(), mv, &game.legal_moves()));
                        game.play(mv);
                        positions.push(view(&game));
                    }
                    ReplayGame {
                        start_fen: to_fen::<V>(pdn.game.start()),
                        tags: pdn.tags,
                        result: pdn.result,
                        moves,
                        positions,
                        outcome: game.outcome().map(OutcomeInfo::of::<V::Geometry>),
                    }
                })
                .collect())
        }
    }
    parse_variant(&request.variant)?.visit(Replay(&request.pdn))
}
