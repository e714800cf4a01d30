//! The arena with an endgame database: games that reach it are adjudicated with its result,
//! and `alphabeta:...,egdb` players probe it.

use damas_arena::spec::PlayerSpec;
use damas_arena::{GameRules, PlayerError, PlayerSettings, play_game};
use damas_egdb::build::build;
use damas_egdb::{Egdb, Signature, Wdl};
use damas_rules::variants::English;
use damas_rules::{Bits, Game, Outcome, WinReason, parse_fen};
use std::path::PathBuf;
use std::sync::OnceLock;

/// English tables up to three pieces, built once per test process; their root.
fn tables() -> &'static PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("damas-arena-egdb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        build::<English>(&dir, &Signature::up_to(3), |_, _, _| {}).unwrap();
        dir
    })
}

#[test]
fn the_egdb_option_round_trips_and_needs_a_database() {
    let spec: PlayerSpec = "alphabeta:depth=4,egdb".parse().unwrap();
    assert_eq!(spec.to_string(), "alphabeta:depth=4,egdb");
    let error = spec
        .factory::<English>(&PlayerSettings::default())
        .err()
        .expect("no database given");
    assert!(matches!(error, PlayerError::NoEgdb { .. }), "{error}");
    let missing = PlayerSettings {
        egdb: Some(PathBuf::from("/nonexistent/egdb")),
        ..PlayerSettings::default()
    };
    let error = spec
        .factory::<English>(&missing)
        .err()
        .expect("no such directory");
    assert!(error.to_string().contains("/nonexistent/egdb"), "{error}");
}

#[test]
fn games_that_reach_the_tables_are_adjudicated_with_their_result() {
    let settings = PlayerSettings {
        egdb: Some(tables().clone()),
        ..PlayerSettings::default()
    };
    let db = settings.open_egdb::<English>().unwrap().unwrap();
    let with_tables: PlayerSpec = "alphabeta:depth=3,egdb".parse().unwrap();
    let without: PlayerSpec = "alphabeta:depth=3".parse().unwrap();
    let (with_tables, without) = (
        with_tables.factory::<English>(&settings).unwrap(),
        without.factory::<English>(&settings).unwrap(),
    );
    // Two men against two: a capture or two from the tables.
    let mut adjudicated = 0;
    let openings = [
        "B:W22,23:B9,10",
        "W:W21,30:B11,12",
        "B:W18,27:B5,6",
        "W:W17,26:B14,15",
        "B:WK22,23:BK10",
        "W:W19,K27:B2,K16",
    ];
    for (seed, fen) in openings.into_iter().enumerate() {
        let opening = Game::<English>::from_position(parse_fen::<English>(fen).unwrap());
        let (mut white, mut black) = (with_tables(seed as u64), without(seed as u64));
        let played = play_game(
            white.as_mut(),
            black.as_mut(),
            opening,
            &GameRules::default(),
            Some(&*db),
        );
        let last = played.game.position();
        let Some(probe) = db.probe(last) else {
            // Ended before any capture, by the rules: never in the tables on the way.
            assert!(last.occupied().count() > 3, "{fen}: {}", played.reason);
            assert!(!played.reason.contains("endgame database"));
            continue;
        };
        adjudicated += 1;
        match (probe.wdl, played.outcome) {
            (Wdl::Draw, Outcome::Draw(_)) => {}
            (
                Wdl::Win | Wdl::Loss,
                Outcome::Win {
                    winner,
                    reason: WinReason::Adjudication,
                },
            ) => assert_eq!(winner == last.turn(), probe.wdl == Wdl::Win, "{fen}"),
            other => panic!("{fen}: {other:?}"),
        }
        assert!(
            played.reason.contains("endgame database"),
            "{}",
            played.reason
        );
    }
    assert!(
        adjudicated >= 3,
        "{adjudicated} of {} games",
        openings.len()
    );
}

#[test]
fn a_shared_database_is_opened_once() {
    let a = Egdb::<English>::open_shared(tables()).unwrap();
    let b = Egdb::<English>::open_shared(tables()).unwrap();
    assert!(std::sync::Arc::ptr_eq(&a, &b));
}
