//! Draughts rules for many variants: bitboards with ghost squares, move generation generic over
//! the variant, notation (FEN, PDN, Hub), game end and draw rules, and perft.
//!
//! ```
//! use damas_rules::{perft, Duplicates, Position, variants::International};
//! let start = Position::initial::<International>();
//! assert_eq!(perft::<International>(&start, 3, Duplicates::Unique), 658);
//! ```
//!
//! Architecture invariant: this crate does no I/O and starts no threads.

pub mod bitboard;
pub mod color;
pub mod fen;
pub mod game;
pub mod geometry;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod pdn;
pub mod perft;
pub mod position;
pub mod squares;
pub mod variant;
pub mod variants;
mod zobrist;

pub use bitboard::Bits;
pub use color::{ByColor, Color};
pub use fen::{
    FenLineError, HubUnsupported, ParseFenError, parse_fen, parse_fen_lines, parse_hub, to_fen,
    to_hub, try_to_hub,
};
pub use game::{DrawReason, Game, Outcome, WinReason};
pub use geometry::{Board8, Board10, Board12, Direction, Full8, Geometry, Lines5};
pub use movegen::legal_moves;
pub use moves::{MAX_MOVES, Move, MoveList};
pub use notation::{ParseMoveError, ParseSquareError, parse_move};
pub use pdn::{ParsePdnError, PdnGame, read_games, write_game, write_game_with_outcome};
pub use perft::{Duplicates, divide, perft};
pub use position::{Kind, Piece, Position};
pub use variant::{
    DrawProgress, DrawRules, EndgameRule, Precedence, RuleSet, Rules, SquareNotation, Start,
    UnknownVariant, Variant, VariantVisitor,
};
