//! Start positions for matches: a few random plies from the variant's start, kept only when
//! the alpha-beta engine finds them balanced; or a file of FENs.

use damas_engine::{EngineConfig, Limits, Searcher};
use damas_rules::{FenLineError, Game, Rules};

/// `count` distinct balanced openings of `plies` random plies each: the engine at depth 6
/// scores each within `max_score` (hundredths of a man) for the side to move. Deterministic for
/// a seed.
pub fn balanced_openings<V: Rules>(
    count: usize,
    plies: u32,
    max_score: i32,
    seed: u64,
) -> Vec<Game<V>> {
    let mut searcher = Searcher::<V>::new(EngineConfig::for_rules::<V>());
    let mut openings: Vec<Game<V>> = Vec::new();
    let mut attempt = seed;
    while openings.len() < count && attempt < seed + 200 * count as u64 + 1000 {
        attempt += 1;
        let mut game = Game::<V>::new();
        game.play_random(attempt, plies);
        if game.outcome().is_some() || openings.iter().any(|o| o.hash() == game.hash()) {
            continue;
        }
        let result = searcher.search(&game, &Limits::depth(6), |_| {});
        if result.info.score.abs() <= max_score {
            openings.push(Game::from_position(*game.position()));
        }
    }
    openings
}

/// Reads openings for `V` from text with one FEN per line (`#` comments and blank lines
/// skipped); the error names the line.
pub fn parse_openings<V: Rules>(text: &str) -> Result<Vec<Game<V>>, FenLineError> {
    Ok(damas_rules::parse_fen_lines::<V>(text)?
        .into_iter()
        .map(Game::from_position)
        .collect())
}
