//! Targets over the rules crate's parsers (every variant) and player strings.

use super::{SeedMaker, Target, random_games, seeds_per_variant, split_variant, variant_input};
use damas_arena::PlayerSpec;
use damas_rules::notation::{full_path, hub, pdn};
use damas_rules::{
    Position, Rules, VariantVisitor, parse_fen, parse_fen_lines, parse_hub, parse_move, read_games,
    to_fen, try_to_hub, write_game,
};
use rand::rngs::SmallRng;

/// FEN, Hub positions and FEN lists for every variant; a position read back must print as text
/// that reads back to the same position.
pub struct Fen {
    seeds: Vec<Vec<Vec<u8>>>,
}

struct FenSeeds;
impl SeedMaker for FenSeeds {
    fn make<V: Rules>(&self) -> Vec<Vec<u8>> {
        let mut seeds = Vec::new();
        for game in random_games::<V>(12, 120, 1) {
            seeds.push(to_fen::<V>(game.position()).into_bytes());
            if let Ok(text) = try_to_hub::<V>(game.position()) {
                seeds.push(text.into_bytes());
            }
        }
        let lines: Vec<u8> = seeds[..4].join(&b'\n');
        seeds.push(lines);
        seeds
    }
}

impl Fen {
    /// Seeds from random games of every variant.
    pub fn new() -> Self {
        Fen {
            seeds: seeds_per_variant(&FenSeeds),
        }
    }
}

impl Default for Fen {
    fn default() -> Self {
        Self::new()
    }
}

struct RunFen<'a>(&'a str);
impl VariantVisitor for RunFen<'_> {
    type Output = bool;
    fn visit<V: Rules>(self) -> bool {
        let text = self.0;
        let fen = parse_fen::<V>(text);
        if let Ok(position) = &fen {
            let again = to_fen::<V>(position);
            assert_eq!(
                parse_fen::<V>(&again).as_ref(),
                Ok(position),
                "FEN `{text}` read, written as `{again}`, does not read back"
            );
        }
        let hub_position = parse_hub::<V>(text);
        if let Ok(position) = &hub_position
            && let Ok(again) = try_to_hub::<V>(position)
        {
            assert_eq!(
                parse_hub::<V>(&again).as_ref(),
                Ok(position),
                "Hub position `{text}` read, written as `{again}`, does not read back"
            );
        }
        let lines = parse_fen_lines::<V>(text);
        fen.is_ok() || hub_position.is_ok() || lines.is_ok()
    }
}

impl Target for Fen {
    fn name(&self) -> &'static str {
        "fen"
    }
    fn weight(&self) -> u64 {
        20
    }
    fn generate(&self, rng: &mut SmallRng) -> Vec<u8> {
        variant_input(rng, &self.seeds, true)
    }
    fn run(&self, input: &[u8]) -> bool {
        let (variant, rest) = split_variant(input);
        variant.visit(RunFen(&String::from_utf8_lossy(rest)))
    }
}

/// PDN game records for every variant.
pub struct Pdn {
    seeds: Vec<Vec<Vec<u8>>>,
}

struct PdnSeeds;
impl SeedMaker for PdnSeeds {
    fn make<V: Rules>(&self) -> Vec<Vec<u8>> {
        let games = random_games::<V>(6, 60, 2);
        let mut seeds: Vec<Vec<u8>> = games
            .iter()
            .map(|g| write_game(g, &[("Event", "fuzz"), ("White", "a b")]).into_bytes())
            .collect();
        // A game from a set-up position (SetUp and FEN tags).
        let set_up = random_games::<V>(1, 20, 3).remove(0);
        let mut later = damas_rules::Game::<V>::from_position(*set_up.position());
        if let Some(mv) = later.legal_moves().first().copied() {
            later.play(&mv);
        }
        seeds.push(write_game(&later, &[]).into_bytes());
        let two = [seeds[0].clone(), seeds[1].clone()].join(&b'\n');
        seeds.push(two);
        seeds
    }
}

impl Pdn {
    /// Seeds: random games of every variant, written as PDN.
    pub fn new() -> Self {
        Pdn {
            seeds: seeds_per_variant(&PdnSeeds),
        }
    }
}

impl Default for Pdn {
    fn default() -> Self {
        Self::new()
    }
}

struct RunPdn<'a>(&'a str);
impl VariantVisitor for RunPdn<'_> {
    type Output = bool;
    fn visit<V: Rules>(self) -> bool {
        read_games::<V>(self.0).is_ok()
    }
}

impl Target for Pdn {
    fn name(&self) -> &'static str {
        "pdn"
    }
    fn weight(&self) -> u64 {
        10
    }
    fn generate(&self, rng: &mut SmallRng) -> Vec<u8> {
        variant_input(rng, &self.seeds, true)
    }
    fn run(&self, input: &[u8]) -> bool {
        let (variant, rest) = split_variant(input);
        variant.visit(RunPdn(&String::from_utf8_lossy(rest)))
    }
}

/// Moves in every notation (short PDN, full path, Hub, `:`), read against a position given as
/// FEN on the input's first line (the start if it does not read).
pub struct Moves {
    seeds: Vec<Vec<Vec<u8>>>,
}

struct MoveSeeds;
impl SeedMaker for MoveSeeds {
    fn make<V: Rules>(&self) -> Vec<Vec<u8>> {
        let mut seeds = Vec::new();
        for game in random_games::<V>(10, 100, 4) {
            let position = game.position();
            let legal = game.legal_moves();
            for mv in legal.iter().take(3) {
                let fen = to_fen::<V>(position);
                for text in [
                    pdn::<V>(position, mv, &legal),
                    full_path::<V>(position, mv),
                    hub::<V>(mv),
                ] {
                    seeds.push(format!("{fen}\n{text}").into_bytes());
                }
                seeds.push(format!("{fen}\n{}", hub::<V>(mv).replace('x', ":")).into_bytes());
            }
        }
        seeds
    }
}

impl Moves {
    /// Seeds: every notation of legal moves along random games of every variant.
    pub fn new() -> Self {
        Moves {
            seeds: seeds_per_variant(&MoveSeeds),
        }
    }
}

impl Default for Moves {
    fn default() -> Self {
        Self::new()
    }
}

struct RunMove<'a>(&'a str);
impl VariantVisitor for RunMove<'_> {
    type Output = bool;
    fn visit<V: Rules>(self) -> bool {
        let (fen, text) = self.0.split_once('\n').unwrap_or(("", self.0));
        let position = parse_fen::<V>(fen).unwrap_or_else(|_| Position::initial::<V>());
        parse_move::<V>(&position, text).is_ok()
    }
}

impl Target for Moves {
    fn name(&self) -> &'static str {
        "moves"
    }
    fn weight(&self) -> u64 {
        20
    }
    fn generate(&self, rng: &mut SmallRng) -> Vec<u8> {
        variant_input(rng, &self.seeds, true)
    }
    fn run(&self, input: &[u8]) -> bool {
        let (variant, rest) = split_variant(input);
        variant.visit(RunMove(&String::from_utf8_lossy(rest)))
    }
}

/// Player strings (`net:`, `alphabeta:`, `random`, `hub:`, `dxp:`), parsed only.
pub struct Players;

const PLAYER_SEEDS: &[&str] = &[
    "random",
    "alphabeta:depth=6",
    "alphabeta:nodes=1000",
    "alphabeta:time=0.5",
    "alphabeta:depth=3,time=1",
    "net:runs/quick/checkpoints/000010",
    "net:model.onnx,sims=400",
    "net:model.onnx,time=0.5,gumbel",
    "hub:\"damas hub --tt 16\"",
    "dxp:127.0.0.1:27531",
];

impl Target for Players {
    fn name(&self) -> &'static str {
        "players"
    }
    fn weight(&self) -> u64 {
        5
    }
    fn generate(&self, rng: &mut SmallRng) -> Vec<u8> {
        let seeds: Vec<&[u8]> = PLAYER_SEEDS.iter().map(|s| s.as_bytes()).collect();
        let mut input = crate::mutate::from_seeds(rng, &seeds);
        input.truncate(200);
        input
    }
    fn run(&self, input: &[u8]) -> bool {
        String::from_utf8_lossy(input).parse::<PlayerSpec>().is_ok()
    }
}
