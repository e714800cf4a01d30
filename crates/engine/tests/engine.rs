//! Engine tests: forced wins found at a stated depth, and never an illegal move.

use damas_engine::{EngineConfig, Limits, MATE_BOUND, Searcher};
use damas_rules::notation::pdn;
use damas_rules::{
    Game, MoveList, Position, Rules, Variant, VariantVisitor, legal_moves, parse_fen,
};
use proptest::prelude::*;
use std::str::FromStr;

/// Positions with exactly one first move that leaves the opponent without a legal move within
/// seven plies, and no win within three: found by `examples/find_shots.rs` and proved again below
/// by exhaustive minimax, independently of the engine's search and evaluation.
const SHOTS: &[(&str, &str, &str)] = &[
    ("international", "W:W6,15,24,35,44:B23,30,34", "6-1"),
    ("international", "W:W14,19,21,32,41:B4,36", "41-37"),
    ("international", "W:W20,27,34:B9,16", "34-29"),
    ("russian", "W:Wg1,f2,c7:Bd4,e7", "f2-e3"),
    ("russian", "W:We1,a5,a7:Bh4,g5", "a7-b8"),
    ("russian", "W:Wd2,c5,e7:Bf4,a5", "e7-d8"),
    ("english", "W:W6,27,32:B7,18", "27-23"),
    ("english", "W:W5,18,20,26,27:B10,19", "20-16"),
    ("english", "W:W9,14,20:B2,12", "14-10"),
    ("italian", "W:W5,13,18,22,23:B1,8,16", "13-10"),
    ("italian", "W:W28,29,30:B13,15", "28-23"),
    ("frisian", "W:W21,28,35,37:B9,24", "28-23"),
    ("frisian", "W:W6,7,9,16,20:B23,27", "9-4"),
    ("turkish", "W:Wg2,g4,c7,g7,h7:Bf3,e6", "g2-f2"),
    ("turkish", "W:Wc1,b2,f7:Ba2,c3", "f7-f8"),
    ("canadian", "W:W18,40,55:B37,43", "18-12"),
    ("canadian", "W:W10,29,34,36:B6,21", "10-4"),
];

/// The side to move can leave the opponent without a legal move within `plies` plies.
fn wins<V: Rules>(position: &Position<V::Geometry>, plies: u32) -> bool {
    let mut list = MoveList::new();
    legal_moves::<V>(position, &mut list);
    plies > 0
        && list
            .iter()
            .any(|mv| loses::<V>(&position.after(mv), plies - 1))
}

/// The side to move cannot avoid being left without a legal move within `plies` plies.
fn loses<V: Rules>(position: &Position<V::Geometry>, plies: u32) -> bool {
    let mut list = MoveList::new();
    legal_moves::<V>(position, &mut list);
    list.is_empty()
        || (plies > 0
            && list
                .iter()
                .all(|mv| wins::<V>(&position.after(mv), plies - 1)))
}

struct Shot<'a>(&'a str, &'a str);

impl VariantVisitor for Shot<'_> {
    type Output = ();
    fn visit<V: Rules>(self) {
        let (fen, expected) = (self.0, self.1);
        let position = parse_fen::<V>(fen).unwrap();
        let mut list = MoveList::new();
        legal_moves::<V>(&position, &mut list);
        let winners: Vec<String> = list
            .iter()
            .filter(|mv| loses::<V>(&position.after(mv), 6))
            .map(|mv| pdn::<V>(&position, mv, &list))
            .collect();
        assert_eq!(
            winners,
            [expected],
            "{fen}: the exhaustive proof disagrees with the table"
        );
        let mut searcher = Searcher::<V>::new(EngineConfig::for_rules::<V>());
        let game = Game::<V>::from_position(position);
        let result = searcher.search(&game, &Limits::depth(7), |_| {});
        let best = result.best.expect("a move");
        assert_eq!(
            pdn::<V>(&position, &best, &list),
            expected,
            "{} {fen}",
            V::NAME
        );
        assert!(
            result.info.score > MATE_BOUND,
            "{fen}: the win is not seen as forced"
        );
    }
}

#[test]
fn finds_forced_wins_at_depth_seven() {
    for &(variant, fen, expected) in SHOTS {
        Variant::from_str(variant)
            .unwrap()
            .visit(Shot(fen, expected));
    }
}

/// Plays `plies` random moves from the start, then asks the engine for a move with a small node
/// budget and checks it is legal.
struct Legal {
    seed: u64,
    plies: u32,
}

impl VariantVisitor for Legal {
    type Output = ();
    fn visit<V: Rules>(self) {
        let mut game = Game::<V>::new();
        game.play_random(self.seed, self.plies);
        let mut config = EngineConfig::for_rules::<V>();
        config.tt_megabytes = 1;
        let mut searcher = Searcher::<V>::new(config);
        let limits = Limits {
            nodes: Some(2_000),
            ..Limits::default()
        };
        let result = searcher.search(&game, &limits, |_| {});
        let legal = game.legal_moves();
        match result.best {
            Some(mv) => assert!(legal.contains(&mv), "illegal move from the engine"),
            None => assert!(legal.is_empty()),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn never_returns_an_illegal_move(variant in 0..Variant::ALL.len(), seed in any::<u64>(), plies in 0u32..120) {
        Variant::ALL[variant].visit(Legal { seed, plies });
    }
}

/// Plays a won ending engine against engine at a fixed depth and returns the outcome.
struct Ending<'a>(&'a str, u32);

impl VariantVisitor for Ending<'_> {
    type Output = Option<damas_rules::Outcome>;
    fn visit<V: Rules>(self) -> Self::Output {
        let mut game = Game::<V>::from_position(parse_fen::<V>(self.0).unwrap());
        let mut searcher = Searcher::<V>::new(EngineConfig::for_rules::<V>());
        while game.outcome().is_none() && game.ply() < 200 {
            let best = searcher
                .search(&game, &Limits::depth(self.1), |_| {})
                .best
                .unwrap();
            game.play(&best);
        }
        game.outcome()
    }
}

#[test]
fn won_king_endings_are_won() {
    // The stronger side (White) must actually win these before any draw rule ends the game.
    for (variant, fen, depth) in [
        ("international", "W:WK1,K2,K3,K4:BK33", 8),
        ("international", "W:WK1,K2,K3,47:BK33", 8),
        ("english", "W:WK1,K2,K3:BK18", 8),
        // Two kings against one in the double corner need a deeper search (drawn at depth 8).
        ("english", "W:WK1,K2:BK18", 10),
        ("italian", "W:WK1,K2,K3:BK18", 8),
        ("russian", "W:WKc1,Ke1,Kg1,Kh2:BKb8", 8),
    ] {
        let outcome = Variant::from_str(variant)
            .unwrap()
            .visit(Ending(fen, depth));
        eprintln!("{variant} {fen}: {outcome:?}");
        assert!(
            matches!(
                outcome,
                Some(damas_rules::Outcome::Win {
                    winner: damas_rules::Color::White,
                    ..
                })
            ),
            "{variant} {fen}: {outcome:?}"
        );
    }
}

#[test]
fn respects_the_frisian_same_king_limit_at_the_root() {
    use damas_rules::variants::Frisian;
    // After three moves in a row with the king on 41, only the man may move (see the rules tests).
    let mut game = Game::<Frisian>::from_position(parse_fen::<Frisian>("W:WK46,36:B1,15").unwrap());
    for text in ["46-41", "15-20", "41-46", "20-25", "46-41", "25-30"] {
        let mv = damas_rules::parse_move::<Frisian>(game.position(), text).unwrap();
        game.play(&mv);
    }
    let mut searcher = Searcher::<Frisian>::new(EngineConfig::for_rules::<Frisian>());
    let best = searcher
        .search(&game, &Limits::depth(6), |_| {})
        .best
        .unwrap();
    assert!(game.legal_moves().contains(&best));
    assert_eq!(
        damas_rules::notation::square_number::<Frisian>(best.from()),
        36
    );
}
