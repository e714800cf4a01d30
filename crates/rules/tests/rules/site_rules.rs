//! Seed 000's site rules for international draughts (its own rule set, `international-site`) and
//! the FMJD endings clauses of seeds 002 and 001 that depend on where the kings stand. Written
//! from the seed texts before running the code.

use crate::common::play_quietly;
use damas_rules::variants::{International, InternationalSite, Spanish};
use damas_rules::{
    Bits, Color, DrawReason, Game, Geometry, Move, Outcome, Rules, Variant, WinReason, parse_fen,
    parse_move,
};

fn game<V: Rules>(fen: &str) -> Game<V> {
    Game::from_position(parse_fen::<V>(fen).unwrap_or_else(|e| panic!("{fen}: {e}")))
}

#[test]
fn site_rules_are_their_own_variant() {
    assert_eq!(
        "international-site".parse::<Variant>(),
        Ok(Variant::InternationalSite)
    );
    assert_eq!("site".parse::<Variant>(), Ok(Variant::InternationalSite));
    assert_eq!(InternationalSite::GAME_TYPE, International::GAME_TYPE);
}

#[test]
fn site_king_against_king_is_drawn_at_once() {
    // Seed 000: "Um final de jogo com uma rainha contra outra rainha é automaticamente declarado um
    // empate." FMJD gives the same ending five more moves each.
    let fen = "W:WK46:BK5";
    assert_eq!(
        game::<InternationalSite>(fen).outcome(),
        Some(Outcome::Draw(DrawReason::Endgame(0)))
    );
    assert_eq!(game::<International>(fen).outcome(), None);
    // Reached by a capture: drawn as soon as the capture is made.
    let mut site = game::<InternationalSite>("W:WK46:BK5,37");
    assert_eq!(site.outcome(), None);
    let mv = parse_move::<InternationalSite>(site.position(), "46x32").unwrap();
    site.play(&mv);
    assert_eq!(site.outcome(), Some(Outcome::Draw(DrawReason::Endgame(0))));
}

#[test]
fn site_game_stopped_by_the_move_cap_goes_to_more_pieces_then_more_kings() {
    // Seed 000: "Ganha o jogador com mais peças. Em caso de empate no número de peças, a vencedora
    // será a que tiver mais rainhas. Se também houver empate no número de rainhas, o jogo terminará
    // empatado."
    let white = |reason| Outcome::Win {
        winner: Color::White,
        reason,
    };
    let black = |reason| Outcome::Win {
        winner: Color::Black,
        reason,
    };
    let cap = |fen: &str| game::<InternationalSite>(fen).outcome_at_cap();
    assert_eq!(cap("W:W31,32,33:B1,2"), white(WinReason::Adjudication));
    assert_eq!(cap("W:W31,32:BK1,2"), black(WinReason::Adjudication));
    assert_eq!(
        cap("W:WK31,32:BK1,2"),
        Outcome::Draw(DrawReason::Adjudication)
    );
    // A game already over keeps its result.
    assert_eq!(cap("B:W31:B"), white(WinReason::OpponentCannotMove));
    // FMJD international: the cap is a draw whatever the material.
    assert_eq!(
        game::<International>("W:W31,32,33:B1,2").outcome_at_cap(),
        Outcome::Draw(DrawReason::Adjudication)
    );
}

#[test]
fn international_lone_king_alone_on_the_long_diagonal_gives_five_moves_even_if_it_leaves() {
    // Seed 002: "Três damas brancas contra uma dama preta sozinha na casa 28, a única peça na grande
    // diagonal. A partir daqui, a partida dura no máximo mais cinco lances de cada lado, mesmo que
    // a dama saia da diagonal depois." White's kings stay off the diagonal and never capture.
    let off_diagonal = |game: &Game<International>, mv: &Move<_>| {
        game.position().turn() == Color::Black
            || (!mv.is_capture()
                && !<International as Rules>::Geometry::LONG_DIAGONAL.has(mv.to_bit()))
    };
    let mut on = game::<International>("W:WK1,K2,K3:BK28");
    let outcomes = play_quietly(&mut on, 10, off_diagonal);
    assert!(outcomes[..9].iter().all(Option::is_none), "{outcomes:?}");
    assert_eq!(outcomes[9], Some(Outcome::Draw(DrawReason::Endgame(5))));
    // The same ending with the lone king off the diagonal runs on (16 moves each).
    let mut off = game::<International>("W:WK1,K2,K3:BK27");
    let outcomes = play_quietly(&mut off, 10, |game, mv| {
        off_diagonal(game, mv)
            && !<International as Rules>::Geometry::LONG_DIAGONAL.has(mv.to_bit())
    });
    assert!(outcomes.iter().all(Option::is_none), "{outcomes:?}");
}

#[test]
fn spanish_three_kings_count_thirteen_moves_only_with_one_on_the_main_diagonal() {
    // Seed 001: "Uma das jogadoras tem três rainhas, uma delas na diagonal principal (8 quadrados),
    // contra uma única rainha, e não consegue vencer em 13 movimentos." The main diagonal of the
    // mirrored Spanish board runs over squares 1, 5, 10, 14, 19, 23, 28 and 32.
    let diagonal = <Spanish as Rules>::Geometry::LONG_DIAGONAL;
    let numbers: Vec<u32> = (1..=32)
        .filter(|&n| {
            let square = damas_rules::notation::square_from_number::<Spanish>(n).unwrap();
            diagonal.has(<Spanish as Rules>::Geometry::bit(square))
        })
        .collect();
    assert_eq!(numbers, [1, 5, 10, 14, 19, 23, 28, 32]);
    // White starts with a king on 1 and never comes back to the diagonal once it leaves: the
    // count, once started, runs on. No capture by White.
    let quiet = |game: &Game<Spanish>, mv: &Move<_>| {
        game.position().turn() == Color::Black || (!mv.is_capture() && !diagonal.has(mv.to_bit()))
    };
    let mut with = game::<Spanish>("W:WK1,K2,K3:BK16");
    let outcomes = play_quietly(&mut with, 26, quiet);
    assert!(outcomes[..25].iter().all(Option::is_none), "{outcomes:?}");
    assert_eq!(outcomes[25], Some(Outcome::Draw(DrawReason::Endgame(13))));
    // With none of the three on the diagonal, only the 40 king moves count.
    let mut without = game::<Spanish>("W:WK2,K3,K4:BK16");
    let outcomes = play_quietly(&mut without, 26, quiet);
    assert!(outcomes.iter().all(Option::is_none), "{outcomes:?}");
}
