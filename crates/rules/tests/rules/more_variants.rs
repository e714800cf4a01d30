//! Rule tests for Canadian, Killer, the losing variants, Frisian, Frysk! and Turkish: each position
//! and its exact expected move list were written down from the rule before running the code.

use crate::common::{algebraic_moves, moves_of, sorted};
use damas_rules::variants::{Antidraughts, Frisian, International, Turkish};
use damas_rules::{
    Color, Game, Outcome, Position, Rules, Variant, WinReason, parse_fen, parse_move, to_fen,
};

fn pdn_moves(variant: Variant, fen: &str) -> Vec<String> {
    sorted(moves_of(variant, fen).unwrap().into_iter().map(|m| m.pdn))
}

#[test]
fn start_positions_have_the_stated_men() {
    fn men<V: Rules>() -> (u32, u32) {
        let p = Position::<V::Geometry>::initial::<V>();
        (
            p.pieces(Color::White).count_ones_(),
            p.pieces(Color::Black).count_ones_(),
        )
    }
    trait CountOnes {
        fn count_ones_(self) -> u32;
    }
    impl<B: damas_rules::Bits> CountOnes for B {
        fn count_ones_(self) -> u32 {
            self.count()
        }
    }
    assert_eq!(men::<damas_rules::variants::Canadian>(), (30, 30));
    assert_eq!(men::<damas_rules::variants::Frysk>(), (5, 5));
    assert_eq!(men::<Turkish>(), (16, 16));
    assert_eq!(men::<damas_rules::variants::Thai>(), (8, 8));
    // Turkish men stand on the second and third rows, Frysk! men on the back rows.
    assert_eq!(
        to_fen::<Turkish>(&Position::initial::<Turkish>()),
        "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7"
    );
    assert_eq!(
        to_fen::<damas_rules::variants::Frysk>(&Position::initial::<damas_rules::variants::Frysk>()),
        "W:W46,47,48,49,50:B1,2,3,4,5"
    );
}

#[test]
fn killer_king_taking_a_king_last_lands_right_behind_it() {
    // The king on 46 takes the king on 37 last (nothing to take beyond): in international it may
    // stop on any free square past it, in killer only on 32, right behind.
    assert_eq!(
        pdn_moves(Variant::International, "W:WK46:BK37"),
        ["46x10", "46x14", "46x19", "46x23", "46x28", "46x32", "46x5"]
    );
    assert_eq!(pdn_moves(Variant::Killer, "W:WK46:BK37"), ["46x32"]);
    // Taking a man last, the killer king lands anywhere behind it, as in international.
    assert_eq!(
        pdn_moves(Variant::Killer, "W:WK46:B37"),
        pdn_moves(Variant::International, "W:WK46:B37")
    );
}

#[test]
fn losing_variants_reward_the_side_that_cannot_move() {
    // Black has no piece: in international White has won, in antidraughts Black has.
    let fen = "B:W28:B";
    let normal = Game::<International>::from_position(parse_fen::<International>(fen).unwrap());
    assert_eq!(
        normal.outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::OpponentCannotMove
        })
    );
    let losing = Game::<Antidraughts>::from_position(parse_fen::<Antidraughts>(fen).unwrap());
    assert_eq!(
        losing.outcome(),
        Some(Outcome::Win {
            winner: Color::Black,
            reason: WinReason::CannotMove
        })
    );
    assert_eq!(
        losing.outcome().unwrap().to_string(),
        "black wins: black has no legal move left"
    );
    // Same move rules: captures stay compulsory.
    assert_eq!(pdn_moves(Variant::Antidraughts, "W:W28:B23"), ["28x19"]);
    assert_eq!(pdn_moves(Variant::AntiEnglish, "B:W23:B18"), ["18x27"]);
}

#[test]
fn canadian_start_and_long_capture() {
    // 12x12: White's front row is 46-51 after 30 men on 43..72; the first moves go from 43-48.
    assert_eq!(
        moves_of(Variant::Canadian, "W:W43-72:B1-30").unwrap().len(),
        11
    );
    // A man on 62 takes 56 and lands on 49 (a 12x12 board, six squares per row).
    assert_eq!(pdn_moves(Variant::Canadian, "W:W62:B56"), ["62x49"]);
}

#[test]
fn frisian_men_capture_along_columns_and_rows() {
    // Positions.json has 33x13 (column). Along a row: the man on 33 takes 34 and lands on 35.
    assert_eq!(pdn_moves(Variant::Frisian, "W:W33:B34"), ["33x35"]);
    // A king is worth more than a man: 33 may take the man on 28 (diagonally) or the king on 34
    // (along the row); only the king capture is legal.
    assert_eq!(pdn_moves(Variant::Frisian, "W:W33:B28,K34"), ["33x35"]);
    // Two men are worth more than one king: 28 and 17 rather than the king on 34.
    assert_eq!(pdn_moves(Variant::Frisian, "W:W33:B28,17,K34"), ["33x11"]);
    // Combinations mix directions: over 28 to 22, then along the row over the king on 23.
    assert_eq!(pdn_moves(Variant::Frisian, "W:W33:B28,K23"), ["33x24"]);
}

#[test]
fn frisian_king_may_not_move_four_times_in_a_row() {
    // White has a king and a man; after three moves with the king it must move something else.
    let mut game = Game::<Frisian>::from_position(parse_fen::<Frisian>("W:WK46,36:B1,15").unwrap());
    for (white, black) in [("46-41", "15-20"), ("41-46", "20-25"), ("46-41", "25-30")] {
        for text in [white, black] {
            let mv = parse_move::<Frisian>(game.position(), text).unwrap();
            game.play(&mv);
        }
    }
    let legal: Vec<u32> = game.legal_moves().iter().map(|m| m.from()).collect();
    let king_square = damas_rules::notation::square_from_number::<Frisian>(41).unwrap();
    let man_square = damas_rules::notation::square_from_number::<Frisian>(36).unwrap();
    assert_eq!(
        legal,
        [man_square],
        "only the man may move after three king moves in a row"
    );
    // Moving the man resets the count.
    for text in ["36-31", "30-35"] {
        let mv = parse_move::<Frisian>(game.position(), text).unwrap();
        game.play(&mv);
    }
    assert!(game.legal_moves().iter().any(|m| m.from() == king_square));
}

#[test]
fn turkish_men_move_forward_and_sideways() {
    // A white man on d4: up to d5, sideways to c4 and e4, never back or diagonally.
    assert_eq!(
        algebraic_moves(Variant::Turkish, "W:Wd4:Bh8"),
        ["d4-c4", "d4-d5", "d4-e4"]
    );
    // It captures forward and sideways, and must take the most: d4xd6xf6 (two) beats d4xb4 (one).
    assert_eq!(
        algebraic_moves(Variant::Turkish, "W:Wd4:Bd5,e6,c4"),
        ["d4xd6xf6"]
    );
}

#[test]
fn turkish_king_slides_orthogonally_and_never_over_pieces() {
    // The depth-5 disagreement of perft.md: a king's quiet move must stop at the first piece. The
    // king on a8 with its own man on a2 has a7..a3 and b8..h8; a8-a1 (over a2) is not a move.
    let moves = algebraic_moves(Variant::Turkish, "W:WKa8,a2:Bh5");
    let king: Vec<&String> = moves.iter().filter(|m| m.starts_with("a8")).collect();
    assert_eq!(king.len(), 12, "{moves:?}");
    assert!(!moves.contains(&"a8-a1".to_string()));
    assert_eq!(moves.len(), 14);
}

#[test]
fn turkish_captured_pieces_leave_at_once_and_kings_do_not_turn_back() {
    // King a1 takes a3 (landing a4..a8 allowed), then from a5 takes c5 eastwards... Build a case
    // where removal matters: king d1, black d3 and a man on b5; after d1xd4 (over d3) the king
    // turns west along rank 4? No piece there. Simpler: a piece removed at once frees its square,
    // so the king can pass it: king a1, black a3 and c4, e4: a1xa4 then east over c4 ... only if
    // the king lands on a4. From a4 east: b4 empty, c4 black, d4 empty -> take, land d4; then e4
    // is next to it with f4 empty -> take, land f4, g4 or h4.
    assert_eq!(
        algebraic_moves(Variant::Turkish, "W:WKa1:Ba3,c4,e4"),
        ["a1xa4xd4xf4", "a1xa4xd4xg4", "a1xa4xd4xh4"]
    );
    // No 180-degree turn: king a4 takes d4 eastwards landing e4..h4; it may not come back west
    // over the (removed) d4 square to take b4.
    assert_eq!(
        algebraic_moves(Variant::Turkish, "W:WKc4:Bd4,b4"),
        ["c4xa4", "c4xe4", "c4xf4", "c4xg4", "c4xh4"]
    );
}
