//! Invariants over random playouts in every variant: each generated move plays and reads back from
//! its notations, FEN and Hub round-trip (the Hub where it can express the position), the
//! incremental hash matches the recomputed one, no ghost bit is set, and piece counts change only
//! by the captured set (and the removed piece of an opening removal).

use damas_rules::movegen::count_legal_moves;
use damas_rules::notation::{full_path, hub, pdn};
use damas_rules::{
    Bits, Game, Rules, Variant, VariantVisitor, parse_fen, parse_hub, parse_move, to_fen,
    try_to_hub,
};
use proptest::prelude::*;

/// A tiny deterministic generator so a failing seed replays exactly.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

struct Playout {
    seed: u64,
    plies: u32,
}

impl VariantVisitor for Playout {
    /// Plies played, and how the game ended if it did.
    type Output = (u32, Option<String>);
    fn visit<V: Rules>(self) -> (u32, Option<String>) {
        let mut rng = self.seed;
        let mut game = Game::<V>::new();
        let mut played = 0;
        while played < self.plies && game.outcome().is_none() {
            let position = *game.position();
            assert!(
                position.is_consistent(),
                "ghost bit or overlap in {}",
                to_fen::<V>(&position)
            );
            assert_eq!(game.hash(), position.hash(), "incremental hash drifted");
            let fen = to_fen::<V>(&position);
            assert_eq!(
                parse_fen::<V>(&fen).expect("own FEN reads back"),
                position,
                "{fen}"
            );
            // The Hub has no character for a parachutist; every other position reads back.
            match try_to_hub::<V>(&position) {
                Ok(hub) => assert_eq!(parse_hub::<V>(&hub).expect("own Hub reads back"), position),
                Err(_) => assert!(
                    position.parachutists::<V>(position.turn()).count()
                        + position.parachutists::<V>(!position.turn()).count()
                        > 0
                ),
            }
            // The position's own move list (the game's may be filtered by history-dependent rules).
            let mut generated = damas_rules::MoveList::new();
            damas_rules::legal_moves::<V>(&position, &mut generated);
            assert_eq!(generated.len() as u64, count_legal_moves::<V>(&position));
            let legal = game.legal_moves();
            assert!(legal.iter().all(|mv| generated.contains(mv)));
            let mv = legal[(next(&mut rng) % legal.len() as u64) as usize];
            for text in [
                pdn::<V>(&position, &mv, &legal),
                full_path::<V>(&position, &mv),
                hub::<V>(&mv),
            ] {
                assert_eq!(
                    parse_move::<V>(&position, &text),
                    Ok(mv),
                    "{fen}: `{text}` does not read back"
                );
            }
            let us = position.turn();
            let before = (position.pieces(us).count(), position.pieces(!us).count());
            game.play(&mv);
            let after = game.position();
            assert_eq!(
                after.pieces(us).count(),
                before.0 - mv.is_removal() as u32,
                "mover lost or gained pieces (other than by an opening removal)"
            );
            assert_eq!(
                after.pieces(!us).count(),
                before.1 - mv.captured_bits().count(),
                "captured set and piece count disagree"
            );
            assert_eq!(after.turn(), !us);
            played += 1;
        }
        (played, game.outcome().map(|o| o.to_string()))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn random_playouts_keep_invariants(variant in 0..Variant::ALL.len(), seed in any::<u64>()) {
        let (played, _) = Variant::ALL[variant].visit(Playout { seed, plies: 400 });
        prop_assert!(played > 0);
    }
}

/// Random games end by the rules (a win, or a draw rule) well before this many plies in every
/// variant: the draw rules bound a game without captures or promotions, and captures and
/// promotions are finite.
const END_BOUND: u32 = 3000;

#[test]
fn every_variant_plays_to_an_end() {
    for variant in Variant::ALL {
        for seed in 0..8 {
            let (played, outcome) = variant.visit(Playout {
                seed,
                plies: END_BOUND,
            });
            assert!(
                outcome.is_some(),
                "{variant} (seed {seed}): no outcome after {played} plies"
            );
            assert!(played < END_BOUND, "{variant} (seed {seed})");
        }
    }
}
