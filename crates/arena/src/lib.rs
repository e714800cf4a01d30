//! Where engines meet: players (network checkpoints under MCTS, the alpha-beta baseline,
//! random, outside engines over Hub and DXP), matches and tournaments with their results files,
//! the rating arithmetic that reads them, and our own engines served over Hub and DXP.
//!
//! - [`player`]: the [`Player`] trait and the built-in players; [`spec`]: players named by one
//!   string; [`factory`]: a player built from its string.
//! - [`game`]: one game with end rules, length cap and adjudication.
//! - [`matches`]: a schedule of games on several threads, openings played with both colours.
//! - [`tournament`]: matches and tournaments run from their options to their rating files;
//!   [`store`]: the results directory they resume from; [`plot`]: the ratings picture.
//! - [`openings`]: balanced random openings, or a FEN file.
//! - [`elo`]: Elo with intervals, SPRT, and the joint maximum-likelihood fit.
//! - [`ladder`]: reference players rated once and kept in a file; any other player rated
//!   from a few games against the rungs nearest it.
//! - [`hub`], [`dxp`]: the two engine protocols, each with its wire format, its client (an
//!   outside engine as a player) and its server (our engines behind the protocol).

pub mod dxp;
pub mod elo;
pub mod factory;
pub mod game;
pub mod hub;
pub mod ladder;
pub mod matches;
pub mod openings;
pub mod player;
pub mod plot;
pub mod spec;
pub mod store;
pub mod tournament;

pub use dxp::client::DxpPlayer;
pub use elo::{
    EloEstimate, Sprt, SprtVerdict, Wdl, elo_estimate, elo_from_score, fit_ratings, signed_elo,
};
pub use factory::{PlayerError, PlayerSettings};
pub use game::{GameRules, PlayedGame, play_game};
pub use hub::client::HubPlayer;
pub use ladder::{
    Climb, ClimbOptions, Ladder, LadderFileError, LadderOptions, build_ladder, climb,
    rate_on_ladder, read_ladder, write_ladder,
};
pub use matches::{
    BoxedFactory, MatchGame, Pairing, PlayerFactory, ScheduledGame, each_pair, gauntlet,
    match_pairings, round_robin, run_match, run_schedule,
};
pub use openings::{balanced_openings, parse_openings};
pub use player::{AlphaBetaPlayer, Answer, Forfeit, MctsPlayer, Player, RandomPlayer};
pub use spec::{PlayerSpec, SpecError, at_equal_time};
pub use store::{ResultsStore, StoreError, default_results_dir};
pub use tournament::{
    ArenaError, ArenaOptions, CheckpointPlayers, MatchOptions, MatchSummary, Progress, Resumed,
    Schedule, TournamentOptions, TournamentSummary, checkpoint_players, play_match,
    play_tournament,
};
