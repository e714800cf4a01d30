//! Rule tests for the rest of seed 003's table (shared/reference/brainking-variants.md): Corner,
//! One-way, Parachute, Gothic, Alquerque, Hawaiian (Konane) and Dameo. Each position and its exact
//! expected move list were written down from the rule text before running the code. Moves are
//! written with algebraic squares and every landing square, `=K` when a man is crowned, and a
//! removal of Konane's opening as its square alone.

use damas_rules::notation::{algebraic_name, landing_squares};
use damas_rules::variants::{Alquerque, Corner, Czech, Dameo, Gothic, Hawaiian, OneWay, Parachute};
use damas_rules::{
    Color, Game, MoveList, Outcome, Position, Rules, WinReason, legal_moves, parse_fen, parse_move,
    to_fen,
};

/// The legal moves of `fen` under `V`, written as the module doc says, sorted.
pub fn moves<V: Rules>(fen: &str) -> Vec<String> {
    let position = parse_fen::<V>(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    moves_at::<V>(&position)
}

/// The legal moves of `position` under `V`, written as the module doc says, sorted.
pub fn moves_at<V: Rules>(position: &Position<V::Geometry>) -> Vec<String> {
    let mut list = MoveList::new();
    legal_moves::<V>(position, &mut list);
    let mut written: Vec<String> = list
        .iter()
        .map(|mv| {
            let mut text = algebraic_name::<V>(mv.from());
            if !mv.is_removal() {
                let separator = if mv.is_capture() { "x" } else { "-" };
                for square in landing_squares::<V>(position, mv) {
                    text.push_str(separator);
                    text.push_str(&algebraic_name::<V>(square));
                }
            }
            if mv.promotes() {
                text.push_str("=K");
            }
            text
        })
        .collect();
    written.sort();
    written
}

/// Plays `moves` (any accepted notation) from `fen`.
fn after<V: Rules>(fen: &str, moves: &[&str]) -> Game<V> {
    let mut game = Game::<V>::from_position(parse_fen::<V>(fen).unwrap());
    for text in moves {
        let mv = parse_move::<V>(game.position(), text).unwrap_or_else(|e| panic!("{e}"));
        game.play(&mv);
    }
    game
}

// Corner checkers.

#[test]
fn corner_start_is_two_triangles_either_side_of_the_long_diagonal() {
    assert_eq!(
        to_fen::<Corner>(&Position::initial::<Corner>()),
        "W:Wc1,e1,g1,d2,f2,h2,e3,g3,f4,h4,g5,h6:Ba3,b4,a5,c5,b6,d6,a7,c7,e7,b8,d8,f8"
    );
    assert_eq!(
        moves::<Corner>(&to_fen::<Corner>(&Position::initial::<Corner>())),
        ["c1-b2", "d2-c3", "e3-d4", "f4-e5", "g5-f6", "h6-g7"]
    );
}

#[test]
fn corner_men_promote_only_on_the_two_far_left_corner_squares() {
    // White: a7 and b8 crown; f8 and h8, on the last row elsewhere, do not.
    assert_eq!(
        moves::<Corner>("W:Wb6,g7:Bd4"),
        ["b6-a7=K", "b6-c7", "g7-f8", "g7-h8"]
    );
    // A man left on the last row has no move left (Czech men move and capture forwards only).
    assert_eq!(moves::<Corner>("W:Wh8:Bd4"), Vec::<String>::new());
    // Black's squares are White's turned half a turn: h2 and g1.
    assert_eq!(
        moves::<Corner>("B:We5:Bg3,b2"),
        ["b2-a1", "b2-c1", "g3-f2", "g3-h2=K"]
    );
    // A man on a promotion square would have been crowned: such a FEN is refused, one elsewhere on
    // the last row is not.
    assert!(parse_fen::<Corner>("W:Wa7:Bd4").is_err());
    assert!(parse_fen::<Corner>("W:Wf8:Bd4").is_ok());
    // Czech would crown on h8.
    assert_eq!(moves::<Czech>("W:Wg7:Bd4"), ["g7-f8=K", "g7-h8=K"]);
}

// One-way checkers.

#[test]
fn oneway_start_is_ppdfs_white_on_files_a_to_d_unconfirmed() {
    // BrainKing's page shows the start as a picture only; ppdf's layout. White's men can only
    // leave from the sixth rank.
    let start = to_fen::<OneWay>(&Position::initial::<OneWay>());
    assert_eq!(
        start,
        "W:Wa1,c1,b2,d2,a3,c3,b4,d4,a5,c5,b6,d6:Be1,g1,f2,h2,e3,g3,f4,h4,e5,g5,f6,h6"
    );
    assert_eq!(
        moves::<OneWay>(&start),
        ["b6-a7", "b6-c7", "d6-c7", "d6-e7"]
    );
    // Black's men also go up: after b6-a7 Black's man e5 must take d6 towards rank 8.
    let game = after::<OneWay>(&start, &["b6-a7"]);
    assert_eq!(moves_at::<OneWay>(game.position()), ["e5xc7"]);
}

#[test]
fn oneway_black_men_move_and_promote_up_the_board() {
    assert_eq!(
        moves::<OneWay>("B:Wa1:Be3,g7"),
        ["e3-d4", "e3-f4", "g7-f8=K", "g7-h8=K"]
    );
    // Rank 1 is nobody's promotion row; rank 8 is both sides'.
    assert!(parse_fen::<OneWay>("B:Wa1:Be1").is_ok());
    assert!(parse_fen::<OneWay>("B:Wa1:Bf8").is_err());
    assert!(parse_fen::<OneWay>("B:Wd8:Be1").is_err());
}

// Parachute checkers.

#[test]
fn parachute_start_has_four_parachutists_each_on_the_opponents_back_row() {
    let start = Position::initial::<Parachute>();
    assert_eq!(
        to_fen::<Parachute>(&start),
        "W:Wb2,d2,f2,h2,a3,c3,e3,g3,Pb8,Pd8,Pf8,Ph8:BPa1,Pc1,Pe1,Pg1,b6,d6,f6,h6,a7,c7,e7,g7"
    );
    // At the start no parachutist can land: the squares behind the men are taken.
    assert_eq!(
        moves::<Parachute>(&to_fen::<Parachute>(&start)),
        [
            "a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"
        ]
    );
}

#[test]
fn parachutist_drops_lands_as_a_man_and_goes_on_capturing_forwards() {
    // The parachutist on d8 takes e7 and lands right behind it on f6, a man from there: it goes on
    // as a Czech man over g7 to h8, where it is crowned.
    assert_eq!(moves::<Parachute>("W:WPd8:Be7,g7,a5"), ["d8xf6xh8=K"]);
    // With nothing more to take it stays a man on f6.
    let game = after::<Parachute>("W:WPd8:Be7,a5", &["d8xf6"]);
    assert_eq!(to_fen::<Parachute>(game.position()), "B:Wf6:Ba5");
    // A parachutist has no other move.
    assert_eq!(moves::<Parachute>("W:WPd8:Ba5"), Vec::<String>::new());
    // Black's parachutists capture upwards, from rank 1 over rank 2.
    assert_eq!(moves::<Parachute>("B:Wd2,a5:BPc1"), ["c1xe3"]);
    // A parachutist stands only where parachutists start.
    assert!(parse_fen::<Parachute>("W:WPd6:Ba5").is_err());
    assert!(parse_fen::<Czech>("W:WPd8:Ba5").is_err());
}

#[test]
fn parachutist_capture_has_no_preference_over_a_mans_but_yields_to_a_kings() {
    // A man's and a parachutist's capture: free choice between them.
    assert_eq!(
        moves::<Parachute>("W:WPd8,c3:Be7,d4,a5"),
        ["c3xe5", "d8xf6"]
    );
    // Add a king that can capture: the Czech preference leaves only its capture (stopping on d6,
    // from where it goes on over e7).
    assert_eq!(
        moves::<Parachute>("W:WKh2,Pd8,c3:Be7,d4,a5,g3"),
        ["h2xd6xf8"]
    );
}

// Gothic checkers.

#[test]
fn gothic_men_move_forwards_diagonally_forwards_and_sideways_kings_one_square_anywhere() {
    assert_eq!(
        moves::<Gothic>("W:Wd4:Bh8"),
        ["d4-c4", "d4-c5", "d4-d5", "d4-e4", "d4-e5"]
    );
    assert_eq!(
        moves::<Gothic>("W:WKd4:Bh8"),
        [
            "d4-c3", "d4-c4", "d4-c5", "d4-d3", "d4-d5", "d4-e3", "d4-e4", "d4-e5"
        ]
    );
    // White fills ranks 1-2, Black ranks 7-8: 16 each, White first (BrainKing does not say).
    let start = Position::initial::<Gothic>();
    assert_eq!(start.turn(), Color::White);
    assert_eq!(moves::<Gothic>(&to_fen::<Gothic>(&start)).len(), 22);
}

#[test]
fn gothic_capture_is_free_and_crowning_ends_the_move() {
    // Over d5 (one piece) or over e5 and f7 (two): English rules, any sequence may be chosen.
    assert_eq!(moves::<Gothic>("W:Wd4:Bd5,e5,f7"), ["d4xd6", "d4xf6xf8=K"]);
    // Reaching the last row on d8 crowns the man and ends the move, though it could go on sideways
    // over e8.
    assert_eq!(moves::<Gothic>("W:Wd6:Bd7,e8,a2"), ["d6xd8=K"]);
    // Kings jump one square in any of the eight directions.
    assert_eq!(moves::<Gothic>("W:WKd4:Bc3,e5"), ["d4xb2", "d4xf6"]);
}

// Alquerque.

#[test]
fn alquerque_men_step_along_the_lines_forwards_and_sideways() {
    // c2 has no diagonal lines: up and sideways only.
    assert_eq!(moves::<Alquerque>("W:Wc2:Ba5"), ["c2-b2", "c2-c3", "c2-d2"]);
    // b2 lies on diagonals: also a3 and c3.
    assert_eq!(
        moves::<Alquerque>("W:Wb2:Ba5"),
        ["b2-a2", "b2-a3", "b2-b3", "b2-c2", "b2-c3"]
    );
    // A piece on b3 is not on a line from c2: no capture.
    assert_eq!(
        moves::<Alquerque>("W:Wc2:Bb3,a5"),
        ["c2-b2", "c2-c3", "c2-d2"]
    );
    // On the last row a man makes no more moves, unless it can jump (sideways).
    assert_eq!(moves::<Alquerque>("W:Wc5:Ba1"), Vec::<String>::new());
    assert_eq!(moves::<Alquerque>("W:Wc5:Bd5,a1"), ["c5xe5"]);
}

#[test]
fn alquerque_start_and_first_moves() {
    let start = Position::initial::<Alquerque>();
    assert_eq!(
        to_fen::<Alquerque>(&start),
        "W:Wa1,b1,c1,d1,e1,a2,b2,c2,d2,e2,d3,e3:Ba3,b3,a4,b4,c4,d4,e4,a5,b5,c5,d5,e5"
    );
    // Only the empty centre can be reached: from b2, c2 and d2 (diagonal through b2 and d2, up
    // from c2) and sideways from d3.
    assert_eq!(
        moves::<Alquerque>(&to_fen::<Alquerque>(&start)),
        ["b2-c3", "c2-c3", "d2-c3", "d3-c3"]
    );
}

#[test]
fn alquerque_first_jump_forwards_later_jumps_any_way_and_a_capture_is_completed() {
    // a1 jumps b2 diagonally forwards to c3, then turns backwards over d2 to e1; stopping on c3
    // is not a move.
    assert_eq!(moves::<Alquerque>("W:Wa1:Bb2,d2"), ["a1xc3xe1"]);
    // The first jump may not go backwards: c3 cannot take b2.
    assert_eq!(
        moves::<Alquerque>("W:Wc3:Bb2,a5"),
        ["c3-b3", "c3-b4", "c3-c4", "c3-d3", "c3-d4"]
    );
}

// Hawaiian checkers (Konane).

#[test]
fn konane_removal_opening() {
    let start = Position::initial::<Hawaiian>();
    assert_eq!(start.turn(), Color::Black);
    let fen = to_fen::<Hawaiian>(&start);
    // Black takes one of its own men off a8, h1, d5 or e4 ...
    assert_eq!(moves::<Hawaiian>(&fen), ["a8", "d5", "e4", "h1"]);
    // ... then White one of its own next to the hole.
    let game = after::<Hawaiian>(&fen, &["d5"]);
    assert_eq!(
        moves_at::<Hawaiian>(game.position()),
        ["c5", "d4", "d6", "e5"]
    );
    let corner = after::<Hawaiian>(&fen, &["a8"]);
    assert_eq!(moves_at::<Hawaiian>(corner.position()), ["a7", "b8"]);
    // Then the jumps: Black can only land on the light square d5.
    let game = after::<Hawaiian>(&fen, &["d5", "d4"]);
    assert_eq!(
        moves_at::<Hawaiian>(game.position()),
        ["b5xd5", "d7xd5", "f5xd5"]
    );
}

#[test]
fn konane_multiple_jump_keeps_its_line_and_may_stop_half_way() {
    // Each stop is a move; turning up over c5 from c4 is not allowed.
    assert_eq!(
        moves::<Hawaiian>("B:Wb4,d4,f4,c5:Ba4"),
        ["a4xc4", "a4xc4xe4", "a4xc4xe4xg4"]
    );
    // No quiet moves: a side without a jump has lost.
    let game = Game::<Hawaiian>::from_position(parse_fen::<Hawaiian>("W:Wa1:Bh8").unwrap());
    assert_eq!(
        game.outcome(),
        Some(Outcome::Win {
            winner: Color::Black,
            reason: WinReason::OpponentCannotMove
        })
    );
}

// Dameo.

#[test]
fn dameo_has_the_published_52_opening_moves_for_either_side() {
    let start = to_fen::<Dameo>(&Position::initial::<Dameo>());
    assert_eq!(
        start,
        "W:Wa1,b1,c1,d1,e1,f1,g1,h1,b2,c2,d2,e2,f2,g2,c3,d3,e3,f3:\
         Bc6,d6,e6,f6,b7,c7,d7,e7,f7,g7,a8,b8,c8,d8,e8,f8,g8,h8"
    );
    assert_eq!(moves::<Dameo>(&start).len(), 52);
    assert_eq!(moves::<Dameo>(&start.replacen('W', "B", 1)).len(), 52);
}

#[test]
fn dameo_linear_move_from_any_man_of_a_line_of_own_men() {
    // Up the c-file: c1 and c2 may move along the line to c4; diagonal lines too.
    assert_eq!(
        moves::<Dameo>("W:Wc1,c2,c3:Bh8"),
        [
            "c1-b2", "c1-c4", "c1-d2", "c2-b3", "c2-c4", "c2-d3", "c3-b4", "c3-c4", "c3-d4"
        ]
    );
    assert_eq!(
        moves::<Dameo>("W:Wa1,b2,c3:Bh8"),
        [
            "a1-a2", "a1-d4", "b2-a3", "b2-b3", "b2-d4", "c3-b4", "c3-c4", "c3-d4"
        ]
    );
}

#[test]
fn dameo_linear_move_blockers() {
    // An enemy piece beyond the line (c4, backed by c5 so that it cannot be taken) blocks it.
    assert_eq!(
        moves::<Dameo>("W:Wc1,c2,c3:Bc4,c5,h8"),
        ["c1-b2", "c1-d2", "c2-b3", "c2-d3", "c3-b4", "c3-d4"]
    );
    // An own king is no part of a line and blocks it too.
    let men: Vec<String> = moves::<Dameo>("W:Wc1,c2,c3,Kc4:Bh8")
        .into_iter()
        .filter(|m| !m.starts_with("c4"))
        .collect();
    assert_eq!(men, ["c1-b2", "c1-d2", "c2-b3", "c2-d3", "c3-b4", "c3-d4"]);
}

#[test]
fn dameo_captures_orthogonally_the_most_pieces() {
    // d4 may take d3 (one) or d5 and e6 (two): the majority rule leaves the second.
    assert_eq!(moves::<Dameo>("W:Wd4:Bd5,d3,e6,h8"), ["d4xd6xf6"]);
    // A king flies along the file and lands anywhere behind; the piece on c3 is on a diagonal,
    // which kings do not capture along.
    assert_eq!(
        moves::<Dameo>("W:WKa1:Ba4,c3,h8"),
        ["a1xa5", "a1xa6", "a1xa7", "a1xa8"]
    );
    // A man crossing the last row during a capture goes on as a man (one square sideways), and is
    // crowned where it stops.
    assert_eq!(moves::<Dameo>("W:Wd6:Bd7,e8,a2"), ["d6xd8xf8=K"]);
}

// Choices where BrainKing's pages are silent.

#[test]
fn brainking_variants_white_moves_first_unless_the_page_says_otherwise() {
    // BrainKing's pages do not say who starts, but Konane's ("Black player starts").
    let first = [
        Corner::FIRST_MOVER,
        OneWay::FIRST_MOVER,
        Parachute::FIRST_MOVER,
        Gothic::FIRST_MOVER,
        Alquerque::FIRST_MOVER,
        Dameo::FIRST_MOVER,
    ];
    assert!(first.iter().all(|&c| c == Color::White));
    assert_eq!(Hawaiian::FIRST_MOVER, Color::Black);
}

#[test]
fn alquerque_draws_by_repetition_across_sideways_steps_and_after_40_moves_each_without_capture() {
    // Two men each shuffle along their rows: a sideways step can be stepped back, so the
    // position repeats across men's moves.
    let mut game = after::<Alquerque>("W:Wa2,e2:Ba4,e4", &[]);
    for text in [
        "a2-b2", "a4-b4", "b2-a2", "b4-a4", "a2-b2", "a4-b4", "b2-a2", "b4-a4",
    ] {
        assert_eq!(game.outcome(), None);
        let mv = parse_move::<Alquerque>(game.position(), text).unwrap();
        game.play(&mv);
    }
    assert_eq!(
        game.outcome(),
        Some(Outcome::Draw(damas_rules::DrawReason::Repetition(3)))
    );
    // Without repeating, 80 plies without a capture end the game.
    let mut game = after::<Alquerque>("W:Wa1,c1,e1,b2,d2:Ba5,c5,e5,b4,d4", &[]);
    let sideways = |_: &Game<Alquerque>, mv: &damas_rules::Move<_>| {
        use damas_rules::Geometry;
        <Alquerque as Rules>::Geometry::row(mv.from())
            == <Alquerque as Rules>::Geometry::row(mv.to())
    };
    let outcomes = crate::common::play_quietly(&mut game, 80, sideways);
    assert!(outcomes[..79].iter().all(Option::is_none), "{outcomes:?}");
    assert_eq!(
        outcomes[79],
        Some(Outcome::Draw(damas_rules::DrawReason::NoCapture(80)))
    );
}

#[test]
fn dameo_draws_as_playstrategy_king_against_king_after_four_moves_each() {
    let mut game = after::<Dameo>("W:WKa1:BKh7", &[]);
    let outcomes = crate::common::play_quietly(&mut game, 8, |_, mv| !mv.is_capture());
    assert!(outcomes[..7].iter().all(Option::is_none), "{outcomes:?}");
    assert_eq!(
        outcomes[7],
        Some(Outcome::Draw(damas_rules::DrawReason::Endgame(4)))
    );
    // 25 king moves each without a capture (50 plies), and threefold repetition.
    assert_eq!(
        (Dameo::DRAW.king_move_plies, Dameo::DRAW.repetitions),
        (50, 3)
    );
}

#[test]
fn konane_has_no_draw_rule_since_every_move_captures() {
    let draw = Hawaiian::DRAW;
    assert_eq!(
        (
            draw.repetitions,
            draw.king_move_plies,
            draw.no_capture_plies,
            draw.endgames.len()
        ),
        (0, 0, 0, 0)
    );
    // After the opening, each move takes at least one piece.
    let mut game = Game::<Hawaiian>::new();
    game.play_random(7, 200);
    assert!(game.moves()[2..].iter().all(|mv| mv.is_capture()));
    assert!(game.outcome().is_some());
}

// Notation of the new kinds of move and piece.

#[test]
fn hub_positions_cannot_express_parachutists_and_say_so() {
    let start = Position::initial::<Parachute>();
    let error = damas_rules::try_to_hub::<Parachute>(&start).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the Hub protocol has no character for the parachutist on b8"
    );
    // Once the parachutists are gone the position is a Hub position again, and other new
    // boards are too (64 squares for Konane, 25 points for Alquerque).
    let position = parse_fen::<Parachute>("W:Wc3,Ke5:Bf6").unwrap();
    let hub = damas_rules::try_to_hub::<Parachute>(&position).unwrap();
    assert_eq!(damas_rules::parse_hub::<Parachute>(&hub).unwrap(), position);
    assert_eq!(
        damas_rules::to_hub::<Hawaiian>(&Position::initial::<Hawaiian>()).len(),
        65
    );
    assert_eq!(
        damas_rules::to_hub::<Alquerque>(&Position::initial::<Alquerque>()).len(),
        26
    );
    // A Hub man where parachutists stand would be one crowned too late: refused.
    let mut text = String::from("W");
    text.push('w');
    text.push_str(&"e".repeat(31));
    assert!(damas_rules::parse_hub::<Parachute>(&text).is_err());
}

#[test]
fn games_with_removals_and_drops_read_back_from_pdn() {
    fn round_trip<V: Rules>(seed: u64) -> usize {
        let mut game = Game::<V>::new();
        game.play_random(seed, 60);
        let text = damas_rules::write_game(&game, &[("Event", "test")]);
        let back = damas_rules::read_games::<V>(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back[0].game.moves(), game.moves(), "{text}");
        text.len()
    }
    for seed in 0..4 {
        round_trip::<Hawaiian>(seed);
        round_trip::<Parachute>(seed);
        round_trip::<Dameo>(seed);
        round_trip::<Alquerque>(seed);
    }
    // Konane's opening removals are written as their squares.
    let mut game = Game::<Hawaiian>::new();
    for text in ["d5", "d4"] {
        let mv = parse_move::<Hawaiian>(game.position(), text).unwrap();
        game.play(&mv);
    }
    let text = damas_rules::write_game(&game, &[]);
    assert!(text.contains("1. d5 d4 *"), "{text}");
}
