//! Matches: two players, a list of openings each played twice with colours swapped, several
//! games at once on threads, results reported as they finish (so a caller can stop early).

use crate::elo::Wdl;
use crate::game::{GameRules, PlayedGame, play_game};
use crate::player::Player;
use damas_egdb::Egdb;
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

/// One game of a schedule: who has White and who Black (indices into the player list), from
/// which opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pairing {
    /// Number of the game in the schedule.
    pub id: u32,
    /// The player with White (the side at the bottom).
    pub white: usize,
    /// The player with Black.
    pub black: usize,
    /// Index into the openings (taken modulo their number; none: the variant's start).
    pub opening: usize,
}

/// A finished game of a schedule.
#[derive(Clone, Debug)]
pub struct ScheduledGame<V: Rules> {
    /// What was scheduled.
    pub pairing: Pairing,
    /// The game.
    pub played: PlayedGame<V>,
}

/// Plays the `pairings` on `concurrency` threads; each thread builds its own instance of a
/// player (from `players`) the first time it needs it. `on_game` sees each game as it
/// finishes, on the calling thread; returning false stops the schedule (games in progress
/// are finished and reported).
#[allow(clippy::too_many_arguments)]
pub fn run_schedule<V: Rules>(
    players: &[PlayerFactory<'_, V>],
    pairings: &[Pairing],
    openings: &[Game<V>],
    concurrency: usize,
    rules: &GameRules,
    egdb: Option<&Egdb<V>>,
    seed: u64,
    mut on_game: impl FnMut(ScheduledGame<V>) -> bool,
) {
    let next = AtomicU32::new(0);
    let stop = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        for thread in 0..concurrency.max(1).min(pairings.len().max(1)) {
            let sender = sender.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                let mut own: Vec<Option<Box<dyn Player<V>>>> =
                    (0..players.len()).map(|_| None).collect();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed) as usize;
                    if index >= pairings.len() || stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let pairing = pairings[index];
                    for player in [pairing.white, pairing.black] {
                        if own[player].is_none() {
                            let player_seed =
                                seed ^ ((thread as u64 + 1) << 40) ^ (player as u64) << 8;
                            own[player] = Some(players[player](player_seed));
                        }
                    }
                    let opening = match openings.len() {
                        0 => Game::new(),
                        n => openings[pairing.opening % n].clone(),
                    };
                    let [white, black] = own
                        .get_disjoint_mut([pairing.white, pairing.black])
                        .expect("a player never meets itself");
                    let played = play_game(
                        white.as_mut().expect("built").as_mut(),
                        black.as_mut().expect("built").as_mut(),
                        opening,
                        rules,
                        egdb,
                    );
                    if sender.send(ScheduledGame { pairing, played }).is_err() {
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

/// The pairings of a two-player match: game `i` plays opening `i / 2`, the first player White
/// in even games; games listed in `skip` (already played) are left out.
pub fn match_pairings(games: u32, skip: &[u32]) -> Vec<Pairing> {
    (0..games)
        .filter(|id| !skip.contains(id))
        .map(|id| Pairing {
            id,
            white: (id % 2) as usize,
            black: 1 - (id % 2) as usize,
            opening: (id / 2) as usize,
        })
        .collect()
}

/// The pairings of a round robin: every pair meets twice per round (colours swapped) on the
/// round's openings; ids follow the schedule order.
pub fn round_robin(players: usize, rounds: u32) -> Vec<Pairing> {
    let pairs: Vec<(usize, usize)> = (0..players)
        .flat_map(|a| (a + 1..players).map(move |b| (a, b)))
        .collect();
    each_pair(&pairs, rounds)
}

/// The pairings of a gauntlet: player 0 meets every other player twice per round.
pub fn gauntlet(players: usize, rounds: u32) -> Vec<Pairing> {
    let pairs: Vec<(usize, usize)> = (1..players).map(|other| (0, other)).collect();
    each_pair(&pairs, rounds)
}

/// The pairings of `pairs` (player indices): each plays twice per round, colours swapped, on
/// the round's opening.
pub fn each_pair(pairs: &[(usize, usize)], rounds: u32) -> Vec<Pairing> {
    let mut pairings = Vec::new();
    for round in 0..rounds as usize {
        for &(a, b) in pairs {
            for (white, black) in [(a, b), (b, a)] {
                pairings.push(Pairing {
                    id: pairings.len() as u32,
                    white,
                    black,
                    opening: round,
                });
            }
        }
    }
    pairings
}

/// Plays `games` games between the players built by `first` and `second` (see
/// [`match_pairings`]); `on_game` sees each as it finishes and may stop the match by
/// returning false.
#[allow(clippy::too_many_arguments)]
pub fn run_match<V: Rules>(
    first: PlayerFactory<'_, V>,
    second: PlayerFactory<'_, V>,
    openings: &[Game<V>],
    games: u32,
    skip: &[u32],
    concurrency: usize,
    rules: &GameRules,
    egdb: Option<&Egdb<V>>,
    seed: u64,
    mut on_game: impl FnMut(MatchGame<V>) -> bool,
) {
    let pairings = match_pairings(games, skip);
    run_schedule(
        &[first, second],
        &pairings,
        openings,
        concurrency,
        rules,
        egdb,
        seed,
        |game| {
            on_game(MatchGame {
                index: game.pairing.id,
                first_is_white: game.pairing.white == 0,
                played: game.played,
            })
        },
    )
}
