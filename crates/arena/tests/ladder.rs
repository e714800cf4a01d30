//! A small stored ladder end to end: built from its pairs' matches, written and read back
//! unchanged (to the last bit of JSON's floats), resumed without new games, and a player rated on it from its own games agreeing
//! with the joint fit of every game within its interval.

use damas_arena::ladder::{LadderOptions, build_ladder, climb, ladder_pairs};
use damas_arena::{
    ArenaOptions, ClimbOptions, GameRules, PlayerSettings, Wdl, fit_ratings, read_ladder,
    write_ladder,
};
use damas_rules::Variant;
use std::path::PathBuf;

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("damas-ladder-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn arena(out: PathBuf) -> ArenaOptions {
    ArenaOptions {
        variant: Variant::Russian,
        openings: None,
        opening_plies: 4,
        concurrency: 2,
        settings: PlayerSettings::default(),
        rules: GameRules {
            max_plies: 150,
            ..GameRules::default()
        },
        out,
        seed: 3,
    }
}

#[test]
fn a_stored_ladder_rates_a_player_as_the_joint_fit_does() {
    let dir = fresh_dir("small");
    let rungs: Vec<String> = [1, 2, 4, 5]
        .iter()
        .map(|d| format!("alphabeta:depth={d}"))
        .collect();
    let options = LadderOptions {
        arena: arena(dir.join("games")),
        rungs: rungs.clone(),
        reach: 2,
        games: 8,
        timed_concurrency: 1,
    };
    let mut played = 0;
    let ladder = build_ladder(&options, &mut |_, p| {
        if p.resumed.is_none() {
            played += 1;
        }
    })
    .unwrap();
    assert_eq!(ladder.pairs.len(), ladder_pairs(4, 2).len());
    assert_eq!(played, 8 * ladder.pairs.len(), "every game reported once");
    assert_eq!(
        ladder.rungs[0].rating.elo, 0.0,
        "the first rung is the anchor"
    );

    // Written and read back unchanged; built again, it plays nothing and fits the same.
    let file = dir.join("russian.json");
    write_ladder(&file, &ladder).unwrap();
    let read = read_ladder(&file).unwrap();
    assert_eq!(read.pairs, ladder.pairs);
    assert_eq!((read.reach, read.games_per_pair), (2, 8));
    for (a, b) in read.rungs.iter().zip(&ladder.rungs) {
        assert_eq!(a.player, b.player);
        let close = |x: f64, y: f64| (x - y).abs() < 1e-9;
        assert!(close(a.rating.elo, b.rating.elo) && close(a.rating.low, b.rating.low));
    }
    let mut replayed = 0;
    let again = build_ladder(&options, &mut |_, p| {
        if p.resumed.is_none() {
            replayed += 1;
        }
    })
    .unwrap();
    assert_eq!(replayed, 0, "a built ladder resumes without new games");
    assert_eq!(again.rungs, ladder.rungs);

    // Depth 3 climbs the stored ladder: three rungs, eight games each.
    let climbed = climb(
        &ladder,
        &ClimbOptions {
            arena: arena(dir.join("depth-3")),
            player: "alphabeta:depth=3".into(),
            rungs: 3,
            games: 8,
            start: 0.0,
            timed_concurrency: 1,
        },
        &mut |_, _| {},
    )
    .unwrap();
    assert_eq!(climbed.against.len(), 3);
    assert_eq!(
        climbed.against[0].0, 0,
        "the bracket starts at the rung nearest 0"
    );
    let games: u32 = climbed.against.iter().map(|(_, w)| w.games()).sum();
    assert_eq!(games, 24);

    // The joint fit of every game (the ladder's and the player's, the player last).
    let n = rungs.len() + 1;
    let mut table = vec![vec![Wdl::default(); n]; n];
    for pair in &ladder.pairs {
        let a = ladder.position(&pair.first).unwrap();
        let b = ladder.position(&pair.second).unwrap();
        table[a][b] += pair.result;
        table[b][a] += pair.result.reversed();
    }
    for &(rung, result) in &climbed.against {
        table[n - 1][rung] += result;
        table[rung][n - 1] += result.reversed();
    }
    let joint = fit_ratings(&table, 0, 1.0)[n - 1];
    let stored = climbed.rating;
    assert!(
        stored.low <= joint.elo && joint.elo <= stored.high,
        "stored-ladder rating {stored:?} does not hold the joint fit {joint:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_ladder_file_that_is_not_one_names_the_file() {
    let dir = fresh_dir("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("russian.json");
    std::fs::write(&file, "{\"variant\": \"russian\"}").unwrap();
    let error = read_ladder(&file).unwrap_err();
    let text = format!("{error}");
    assert!(
        text.contains("russian.json") && text.contains("not a ladder"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
