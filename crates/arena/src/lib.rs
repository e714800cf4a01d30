//! Matches and tournaments between players (network checkpoints under MCTS, the alpha-beta
//! baseline, random, outside engines), and the rating arithmetic that reads them.
//!
//! - [`player`]: the [`Player`] trait and the built-in players.
//! - [`game`]: one game with end rules, length cap and adjudication.
//! - [`matches`]: a match on several threads, openings played with both colours.
//! - [`openings`]: balanced random openings, or a FEN file.
//! - [`elo`]: Elo with intervals, SPRT, and the joint maximum-likelihood fit.
//! - [`spec`]: players named by one string; [`hub`]: outside engines over the Hub protocol.

pub mod dxp;
pub mod elo;
pub mod game;
pub mod hub;
pub mod matches;
pub mod openings;
pub mod player;
pub mod spec;

pub use dxp::DxpPlayer;
pub use elo::{EloEstimate, Sprt, SprtVerdict, Wdl, elo_estimate, elo_from_score, fit_ratings};
pub use game::{GameRules, PlayedGame, play_game};
pub use hub::HubPlayer;
pub use matches::{
    BoxedFactory, MatchGame, Pairing, PlayerFactory, ScheduledGame, gauntlet, match_pairings,
    round_robin, run_match, run_schedule,
};
pub use openings::{balanced_openings, parse_openings};
pub use player::{AlphaBetaPlayer, Answer, Forfeit, MctsPlayer, Player, RandomPlayer};
pub use spec::{PlayerSpec, SpecError};
