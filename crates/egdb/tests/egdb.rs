//! The solver against published counts, known endgame theory and its own verification pass.

use damas_egdb::build::{build, by_pieces};
use damas_egdb::verify::verify;
use damas_egdb::{Egdb, Indexer, Signature, Wdl};
use damas_rules::variants::{AntiEnglish, Antidraughts, English, International, Russian};
use damas_rules::{Color, Rules, parse_fen};

mod common;
use common::TempDir;

fn build_for<V: Rules>(dir: &TempDir, signatures: &[&str]) -> Egdb<V> {
    let wanted: Vec<Signature> = signatures.iter().map(|s| s.parse().unwrap()).collect();
    build::<V>(&dir.0, &wanted, |_, _, _| {}).unwrap().0
}

fn probe<V: Rules>(db: &Egdb<V>, fen: &str) -> Wdl {
    let position = parse_fen::<V>(fen).unwrap();
    db.probe(&position)
        .unwrap_or_else(|| panic!("{fen} has no table"))
        .wdl
}

/// Schaeffer et al., "Checkers Is Solved" (Science, 2007), table 1: positions with 1 to 4
/// pieces, every placement of men and kings of either colour (one-sided ones included), the
/// side to move not counted.
#[test]
fn english_placements_equal_the_checkers_proof() {
    english_placements(&[120, 6_972, 261_224, 7_092_774]);
}

/// The same table's 5-piece row (148,688,232 placements): about a minute of enumeration.
#[test]
#[ignore = "slow: run with --ignored"]
fn english_five_piece_placements_equal_the_checkers_proof() {
    english_placements(&[120, 6_972, 261_224, 7_092_774, 148_688_232]);
}

fn english_placements(published: &[u64]) {
    for (pieces, &expected) in (1..).zip(published) {
        let counted: u64 = Signature::up_to(pieces)
            .into_iter()
            .filter(|s| s.pieces() == pieces)
            .map(|s| {
                let indexer = Indexer::<English>::new(s);
                (0..indexer.size())
                    .filter(|&i| indexer.decode(i, Color::White).is_some())
                    .count() as u64
            })
            .sum();
        assert_eq!(counted, expected, "{pieces} pieces");
    }
}

#[test]
fn english_three_pieces_verify_and_match_the_published_counts() {
    let dir = TempDir::new("english3");
    let all = Signature::up_to(3);
    let (db, reports) = build::<English>(&dir.0, &all, |_, _, _| {}).unwrap();
    let totals = by_pieces(&reports);
    let placements: Vec<u64> = totals.iter().map(|t| t.placements).collect();
    assert_eq!(placements, [120, 6_972, 261_224]);
    let report = verify(&db, &all);
    assert_eq!(report.wrong, 0, "{:?}", report.examples);
    assert_eq!(report.unchecked, 0);
    assert_eq!(report.positions, 2 * (120 + 6_972 + 261_224));
    // Read back from the files: the same values.
    let reopened = Egdb::<English>::open(&dir.0).unwrap();
    for s in &all {
        assert_eq!(
            reopened.table(*s).unwrap().values(),
            db.table(*s).unwrap().values()
        );
    }
    assert_eq!(reopened.complete_pieces(), 3);
}

/// Two kings beat one king in English checkers (the lone king is driven out of the double
/// corner: R. Pask, "Starting Out in Checkers", 2001, chapter 1, "Two kings against one").
#[test]
fn english_two_kings_beat_one() {
    let dir = TempDir::new("english-2k1k");
    let db = build_for::<English>(&dir, &["w0.2-b0.1"]);
    // The lone king in the double corner, the two kings far away, either side to move.
    assert_eq!(probe(&db, "W:WK29,K25:BK1"), Wdl::Win);
    assert_eq!(probe(&db, "B:WK29,K25:BK1"), Wdl::Loss);
    assert_eq!(probe(&db, "W:WK29,K25:BK5"), Wdl::Win);
    // One king against one draws while the lone king holds a double corner.
    assert_eq!(probe(&db, "W:WK29:BK1"), Wdl::Draw);
    assert_eq!(probe(&db, "W:WK22:BK1"), Wdl::Draw);
}

/// Russian draughts: three kings against a lone king win when the lone king does not hold the
/// main road (the a1-h8 diagonal): Petrov's triangle; a lone king on the main road draws
/// (V. Gorodetsky, "Shashki", and the FMJD rules of Russian draughts, the 15-move rule for three
/// kings against one exists because the win takes up to that).
#[test]
fn russian_petrov_triangle() {
    let dir = TempDir::new("russian-3k1k");
    let db = build_for::<Russian>(&dir, &["w0.3-b0.1"]);
    // The lone king holds the main road: a draw with White to move.
    assert_eq!(probe(&db, "W:WKc1,Ke1,Kg1:BKa1"), Wdl::Draw);
    // The strong side holds the main road, the lone king is off it: a win.
    assert_eq!(probe(&db, "W:WKa1,Ke1,Kg1:BKb8"), Wdl::Win);
    // And every such win fits in the 15 moves the rule allows (30 plies): the longest takes 26.
    let signature = "w0.3-b0.1".parse::<Signature>().unwrap();
    let longest = db.table(signature).unwrap().max_plies();
    assert!(longest <= 30, "a win of {longest} plies");
}

/// International draughts: three kings cannot beat a lone king that holds the long diagonal
/// (FMJD rules, article 6.3 limits the ending to 16 moves because of this; in general the ending
/// is drawn).
#[test]
fn international_three_kings_against_one_on_the_long_diagonal_draw() {
    let dir = TempDir::new("international-3k1k");
    let db = build_for::<International>(&dir, &["w0.3-b0.1"]);
    assert_eq!(probe(&db, "W:WK48,K49,K50:BK46"), Wdl::Draw);
}

/// In the losing variants the results invert: a lone king that must give itself up wins.
#[test]
fn antienglish_inverts_the_results() {
    let dir = TempDir::new("antienglish");
    let db = build_for::<AntiEnglish>(&dir, &["w0.2-b0.1"]);
    let report = verify(&db, &db.signatures());
    assert_eq!(report.wrong, 0, "{:?}", report.examples);
    // White to move must capture the black king and is left with two kings: Black has no
    // piece and so no move, and wins.
    assert_eq!(probe(&db, "W:WK18,K29:BK14"), Wdl::Loss);
}

/// Antidraughts (losing draughts on the international board, the rule set's own text: "a side
/// with no legal move or no pieces wins"): a side whose only man is blocked wins at once, and
/// a side forced to take the last enemy piece loses, because the other side then has no piece.
#[test]
fn antidraughts_inverts_the_results() {
    let dir = TempDir::new("antidraughts");
    let db = build_for::<Antidraughts>(&dir, &["w1.0-b1.0", "w0.1-b0.1"]);
    let report = verify(&db, &db.signatures());
    assert_eq!(report.wrong, 0, "{:?}", report.examples);
    // White's man on 6 faces Black's man on 1 on the edge: it cannot move or take.
    let blocked = parse_fen::<Antidraughts>("W:W6:B1").unwrap();
    let mut moves = damas_rules::MoveList::new();
    damas_rules::legal_moves::<Antidraughts>(&blocked, &mut moves);
    assert!(moves.is_empty());
    assert_eq!(db.probe(&blocked).unwrap().plies, Some(0));
    assert_eq!(probe(&db, "W:W6:B1"), Wdl::Win);
    // White to move must take Black's last man and so leaves Black without a piece: Black wins.
    let forced = parse_fen::<Antidraughts>("W:W33:B28").unwrap();
    damas_rules::legal_moves::<Antidraughts>(&forced, &mut moves);
    assert!(
        moves.len() == 1 && moves.iter().all(|m| m.is_capture()),
        "{moves:?}"
    );
    assert_eq!(db.probe(&forced).unwrap().plies, Some(1));
    assert_eq!(probe(&db, "W:W33:B28"), Wdl::Loss);
    // In International the same position is White's win: it takes the last piece.
    assert_eq!(
        probe(
            &build_for::<International>(&TempDir::new("international-w1b1"), &["w1.0-b1.0"]),
            "W:W33:B28"
        ),
        Wdl::Win
    );
}
