//! Runtime-to-generic bridges shared by the test topics.

use damas_rules::notation::{full_path, hub, pdn};
use damas_rules::{
    Duplicates, ParseFenError, Position, Rules, Variant, VariantVisitor, parse_fen, perft,
};

/// Parses `fen` (or takes the start) and counts perft leaves.
pub fn perft_of(
    variant: Variant,
    fen: Option<&str>,
    depth: u32,
    duplicates: Duplicates,
) -> Result<u64, ParseFenError> {
    struct Run<'a>(Option<&'a str>, u32, Duplicates);
    impl VariantVisitor for Run<'_> {
        type Output = Result<u64, ParseFenError>;
        fn visit<V: Rules>(self) -> Self::Output {
            let position = match self.0 {
                Some(fen) => parse_fen::<V>(fen)?,
                None => Position::initial::<V>(),
            };
            Ok(perft::<V>(&position, self.1, self.2))
        }
    }
    variant.visit(Run(fen, depth, duplicates))
}

/// A legal move written three ways.
#[derive(Debug, Clone)]
pub struct Written {
    pub pdn: String,
    pub full: String,
    pub hub: String,
}

/// The legal moves of a FEN, written in PDN, full path and Hub forms.
pub fn moves_of(variant: Variant, fen: &str) -> Result<Vec<Written>, ParseFenError> {
    struct Run<'a>(&'a str);
    impl VariantVisitor for Run<'_> {
        type Output = Result<Vec<Written>, ParseFenError>;
        fn visit<V: Rules>(self) -> Self::Output {
            let position = parse_fen::<V>(self.0)?;
            let mut list = damas_rules::MoveList::new();
            damas_rules::legal_moves::<V>(&position, &mut list);
            Ok(list
                .iter()
                .map(|mv| Written {
                    pdn: pdn::<V>(&position, mv, &list),
                    full: full_path::<V>(&position, mv),
                    hub: hub::<V>(mv),
                })
                .collect())
        }
    }
    variant.visit(Run(fen))
}

/// Sorted copy of strings, for comparing move sets.
pub fn sorted<I: IntoIterator<Item = String>>(items: I) -> Vec<String> {
    let mut v: Vec<String> = items.into_iter().collect();
    v.sort();
    v
}

/// The legal moves of a FEN as `from`/`x`/`to` in algebraic names (the diagram's files and ranks),
/// sorted: lets a test state a position on a mirrored board the way the rule text draws it.
pub fn algebraic_moves(variant: Variant, fen: &str) -> Vec<String> {
    struct Run<'a>(&'a str);
    impl VariantVisitor for Run<'_> {
        type Output = Vec<String>;
        fn visit<V: Rules>(self) -> Vec<String> {
            use damas_rules::notation::{algebraic_name, landing_squares};
            let position = parse_fen::<V>(self.0).expect("test FEN parses");
            let mut list = damas_rules::MoveList::new();
            damas_rules::legal_moves::<V>(&position, &mut list);
            sorted(list.iter().map(|mv| {
                let sep = if mv.is_capture() { "x" } else { "-" };
                let mut text = algebraic_name::<V>(mv.from());
                for square in landing_squares::<V>(&position, mv) {
                    text.push_str(sep);
                    text.push_str(&algebraic_name::<V>(square));
                }
                text
            }))
        }
    }
    variant.visit(Run(fen))
}

/// Plays `plies` moves, each the first legal one that `choose` accepts, that does not repeat a
/// position, and after which the other side has no capture if there is such a move; returns the
/// outcome after each ply. A way to walk a game towards a draw rule without help from it.
pub fn play_quietly<V: Rules>(
    game: &mut damas_rules::Game<V>,
    plies: u32,
    choose: impl Fn(&damas_rules::Game<V>, &damas_rules::Move<V::Geometry>) -> bool,
) -> Vec<Option<damas_rules::Outcome>> {
    let mut seen = vec![game.hash()];
    let mut outcomes = Vec::new();
    for _ in 0..plies {
        let legal = game.legal_moves();
        let allowed: Vec<damas_rules::Move<V::Geometry>> = legal
            .iter()
            .copied()
            .filter(|mv| {
                choose(game, mv) && !seen.contains(&(game.hash() ^ game.position().hash_change(mv)))
            })
            .collect();
        let safe = allowed.iter().find(|mv| {
            let mut after = game.clone();
            after.play(mv);
            after.legal_moves().iter().all(|reply| !reply.is_capture())
        });
        let mv = *safe.or(allowed.first()).expect("a move to play");
        game.play(&mv);
        seen.push(game.hash());
        outcomes.push(game.outcome());
    }
    outcomes
}
