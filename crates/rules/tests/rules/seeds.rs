//! Rule tests built from the rule texts (shared/seeds) and the rule list: each position and
//! its exact expected move list were written down from the rule before running the code.

use crate::common::{algebraic_moves, moves_of, sorted};
use damas_rules::variants::{English, International};
use damas_rules::{
    DrawReason, Game, Outcome, ParseMoveError, Variant, WinReason, parse_fen, parse_move,
};

fn pdn_moves(variant: Variant, fen: &str) -> Vec<String> {
    sorted(moves_of(variant, fen).unwrap().into_iter().map(|m| m.pdn))
}

#[test]
fn international_man_captures_backwards() {
    // Seed 002: "a pedra preta da casa 33 está atrás da pedra branca da casa 28 ... 28x39 é o único lance".
    assert_eq!(
        pdn_moves(Variant::International, "W:W28,40:B33,10"),
        ["28x39"]
    );
}

#[test]
fn international_majority_counts_kings_as_one() {
    // Seed 002: "33x11 é o único lance possível. Ele toma a pedra da casa 28 e a dama da casa 17".
    assert_eq!(
        pdn_moves(Variant::International, "W:W33:B28,K17,29"),
        ["33x11"]
    );
}

#[test]
fn international_man_passing_the_crown_row_stays_a_man() {
    // Seed 002: "O único lance das brancas é 11x13. A pedra toca a casa 2 ... termina na 13 como pedra."
    let position = parse_fen::<International>("W:W11:B7,8").unwrap();
    let mv = parse_move::<International>(&position, "11x13").unwrap();
    assert!(!mv.promotes());
    assert_eq!(
        damas_rules::to_fen::<International>(&position.after(&mv)),
        "B:W13:B"
    );
}

#[test]
fn czech_king_must_capture_when_it_can() {
    // The man c3 could take d4, but the king a7 can capture too, so only king captures are legal;
    // after b6 it must go on over d4 and may stop on any free square behind it.
    assert_eq!(
        algebraic_moves(Variant::Czech, "W:Wc3,Ka7:Bd4,b6"),
        ["a7xc5xe3", "a7xc5xf2", "a7xc5xg1"]
    );
    // Russian has free choice: the man's capture is legal too.
    assert_eq!(
        algebraic_moves(Variant::Russian, "W:Wc3,Ka7:Bd4,b6"),
        ["a7xc5xe3", "a7xc5xf2", "a7xc5xg1", "c3xe5"]
    );
}

#[test]
fn italian_prefers_a_capture_by_a_king() {
    // Mirrored board (a1 light). Man d3 can take e4, king a2 can take b3: one piece each, and the
    // Italian order prefers the capture made with a king.
    assert_eq!(
        algebraic_moves(Variant::Italian, "W:Wd3,Ka2:Be4,b3"),
        ["a2xc4"]
    );
}

#[test]
fn spanish_prefers_taking_kings() {
    // d3xf5 and f3xd5 take a man, f3xh5 takes the king on g4: the quality rule leaves only that.
    assert_eq!(
        algebraic_moves(Variant::Spanish, "W:Wd3,f3:Be4,Kg4"),
        ["f3xh5"]
    );
    // Russian, on its unmirrored board (files reflected): free choice keeps all three.
    assert_eq!(
        algebraic_moves(Variant::Russian, "W:We3,c3:Bd4,Kb4").len(),
        3
    );
}

#[test]
fn thai_king_lands_right_behind() {
    // The king on a1 captures c3 from a distance but must land on d4, the square right behind.
    assert_eq!(algebraic_moves(Variant::Thai, "W:WKa1:Bc3"), ["a1xd4"]);
    // Czech kings may land anywhere behind.
    assert_eq!(
        algebraic_moves(Variant::Czech, "W:WKa1:Bc3"),
        ["a1xd4", "a1xe5", "a1xf6", "a1xg7", "a1xh8"]
    );
}

#[test]
fn same_start_and_end_gets_the_full_path() {
    // English: the man on 30 reaches 14 over 25 and 17 or over 26 and 18.
    let fen = "W:W30:B25,17,26,18";
    assert_eq!(pdn_moves(Variant::English, fen), ["30x21x14", "30x23x14"]);
    let position = parse_fen::<English>(fen).unwrap();
    assert!(matches!(
        parse_move::<English>(&position, "30x14"),
        Err(ParseMoveError::Ambiguous { .. })
    ));
    let by_path = parse_move::<English>(&position, "30x21x14").unwrap();
    let by_hub = parse_move::<English>(&position, "30x14x17x25").unwrap();
    assert_eq!(by_path, by_hub);
}

/// Found by the random-playout property test: a Gothic king on f1 reaches h3 by one jump, or by
/// circling back through f1 first. The single jump's full path is its short form, `f1xh3`, and
/// it reads back as that move, not as an ambiguity.
#[test]
fn a_full_path_that_is_also_the_short_form_reads_back() {
    use damas_rules::variants::Gothic;
    let fen = "B:Wa1,c1,e1,g1,h1,c2,d2,e2,g2,h2,a3,b3,c3,d4:BKf1,a6,f6,h6,a7,b7,c7,d7,e7,a8,c8,d8,e8,f8,g8,h8";
    let paths: Vec<String> = moves_of(Variant::Gothic, fen)
        .unwrap()
        .into_iter()
        .map(|m| m.pdn)
        .filter(|pdn| pdn.starts_with("f1x") && pdn.ends_with("xh3"))
        .collect();
    assert_eq!(paths.len(), 3, "{paths:?}");
    let position = parse_fen::<Gothic>(fen).unwrap();
    for path in &paths {
        let mv = parse_move::<Gothic>(&position, path).unwrap();
        assert_eq!(
            damas_rules::notation::full_path::<Gothic>(&position, &mv),
            *path
        );
    }
}

#[test]
fn a_king_may_end_where_it_started() {
    // International: the man on 43 (f2) can take all four pieces round the diamond and come back to
    // its empty start square; both directions are the same unique move.
    assert_eq!(
        pdn_moves(Variant::International, "W:W43:B38,28,39,29"),
        ["43x43"]
    );
}

#[test]
fn threefold_repetition_draws() {
    let mut game = Game::<English>::from_position(parse_fen::<English>("W:WK29:BK4").unwrap());
    for _ in 0..2 {
        for text in ["29-25", "4-8", "25-29", "8-4"] {
            assert_eq!(game.outcome(), None);
            let mv = parse_move::<English>(game.position(), text).unwrap();
            game.play(&mv);
        }
    }
    assert_eq!(game.repetitions(), 3);
    assert_eq!(
        game.outcome(),
        Some(Outcome::Draw(DrawReason::Repetition(3)))
    );
    assert_eq!(game.king_move_plies(), 8);
}

#[test]
fn five_move_ending_draws_after_five_moves_each() {
    // Seed 002: two kings against one king: at most five more moves each. Play without repeating a
    // position (a win on the last counted move would take priority, but two kings cannot force one).
    let mut game =
        Game::<International>::from_position(parse_fen::<International>("W:WK46,K50:BK5").unwrap());
    let mut seen = vec![game.hash()];
    while game.outcome().is_none() {
        let legal = game.legal_moves();
        let mv = *legal
            .iter()
            .find(|mv| !seen.contains(&game.position().after(mv).hash()))
            .unwrap_or(&legal[0]);
        game.play(&mv);
        seen.push(game.hash());
    }
    assert_eq!(game.outcome(), Some(Outcome::Draw(DrawReason::Endgame(5))));
    assert_eq!(game.ply(), 10);
}

#[test]
fn a_side_without_moves_loses() {
    let game = Game::<International>::from_position(parse_fen::<International>("B:W6:B1").unwrap());
    // Black's only man on 1 is blocked... by nothing: it can move, so no outcome yet.
    assert_eq!(game.outcome(), None);
    let blocked =
        Game::<International>::from_position(parse_fen::<International>("W:W46:B41,37").unwrap());
    assert_eq!(
        blocked.outcome(),
        Some(Outcome::Win {
            winner: damas_rules::Color::Black,
            reason: WinReason::OpponentCannotMove,
        })
    );
    let none = Game::<International>::from_position(parse_fen::<International>("W:W:B1").unwrap());
    assert_eq!(
        none.outcome(),
        Some(Outcome::Win {
            winner: damas_rules::Color::Black,
            reason: WinReason::OpponentCannotMove,
        })
    );
}
