//! Matches and tournaments between players (network checkpoints under MCTS, the alpha-beta
//! baseline, random, outside engines), and the rating arithmetic that reads them.
//!
//! - [`player`]: the [`Player`] trait and the built-in players.
//! - [`game`]: one game with end rules, length cap and adjudication.
//! - [`matches`]: a match on several threads, openings played with both colours.
//! - [`openings`]: balanced random openings, or a FEN file.
//! - [`elo`]: Elo with intervals, SPRT, and the joint maximum-likelihood fit.

pub mod elo;
pub mod game;
pub mod matches;
pub mod openings;
pub mod player;

pub use elo::{EloEstimate, Sprt, SprtVerdict, Wdl, elo_estimate, elo_from_score, fit_ratings};
pub use game::{GameRules, PlayedGame, play_game};
pub use matches::{BoxedFactory, MatchGame, PlayerFactory, run_match};
pub use openings::{balanced_openings, parse_openings};
pub use player::{AlphaBetaPlayer, Answer, Forfeit, MctsPlayer, Player, RandomPlayer};
