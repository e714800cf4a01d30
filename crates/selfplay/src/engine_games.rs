//! Games of the alpha-beta engine against itself, recorded as training samples: a warm start
//! for a network before it plays for itself. The policy target is the engine's move, the value
//! target the game's result, and the sample's search value the engine's score squashed into
//! [-1, 1].

use crate::play::{GameRecord, fan_in, label_samples, start_game};
use crate::shard::Sample;
use damas_engine::{EngineConfig, Limits, MATE_BOUND, Searcher};
use damas_nn::{PackedPosition, policy_index};
use damas_rules::{Position, Rules, write_game_with_outcome};
use std::sync::atomic::{AtomicU32, Ordering};

/// How the engine plays its games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineGames {
    /// Search depth of every move.
    pub depth: u32,
    /// Uniformly random plies before the engine takes over (the engine alone would play the
    /// same few games).
    pub opening_plies: u32,
    /// Longer games are stopped and valued as the variant's rules value a capped game.
    pub max_plies: u32,
    /// Game-playing threads.
    pub workers: usize,
}

/// The engine's score (hundredths of a man) as a value in [-1, 1]: a forced result is ±1, and
/// three men ahead is about 0.76.
pub fn score_to_value(score: i32) -> f32 {
    if score.abs() >= MATE_BOUND {
        return score.signum() as f32;
    }
    (score as f32 / 300.0).tanh()
}

/// Plays `games` engine games of `V` on `settings.workers` threads (game `i` starts from
/// `openings[i % len]`, or the variant's start, then random plies seeded by `seed` and `i`),
/// calling `on_game` on this thread for each finished one. `model` names the player in the PDN.
pub fn play_engine_games<V: Rules>(
    settings: &EngineGames,
    games: u32,
    seed: u64,
    model: &str,
    openings: &[Position<V::Geometry>],
    on_game: impl FnMut(GameRecord),
) {
    let next_game = AtomicU32::new(0);
    fan_in(
        settings.workers,
        |_, sender| {
            loop {
                let index = next_game.fetch_add(1, Ordering::Relaxed);
                if index >= games {
                    return;
                }
                let record = play_one::<V>(settings, index, seed, model, openings);
                if sender.send(record).is_err() {
                    return;
                }
            }
        },
        on_game,
    );
}

/// Game number `index`.
fn play_one<V: Rules>(
    settings: &EngineGames,
    index: u32,
    seed: u64,
    model: &str,
    openings: &[Position<V::Geometry>],
) -> GameRecord {
    let (mut game, game_seed) = start_game::<V>(openings, index, seed, settings.opening_plies);
    let mut config = EngineConfig::for_rules::<V>();
    config.randomize = true;
    config.seed = game_seed;
    config.tt_megabytes = 4;
    let mut searcher = Searcher::<V>::new(config);
    let limits = Limits::depth(settings.depth);
    let mut samples = Vec::new();
    let outcome = loop {
        if let Some(outcome) = game.outcome() {
            break outcome;
        }
        if game.ply() >= settings.max_plies {
            break game.outcome_at_cap();
        }
        let moves = game.legal_moves();
        let result = searcher.search(&game, &limits, |_| {});
        let best = result
            .best
            .expect("a game that is not over has a legal move");
        let turn = game.position().turn();
        if moves.len() > 1 {
            let sample = Sample {
                position: PackedPosition::of(&game),
                policy: vec![(policy_index::<V>(&best, turn) as u16, 1.0)],
                result: 0,
                search_value: score_to_value(result.info.score),
                ply: game.ply().min(u32::from(u16::MAX)) as u16,
                aux: None,
            };
            samples.push((sample, turn));
        }
        game.play(&best);
    };
    let round = (index + 1).to_string();
    let tags = [
        ("Event", "damas engine games"),
        ("Round", round.as_str()),
        ("White", model),
        ("Black", model),
    ];
    GameRecord {
        index,
        pdn: write_game_with_outcome(&game, &tags, Some(outcome)),
        samples: label_samples(samples, outcome, &game),
        outcome,
        plies: game.ply(),
        resign_check: None,
        database_hits: 0,
        database_result: false,
    }
}
