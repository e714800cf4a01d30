//! The rules commands: variants, moves, perft, play, and bad input.

use crate::{damas, stderr, stdout};

#[test]
fn variants_lists_every_variant() {
    let out = damas(&["variants"], "");
    assert!(out.status.success());
    let text = stdout(&out);
    for name in [
        "international",
        "brazilian",
        "russian",
        "english",
        "spanish",
        "portuguese",
        "italian",
        "czech",
        "pool",
        "thai",
        "canadian",
        "killer",
        "antidraughts",
        "antienglish",
        "frisian",
        "frysk",
        "turkish",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(name)),
            "{name} missing from:\n{text}"
        );
    }
}

#[test]
fn moves_json_gives_every_form() {
    let out = damas(
        &[
            "moves",
            "--variant",
            "international",
            "--fen",
            "W:WK46:B29,32,39",
            "--json",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let records: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0]["pdn"], "46x43");
    assert_eq!(records[0]["full"], "46x23x34x43");
    assert_eq!(records[0]["hub"], "46x43x29x32x39");
    assert_eq!(records[0]["from"], 46);
    assert_eq!(records[0]["captured"], serde_json::json!([29, 32, 39]));
    assert_eq!(records[1]["fen_after"], "B:WK48:B");
}

#[test]
fn moves_are_sorted_and_algebraic_where_the_variant_is() {
    let out = damas(&["moves", "--variant", "russian"], "");
    let lines: Vec<String> = stdout(&out).lines().map(String::from).collect();
    assert_eq!(
        lines,
        [
            "a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"
        ]
    );
}

#[test]
fn new_board_shapes_work_end_to_end() {
    // 12x12 (128-bit sets) and the orthogonal Turkish board, through moves and perft.
    let out = damas(&["perft", "--variant", "canadian", "--depth", "3"], "");
    assert!(stdout(&out).contains("1222"), "{}", stdout(&out));
    let out = damas(&["perft", "--variant", "turkish", "--depth", "4"], "");
    assert!(stdout(&out).contains("7538"), "{}", stdout(&out));
    let out = damas(
        &[
            "moves",
            "--variant",
            "turkish",
            "--fen",
            "W:Wd4:Bh8",
            "--json",
        ],
        "",
    );
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["pdn"], "d4-d5");
}

#[test]
fn perft_counts_and_divides() {
    let out = damas(
        &[
            "perft",
            "--variant",
            "international",
            "--depth",
            "4",
            "--divide",
            "--json",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let nodes: Vec<u64> = report["depths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["nodes"].as_u64().unwrap())
        .collect();
    assert_eq!(nodes, [9, 81, 658, 4265]);
    let divided: u64 = report["divide"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["nodes"].as_u64().unwrap())
        .sum();
    assert_eq!(divided, 4265);
    let keep = damas(
        &[
            "perft",
            "--variant",
            "brazilian",
            "--depth",
            "8",
            "--duplicates",
            "keep",
        ],
        "",
    );
    assert!(stdout(&keep).contains("907836"), "{}", stdout(&keep));
}

#[test]
fn bad_input_is_an_error_not_a_crash() {
    let out = damas(
        &["moves", "--variant", "international", "--fen", "W:W3:B40"],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("where it would have been crowned: 3"),
        "{}",
        stderr(&out)
    );
    let out = damas(&["perft", "--variant", "checkerz", "--depth", "1"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown variant `checkerz`"),
        "{}",
        stderr(&out)
    );
    let out = damas(
        &[
            "perft",
            "--variant",
            "russian",
            "--depth",
            "1",
            "--duplicates",
            "both",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn play_answers_bad_moves_and_goes_on() {
    let out = damas(
        &["play", "--variant", "international", "--seed", "7"],
        "foo\n31-22\n32-28\nmoves\nquit\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("error: `foo` is not a move"), "{text}");
    assert!(
        text.contains("error: `31-22` is not a legal move"),
        "{text}"
    );
    assert!(text.contains("Opponent plays"), "{text}");
    assert!(text.contains("legal moves:"), "{text}");
}

#[test]
fn play_to_the_end_reports_the_result() {
    // One capture from the end: after 28x19 Black has no piece left.
    let out = damas(
        &[
            "play",
            "--variant",
            "international",
            "--fen",
            "W:W28:B23",
            "--seed",
            "1",
        ],
        "28x19\n",
    );
    let text = stdout(&out);
    assert!(text.contains("Game over: white wins"), "{text}");
    assert!(text.contains("(2-0)"), "{text}");
}

#[test]
fn moves_perft_divide_and_play_list_moves_in_one_order() {
    // Each with the side to move, which `play` gives to the user.
    for (variant, fen, color) in [
        ("international", None, "white"),
        ("russian", None, "white"),
        ("hawaiian", None, "black"),
        ("international", Some("W:WK46,K50,31:B29,32,39,18"), "white"),
    ] {
        let mut args = vec!["--variant", variant];
        if let Some(fen) = fen {
            args.extend(["--fen", fen]);
        }
        let moves = damas(&[&["moves"], &args[..]].concat(), "");
        assert!(moves.status.success(), "{}", stderr(&moves));
        let listed: Vec<String> = stdout(&moves).lines().map(String::from).collect();
        let divide = damas(
            &[&["perft", "--depth", "1", "--divide"], &args[..]].concat(),
            "",
        );
        assert!(divide.status.success(), "{}", stderr(&divide));
        let divided: Vec<String> = stdout(&divide)
            .lines()
            .filter(|l| !l.starts_with(variant) && !l.starts_with("depth"))
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect();
        assert_eq!(listed, divided, "{variant} {fen:?}");
        let play = damas(
            &[&["play", "--seed", "1", "--color", color], &args[..]].concat(),
            "moves\nquit\n",
        );
        let text = stdout(&play);
        let line = text
            .lines()
            .find_map(|l| l.split("legal moves: ").nth(1))
            .unwrap_or_else(|| panic!("{text}"));
        assert_eq!(line.split(' ').collect::<Vec<_>>(), listed, "{variant}");
    }
}

#[test]
fn perft_depth_zero_counts_the_position_and_counts_are_singular_when_one() {
    let out = damas(&["perft", "--variant", "russian", "--depth", "0"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let depth_line = stdout(&out)
        .lines()
        .find(|l| l.starts_with("depth"))
        .map(String::from)
        .unwrap_or_else(|| panic!("{}", stdout(&out)));
    assert_eq!(
        depth_line.split_whitespace().take(3).collect::<Vec<_>>(),
        ["depth", "0", "1"]
    );
    // White must take: one legal move.
    let out = damas(
        &["moves", "--variant", "international", "--fen", "W:W28:B23"],
        "",
    );
    assert_eq!(stderr(&out).trim(), "1 legal move");
}

#[test]
fn play_shows_examples_of_the_variant_and_a_legend_of_its_letters() {
    // Russian writes squares algebraically; its first sorted moves are the examples.
    let out = damas(&["play", "--variant", "russian", "--seed", "1"], "quit\n");
    let text = stdout(&out);
    assert!(text.contains("such as `a3-b4` or `c3-b4`"), "{text}");
    assert!(!text.contains("32-28"), "{text}");
    assert!(text.contains("w/b man, W/B king; . empty"), "{text}");
    // Hawaiian opens with a removal: its square alone; men never crown there.
    let out = damas(
        &[
            "play",
            "--variant",
            "hawaiian",
            "--color",
            "black",
            "--seed",
            "1",
        ],
        "quit\n",
    );
    let text = stdout(&out);
    assert!(text.contains("White/Black: w/b man; . empty"), "{text}");
    let example = text
        .split("such as `")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(!example.contains('-') && !example.contains('x'), "{text}");
    // Parachute's third kind of piece is named.
    let out = damas(&["play", "--variant", "parachute", "--seed", "1"], "quit\n");
    let text = stdout(&out);
    assert!(text.contains("p/q parachutist"), "{text}");
    // The engine's score says its unit and whose it is.
    let out = damas(
        &[
            "play",
            "--variant",
            "international",
            "--color",
            "black",
            "--opponent",
            "alphabeta:depth=2",
        ],
        "quit\n",
    );
    let text = stdout(&out);
    assert!(text.contains(" men for white,"), "{text}");
}
