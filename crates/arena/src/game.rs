//! One game between two players, with the variant's own end rules, a length cap and optional
//! score and endgame-database adjudication.

use crate::player::Player;
use damas_egdb::Egdb;
use damas_rules::{Color, Game, Outcome, Rules, WinReason};

/// When to stop a game early.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameRules {
    /// Plies after which an unfinished game is adjudicated drawn.
    pub max_plies: u32,
    /// Adjudicate a win when both players report a score beyond this (for the same side) for
    /// `adjudicate_moves` consecutive moves; `None`: never.
    pub adjudicate_score: Option<i32>,
    /// Consecutive moves the scores must agree for.
    pub adjudicate_moves: u32,
}

impl Default for GameRules {
    fn default() -> Self {
        GameRules {
            max_plies: 300,
            adjudicate_score: None,
            adjudicate_moves: 4,
        }
    }
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct PlayedGame<V: Rules> {
    /// The game from its opening, every move played.
    pub game: Game<V>,
    /// How it ended.
    pub outcome: Outcome,
    /// Why, in words (forfeits carry the player's error).
    pub reason: String,
}

/// Plays `opening` to its end between `white` and `black` (by colour of the side to move), and
/// tells both players it is over. A game that reaches a position `egdb` holds ends there with
/// the database's result.
pub fn play_game<V: Rules>(
    white: &mut dyn Player<V>,
    black: &mut dyn Player<V>,
    opening: Game<V>,
    rules: &GameRules,
    egdb: Option<&Egdb<V>>,
) -> PlayedGame<V> {
    white.new_game();
    black.new_game();
    let played = play_to_end(white, black, opening, rules, egdb);
    white.game_over(&played.game, played.outcome);
    black.game_over(&played.game, played.outcome);
    played
}

fn play_to_end<V: Rules>(
    white: &mut dyn Player<V>,
    black: &mut dyn Player<V>,
    opening: Game<V>,
    rules: &GameRules,
    egdb: Option<&Egdb<V>>,
) -> PlayedGame<V> {
    let mut game = opening;
    // Consecutive moves on which the mover's score says this side is winning.
    let mut agreed: Option<(Color, u32)> = None;
    loop {
        if let Some(outcome) = game.outcome() {
            return PlayedGame {
                reason: outcome.to_string(),
                game,
                outcome,
            };
        }
        if let Some(played) = egdb.and_then(|db| database_result(db, &game)) {
            return played;
        }
        if game.ply() >= rules.max_plies {
            // The variant's own rule for a game stopped by a cap (material, or a draw).
            let outcome = game.outcome_at_cap();
            return PlayedGame {
                reason: format!("{outcome} (adjudicated after {} plies)", rules.max_plies),
                game,
                outcome,
            };
        }
        let turn = game.position().turn();
        let player: &mut dyn Player<V> = match turn {
            Color::White => &mut *white,
            Color::Black => &mut *black,
        };
        let answer = match player.play(&game) {
            Ok(answer) if game.legal_moves().contains(&answer.mv) => answer,
            Ok(_) => {
                return forfeit(game, turn, "played an illegal move".into());
            }
            Err(error) => return forfeit(game, turn, error.0),
        };
        if let (Some(threshold), Some(score)) = (rules.adjudicate_score, answer.score) {
            let leader = if score >= threshold {
                Some(turn)
            } else if score <= -threshold {
                Some(!turn)
            } else {
                None
            };
            agreed = match (leader, agreed) {
                (Some(side), Some((previous, count))) if side == previous => {
                    Some((side, count + 1))
                }
                (Some(side), _) => Some((side, 1)),
                (None, _) => None,
            };
            if let Some((winner, count)) = agreed
                && count >= 2 * rules.adjudicate_moves
            {
                game.play(&answer.mv);
                return PlayedGame {
                    reason: format!("{winner} wins by adjudication (both players' scores agree)"),
                    game,
                    outcome: Outcome::Win {
                        winner,
                        reason: WinReason::Adjudication,
                    },
                };
            }
        }
        game.play(&answer.mv);
    }
}

/// The game ended by the database's result, if `db` holds its position (draw counters
/// ignored, as the database ignores them).
fn database_result<V: Rules>(db: &Egdb<V>, game: &Game<V>) -> Option<PlayedGame<V>> {
    let probe = db.probe(game.position())?;
    let outcome = probe.outcome(game.position().turn());
    let reason = match outcome {
        Outcome::Win { winner, .. } => format!(
            "{winner} wins by the endgame database ({} plies to its next conversion)",
            probe.plies.unwrap_or(0)
        ),
        Outcome::Draw(_) => "drawn by the endgame database".to_string(),
    };
    Some(PlayedGame {
        game: game.clone(),
        outcome,
        reason,
    })
}

fn forfeit<V: Rules>(game: Game<V>, loser: Color, why: String) -> PlayedGame<V> {
    PlayedGame {
        reason: format!("{} forfeits: {why}", loser),
        game,
        outcome: Outcome::Win {
            winner: !loser,
            reason: WinReason::Forfeit,
        },
    }
}
