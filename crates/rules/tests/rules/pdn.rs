//! PDN game records: written games read back to the same moves; bad records name the line.

use damas_rules::variants::{English, International, Russian};
use damas_rules::{Game, parse_fen, parse_move, read_games, write_game};

fn play<V: damas_rules::Rules>(game: &mut Game<V>, moves: &[&str]) {
    for text in moves {
        let mv = parse_move::<V>(game.position(), text).unwrap();
        game.play(&mv);
    }
}

#[test]
fn written_games_read_back() {
    let mut game = Game::<International>::new();
    play(&mut game, &["32-28", "19-23", "28x19", "14x23"]);
    let text = write_game(&game, &[("Event", "test"), ("White", "a"), ("Black", "b")]);
    assert!(text.contains("[GameType \"20\"]"), "{text}");
    assert!(
        text.contains("\n1. 32-28 19-23 2. 28x19 14x23 *\n"),
        "{text}"
    );
    let games = read_games::<International>(&text).unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].game.moves(), game.moves());
    assert_eq!(games[0].tag("white"), Some("a"));
    assert_eq!(games[0].result.as_deref(), Some("*"));
}

#[test]
fn set_up_positions_and_black_first_variants() {
    // English: Black moves first, so move 1 is Black's.
    let mut game = Game::<English>::new();
    play(&mut game, &["11-15", "23-19"]);
    let text = write_game(&game, &[]);
    assert!(text.contains("\n1. 11-15 23-19 *\n"), "{text}");
    // A set-up position with the second mover to move starts with `1...`, and carries its FEN.
    let start = parse_fen::<Russian>("B:Wc3:Bf6").unwrap();
    let mut game = Game::<Russian>::from_position(start);
    play(&mut game, &["f6-e5"]);
    let text = write_game(&game, &[]);
    assert!(
        text.contains("[FEN \"B:Wc3:Bf6\"]") && text.contains("1... f6-e5"),
        "{text}"
    );
    let back = read_games::<Russian>(&text).unwrap();
    assert_eq!(back[0].game.moves(), game.moves());
    assert_eq!(back[0].game.start(), game.start());
}

#[test]
fn finished_games_carry_their_result_and_several_games_read() {
    let start = parse_fen::<International>("W:W28:B23").unwrap();
    let mut game = Game::<International>::from_position(start);
    play(&mut game, &["28x19"]);
    let one = write_game(&game, &[("Round", "1")]);
    assert!(
        one.contains("[Result \"2-0\"]") && one.trim_end().ends_with("2-0"),
        "{one}"
    );
    let two = format!("{one}\n{one}");
    let games = read_games::<International>(&two).unwrap();
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|g| g.result.as_deref() == Some("2-0")));
}

#[test]
fn bad_records_name_the_line() {
    let err = read_games::<International>("[Event \"x\"]\n[White x]\n1. 32-28 *").unwrap_err();
    assert_eq!(err.line, 2);
    assert!(err.message.contains("double quotes"), "{err}");
    let err =
        read_games::<International>("[Event \"x\"]\n\n1. 32-28 19-23\n2. 31-22 *").unwrap_err();
    assert_eq!(err.line, 4);
    assert!(
        err.to_string()
            .starts_with("PDN line 4: move 2: `31-22` is not a legal move"),
        "{err}"
    );
    let err = read_games::<International>("[FEN \"W:W3:B40\"]\n1. 32-28").unwrap_err();
    assert!(err.message.starts_with("bad FEN tag"), "{err}");
    let err = read_games::<International>("1. 32-28 {never closed").unwrap_err();
    assert!(err.message.contains("never closed"), "{err}");
    // Comments and NAGs are skipped.
    let ok = read_games::<International>("1. 32-28 {a comment} $1 19-23 *").unwrap();
    assert_eq!(ok[0].game.ply(), 2);
}
