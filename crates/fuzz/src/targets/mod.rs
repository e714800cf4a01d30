//! The fuzz targets: each makes inputs (mutated valid seeds, or random bytes) and feeds one to
//! the real parser or handler, which must answer Ok or Err.
//!
//! - [`rules`]: FEN, Hub positions, FEN lists, PDN games, moves in every notation, player
//!   strings;
//! - [`protocols`]: Hub lines (our server over a scripted session, the client's line parser),
//!   DXP messages (parsed, matched against legal moves, and sent to our server over loopback);
//! - [`files`]: run and self-play TOML, shard bytes, checkpoint `meta.json`, ONNX files;
//! - [`serve`]: the browser API's request bodies (game states, PDN to replay).

pub mod files;
pub mod protocols;
pub mod rules;
pub mod serve;

use damas_rules::{Game, Rules, Variant, VariantVisitor};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// One thing fuzzed.
pub trait Target: Send + Sync {
    /// Its name in reports.
    fn name(&self) -> &'static str;
    /// Its share of a run's inputs, relative to the other targets (slow targets get less).
    fn weight(&self) -> u64;
    /// A new input.
    fn generate(&self, rng: &mut SmallRng) -> Vec<u8>;
    /// Feeds `input` to the code under test; true if it was accepted (Ok), false if refused.
    fn run(&self, input: &[u8]) -> bool;
}

/// Every target, files written under `scratch`; `slow` adds those that take milliseconds per
/// input (ONNX files), which have weight 0 (their count is set apart).
pub fn all_targets(slow: bool, scratch: &std::path::Path) -> Vec<Box<dyn Target>> {
    let mut targets: Vec<Box<dyn Target>> = vec![
        Box::new(rules::Fen::new()),
        Box::new(rules::Pdn::new()),
        Box::new(rules::Moves::new()),
        Box::new(rules::Players),
        Box::new(protocols::HubLine::new()),
        Box::new(protocols::HubServer::new()),
        Box::new(protocols::DxpMessage::new()),
        Box::new(protocols::DxpServer::new()),
        Box::new(files::TrainToml::new()),
        Box::new(files::SelfPlayToml::new()),
        Box::new(files::ShardBytes::new(scratch)),
        Box::new(files::MetaJson::new(scratch)),
        Box::new(serve::ServeApi::new()),
    ];
    if slow {
        targets.push(Box::new(files::OnnxFile::new(scratch)));
    }
    targets
}

/// The variant an input's first byte names, and the rest of the input.
pub fn split_variant(input: &[u8]) -> (Variant, &[u8]) {
    match input.split_first() {
        Some((&b, rest)) => (Variant::ALL[b as usize % Variant::ALL.len()], rest),
        None => (Variant::ALL[0], input),
    }
}

/// A variant's index as an input's first byte.
pub fn variant_byte(variant: Variant) -> u8 {
    Variant::ALL
        .iter()
        .position(|&v| v == variant)
        .expect("a known variant") as u8
}

/// Text taken from seeds of one variant per input: the seed set `pick` chooses, with the
/// variant's byte in front, mutated.
pub fn variant_input(rng: &mut SmallRng, seeds: &[Vec<Vec<u8>>], mutate_variant: bool) -> Vec<u8> {
    let v = rng.random_range(0..seeds.len());
    let refs: Vec<&[u8]> = seeds[v].iter().map(Vec::as_slice).collect();
    let mut input = vec![v as u8];
    input.extend(crate::mutate::from_seeds(rng, &refs));
    if mutate_variant && rng.random_range(0..50) == 0 {
        input[0] = rng.random();
    }
    input
}

/// Random games of `V`: `count` games of at most `plies` plies each, seeded.
pub fn random_games<V: Rules>(count: usize, plies: u32, seed: u64) -> Vec<Game<V>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut game = Game::<V>::new();
            let length = rng.random_range(0..=plies);
            while game.ply() < length && game.outcome().is_none() {
                let moves = game.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let mv = moves[rng.random_range(0..moves.len())];
                game.play(&mv);
            }
            game
        })
        .collect()
}

/// Runs `make` for every variant, in `Variant::ALL` order.
pub fn per_variant<T>(make: impl Fn(Variant) -> T) -> Vec<T> {
    Variant::ALL.iter().map(|&v| make(v)).collect()
}

/// A visitor from a closure-like struct: the seeds of one variant.
pub trait SeedMaker {
    /// The seeds of `V`.
    fn make<V: Rules>(&self) -> Vec<Vec<u8>>;
}

struct Visit<'a, M: SeedMaker>(&'a M);

impl<M: SeedMaker> VariantVisitor for Visit<'_, M> {
    type Output = Vec<Vec<u8>>;
    fn visit<V: Rules>(self) -> Vec<Vec<u8>> {
        self.0.make::<V>()
    }
}

/// The seeds `maker` gives for every variant.
pub fn seeds_per_variant(maker: &impl SeedMaker) -> Vec<Vec<Vec<u8>>> {
    per_variant(|v| v.visit(Visit(maker)))
}
