//! Strength ladder: depth d against depth d-1 for d = 2..=6, and depth 6 against depth 4, each
//! over 100 games (50 openings of four random plies, each played with both colours), in one
//! variant (default international). Prints W/D/L and the score; run by scripts/strength-ladder.sh.

use damas_engine::{EngineConfig, Limits, Searcher};
use damas_rules::{Color, Game, Outcome, Rules, Variant, VariantVisitor};
use std::str::FromStr;

/// Games longer than this many plies are adjudicated drawn.
const MAX_PLIES: u32 = 300;

/// How a game ended for the deeper-searching player.
enum GameResult {
    Win,
    Draw,
    Loss,
}

/// Plays one game between depth `strong` (playing `strong_color`) and depth `weak`.
fn play<V: Rules>(
    mut game: Game<V>,
    strong: u32,
    weak: u32,
    strong_color: Color,
    seed: u64,
) -> GameResult {
    let mut players = [strong, weak].map(|depth| {
        let mut config = EngineConfig::for_rules::<V>();
        config.tt_megabytes = 16;
        config.randomize = true;
        config.seed = seed;
        (Searcher::<V>::new(config), Limits::depth(depth))
    });
    while game.ply() < MAX_PLIES {
        if let Some(outcome) = game.outcome() {
            return match outcome {
                Outcome::Win { winner, .. } if winner == strong_color => GameResult::Win,
                Outcome::Win { .. } => GameResult::Loss,
                Outcome::Draw(_) => GameResult::Draw,
            };
        }
        let mover = if game.position().turn() == strong_color {
            0
        } else {
            1
        };
        let (searcher, limits) = &mut players[mover];
        let best = searcher
            .search(&game, limits, |_| {})
            .best
            .expect("a legal move");
        game.play(&best);
    }
    GameResult::Draw
}

struct Match(u32, u32);

impl VariantVisitor for Match {
    type Output = (u32, u32, u32);
    fn visit<V: Rules>(self) -> (u32, u32, u32) {
        let (mut wins, mut draws, mut losses) = (0, 0, 0);
        for index in 0..50u64 {
            for strong_color in Color::ALL {
                let mut game = Game::<V>::new();
                game.play_random(index + 1, 4);
                match play(game, self.0, self.1, strong_color, index) {
                    GameResult::Win => wins += 1,
                    GameResult::Loss => losses += 1,
                    GameResult::Draw => draws += 1,
                }
            }
        }
        (wins, draws, losses)
    }
}

fn report(variant: Variant, strong: u32, weak: u32) -> f64 {
    let (w, d, l) = variant.visit(Match(strong, weak));
    let score = (w as f64 + d as f64 / 2.0) / (w + d + l) as f64;
    println!(
        "{variant}: depth {strong} vs depth {weak}: +{w} ={d} -{l}  score {:.1}%",
        100.0 * score
    );
    score
}

fn main() {
    let variant = std::env::args()
        .nth(1)
        .map(|name| Variant::from_str(&name).expect("a known variant"))
        .unwrap_or(Variant::International);
    for depth in 2..=6 {
        report(variant, depth, depth - 1);
    }
    let score = report(variant, 6, 4);
    if score > 0.6 {
        println!(
            "PASS: depth 6 scores {:.1}% (> 60%) against depth 4",
            100.0 * score
        );
    } else {
        println!(
            "FAIL: depth 6 scores {:.1}% (needs > 60%) against depth 4",
            100.0 * score
        );
        std::process::exit(1);
    }
}
