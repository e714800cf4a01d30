//! Matches: two players, a list of openings each played twice with colours swapped, several
//! games at once on threads, results reported as they finish (so a caller can stop early).

use crate::elo::Wdl;
use crate::game::{GameRules, PlayedGame, play_game};
use crate::player::Player;
use damas_rules::{Color, Game, Outcome, Rules};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc;

/// Builds a fresh player for one thread, from a seed.
pub type PlayerFactory<'a, V> = &'a (dyn Fn(u64) -> Box<dyn Player<V>> + Sync);

/// An owned [`PlayerFactory`].
pub type BoxedFactory<V> = Box<dyn Fn(u64) -> Box<dyn Player<V>> + Sync>;

/// A finished game of a match.
#[derive(Clone, Debug)]
pub struct MatchGame<V: Rules> {
    /// Number of the game in the match (0-based); game `i` plays opening `i / 2`.
    pub index: u32,
    /// Whether the first player had White (the side at the bottom).
    pub first_is_white: bool,
    /// The game.
    pub played: PlayedGame<V>,
}

impl<V: Rules> MatchGame<V> {
    /// The result for the first player.
    pub fn first_result(&self) -> Wdl {
        let first = if self.first_is_white {
            Color::White
        } else {
            Color::Black
        };
        match self.played.outcome {
            Outcome::Win { winner, .. } if winner == first => Wdl {
                wins: 1,
                ..Wdl::default()
            },
            Outcome::Win { .. } => Wdl {
                losses: 1,
                ..Wdl::default()
            },
            Outcome::Draw(_) => Wdl {
                draws: 1,
                ..Wdl::default()
            },
        }
    }
}

/// Adds one result to a running total.
pub fn add(total: &mut Wdl, result: Wdl) {
    total.wins += result.wins;
    total.draws += result.draws;
    total.losses += result.losses;
}

/// Plays `games` games between the players built by `first` and `second` on `concurrency`
/// threads; game `i` starts from `openings[(i / 2) % len]` (the variant's start if empty), the
/// first player White in even games. `skip` lists game numbers already played (a resumed match).
/// `on_game` sees each game as it finishes, on the calling thread; returning false stops the
/// match (games in progress are finished and reported).
#[allow(clippy::too_many_arguments)]
pub fn run_match<V: Rules>(
    first: PlayerFactory<'_, V>,
    second: PlayerFactory<'_, V>,
    openings: &[Game<V>],
    games: u32,
    skip: &[u32],
    concurrency: usize,
    rules: &GameRules,
    seed: u64,
    mut on_game: impl FnMut(MatchGame<V>) -> bool,
) {
    let next = AtomicU32::new(0);
    let stop = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        for thread in 0..concurrency.max(1) {
            let sender = sender.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                let thread_seed = seed ^ ((thread as u64 + 1) << 40);
                let mut a = first(thread_seed);
                let mut b = second(thread_seed ^ 0x5555);
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= games || stop.load(Ordering::Relaxed) {
                        return;
                    }
                    if skip.contains(&index) {
                        continue;
                    }
                    let opening = match openings.len() {
                        0 => Game::new(),
                        n => openings[(index as usize / 2) % n].clone(),
                    };
                    let first_is_white = index % 2 == 0;
                    let played = if first_is_white {
                        play_game(a.as_mut(), b.as_mut(), opening, rules)
                    } else {
                        play_game(b.as_mut(), a.as_mut(), opening, rules)
                    };
                    let game = MatchGame {
                        index,
                        first_is_white,
                        played,
                    };
                    if sender.send(game).is_err() {
                        return;
                    }
                }
            });
        }
        drop(sender);
        for game in receiver {
            if !stop.load(Ordering::Relaxed) && !on_game(game) {
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
}
