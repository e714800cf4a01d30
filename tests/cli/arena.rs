//! Matches and tournaments: our own Hub engine, broken engines, SPRT, a DXP engine.

use crate::{damas, fresh_dir, stderr, stdout};
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `damas` with `args` in the directory `dir` (where default output folders go).
fn damas_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damas"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("damas starts")
}

#[test]
fn match_against_our_own_hub_engine_runs_to_the_end_and_resumes() {
    let dir = fresh_dir("match");
    let hub = format!("hub:\"{} hub\"", env!("CARGO_BIN_EXE_damas"));
    let out_dir = dir.join("m");
    let args = [
        "match",
        "--variant",
        "russian",
        &hub,
        "alphabeta:depth=2",
        "--games",
        "4",
        "--time",
        "0.05",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ];
    let out = damas(&args, "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("games 4:"), "{text}");
    assert!(text.contains("Elo (95%"), "{text}");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("results.json")).unwrap())
            .unwrap();
    let games = results["games"].as_array().unwrap();
    assert_eq!(games.len(), 4);
    assert!(
        games
            .iter()
            .all(|g| !g["reason"].as_str().unwrap().contains("forfeit")),
        "{games:?}"
    );
    let pdn = std::fs::read_to_string(out_dir.join("games.pdn")).unwrap();
    assert_eq!(pdn.matches("[Event \"damas arena\"]").count(), 4);
    assert!(
        std::fs::read_to_string(out_dir.join("results.csv"))
            .unwrap()
            .lines()
            .count()
            == 5
    );

    // Asking for more games plays only the new ones.
    let mut more = args.to_vec();
    more[6] = "6";
    let out = damas(&more, "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("games 6:"), "{}", stdout(&out));

    // A different pairing in the same directory is refused.
    let mut other = args.to_vec();
    other[4] = "alphabeta:depth=3";
    let out = damas(&other, "");
    assert!(!out.status.success());
    let error = stderr(&out);
    assert!(error.contains("use another --out"), "{error}");
    // The players it holds in plain words, not in Rust's debug form.
    assert!(error.contains(" and alphabeta:depth=2;"), "{error}");
    assert!(!error.contains("[\""), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_broken_engine_forfeits_and_the_tournament_goes_on() {
    let dir = fresh_dir("broken");
    let out_dir = dir.join("t");
    // One engine exits at once, one answers the handshake and then a nonsense move.
    let liar = "hub:\"printf 'wait\\nready\\ndone move=99-98\\n'; sleep 5\"";
    let args = [
        "tournament",
        "--variant",
        "russian",
        "--players",
        "alphabeta:depth=1",
        "hub:\"true\"",
        liar,
        "--rounds",
        "1",
        "--quiet",
        "--time",
        "0.05",
        "--out",
        out_dir.to_str().unwrap(),
    ];
    let out = damas(&args, "");
    assert!(out.status.success(), "{}", stderr(&out));
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("results.json")).unwrap())
            .unwrap();
    let games = results["games"].as_array().unwrap();
    assert_eq!(games.len(), 6, "every pairing played");
    let reasons: Vec<&str> = games
        .iter()
        .map(|g| g["reason"].as_str().unwrap())
        .collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("forfeits: the engine exited")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("bad move `99-98`")),
        "{reasons:?}"
    );
    assert!(
        stdout(&out).contains("alphabeta:depth=1"),
        "{}",
        stdout(&out)
    );
    let ratings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("ratings.json")).unwrap())
            .unwrap();
    assert_eq!(ratings.as_array().unwrap().len(), 3);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sprt_stops_a_lopsided_match_early() {
    let dir = fresh_dir("sprt");
    let args = [
        "match",
        "--variant",
        "english",
        "alphabeta:depth=4",
        "random",
        "--games",
        "400",
        "--sprt",
        "0,50,0.05,0.05",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ];
    let out = damas(&args, "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("H1 accepted"), "{text}");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    assert!(
        results["games"].as_array().unwrap().len() < 100,
        "stopped early"
    );
    let out = damas(
        &[
            "match",
            "--variant",
            "english",
            "random",
            "random",
            "--sprt",
            "5,0,0.05,0.05",
        ],
        "",
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("elo0 < elo1"), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn match_against_a_dxp_engine_listening_on_loopback() {
    let dir = fresh_dir("dxp-match");
    // Our own DXP engine as the outside engine, on a free port, for two games.
    let mut engine = Command::new(env!("CARGO_BIN_EXE_damas"))
        .args([
            "dxp",
            "--listen",
            "0",
            "--games",
            "2",
            "--engine",
            "alphabeta:depth=2",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The reader lives to the end of the test: the engine logs every game to its stdout.
    let mut engine_out = std::io::BufReader::new(engine.stdout.take().unwrap());
    let mut first_line = String::new();
    std::io::BufRead::read_line(&mut engine_out, &mut first_line).unwrap();
    let address = first_line.trim().rsplit(' ').next().unwrap().to_string();
    let player = format!("dxp:{address}");
    let out_dir = dir.join("m");
    let out = damas(
        &[
            "match",
            "--variant",
            "international",
            &player,
            "alphabeta:depth=1",
            "--games",
            "2",
            "--quiet",
            "--time",
            "0.5",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("results.json")).unwrap())
            .unwrap();
    let games = results["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    assert!(
        games
            .iter()
            .all(|g| !g["reason"].as_str().unwrap().contains("forfeit")),
        "{games:?}"
    );
    let _ = engine.kill();
    let _ = engine.wait();
    drop(engine_out);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn command_line_values_are_checked_and_named() {
    let cases: [(&[&str], &str); 7] = [
        (
            &[
                "match",
                "--variant",
                "russian",
                "random",
                "random",
                "--games",
                "0",
            ],
            "'0' for '--games",
        ),
        (
            &[
                "match",
                "--variant",
                "russian",
                "random",
                "random",
                "--concurrency",
                "0",
            ],
            "'0' for '--concurrency",
        ),
        (
            &[
                "match",
                "--variant",
                "russian",
                "random",
                "random",
                "--time=-1",
            ],
            "'-1' for '--time",
        ),
        (
            &[
                "match",
                "--variant",
                "russian",
                "alphabeta:depth=0",
                "random",
            ],
            "depth=0: depth must be at least 1",
        ),
        (
            &["match", "--variant", "russian", "net:x,sims=0", "random"],
            "sims=0: sims must be at least 1",
        ),
        (
            &[
                "tournament",
                "--variant",
                "russian",
                "--players",
                "random",
                "random",
                "--rounds",
                "0",
            ],
            "'0' for '--rounds",
        ),
        (
            &[
                "selfplay",
                "--variant",
                "russian",
                "--games",
                "0",
                "--out",
                "nowhere",
            ],
            "'0' for '--games",
        ),
    ];
    for (args, named) in cases {
        let out = damas(args, "");
        assert!(!out.status.success(), "{args:?} was accepted");
        let error = stderr(&out);
        assert!(error.contains(named), "{args:?}: {error}");
    }
}

#[test]
fn default_folders_are_one_per_pairing_and_a_rerun_says_it_continues() {
    let dir = fresh_dir("match-defaults");
    let common = [
        "--variant",
        "russian",
        "--games",
        "2",
        "--max-plies",
        "40",
        "--quiet",
    ];
    let first = [
        &["match", "alphabeta:depth=2", "alphabeta:depth=1"],
        &common[..],
    ]
    .concat();
    let out = damas_in(&dir, &first);
    assert!(out.status.success(), "{}", stderr(&out));
    let folder = "runs/arena/match/russian/alphabeta-depth-2_vs_alphabeta-depth-1";
    assert!(stdout(&out).contains(folder), "{}", stdout(&out));
    assert!(dir.join(folder).join("results.json").exists());
    assert!(!stderr(&out).contains("continuing"), "{}", stderr(&out));

    // Other players in a row: their own folder, no clash.
    let second = [&["match", "random", "alphabeta:depth=1"], &common[..]].concat();
    let out = damas_in(&dir, &second);
    assert!(out.status.success(), "{}", stderr(&out));
    let other = "runs/arena/match/russian/random_vs_alphabeta-depth-1";
    assert!(dir.join(other).join("results.json").exists());

    // The first again: nothing left to play, and it says so.
    let out = damas_in(&dir, &first);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "continuing: 2 games already stored in {folder}, 0 to play; use --out for a fresh match"
        )),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("games 2:"), "{}", stdout(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_tournament_refuses_a_player_named_twice() {
    let dir = fresh_dir("duplicate-players");
    let out = damas_in(
        &dir,
        &[
            "tournament",
            "--variant",
            "russian",
            "--players",
            "random",
            "alphabeta:depth=1",
            "random",
        ],
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("player `random` is named twice"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.join("runs").exists(), "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn checkpoints_give_the_tournament_its_variant_and_columns_have_headers() {
    let dir = fresh_dir("checkpoint-variant");
    let checkpoints = dir.join("checkpoints");
    let init = |number: &str, variant: &str| {
        let out = damas(
            &[
                "model",
                "init",
                "--variant",
                variant,
                "--blocks",
                "1",
                "--channels",
                "8",
                "--out",
                checkpoints.join(number).to_str().unwrap(),
            ],
            "",
        );
        assert!(out.status.success(), "{}", stderr(&out));
    };
    init("000001", "russian");
    init("000002", "russian");
    let tournament = [
        "tournament",
        "--checkpoints",
        checkpoints.to_str().unwrap(),
        "--sims",
        "2",
        "--rounds",
        "1",
        "--max-plies",
        "12",
        "--quiet",
    ];
    let out = damas_in(&dir, &tournament);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let header = text.lines().next().unwrap_or_default();
    assert!(
        header.contains("player") && header.contains("#1") && header.contains("#2"),
        "{text}"
    );
    assert!(dir.join("runs/arena/tournament/russian").is_dir(), "{text}");

    // A --variant that is not the checkpoints' is refused, as are checkpoints that disagree.
    let out = damas_in(&dir, &[&tournament[..], &["--variant", "english"]].concat());
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--variant english given, but the checkpoints in"),
        "{}",
        stderr(&out)
    );
    init("000003", "english");
    let out = damas_in(&dir, &tournament);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("checkpoint 1 is for russian but checkpoint 3 for english"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_equal_time_match_gives_both_players_the_same_clock() {
    let dir = fresh_dir("equal-time");
    let out_dir = dir.join("m");
    let out = damas(
        &[
            "match",
            "--variant",
            "russian",
            "alphabeta:depth=6",
            "alphabeta:nodes=500",
            "--games",
            "2",
            "--equal-time",
            "0.01",
            "--max-plies",
            "40",
            "--quiet",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    // Both strings were rewritten to the same time per move; the match and its files say so.
    assert!(
        text.contains("alphabeta:time=0.01 vs alphabeta:time=0.01"),
        "{text}"
    );
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("results.json")).unwrap())
            .unwrap();
    assert_eq!(results["players"][0], results["players"][1], "{results}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_ladder_is_built_shown_and_climbed_from_the_command_line() {
    let dir = fresh_dir("ladder");
    let ladders = dir.join("ladders");
    let place = ["--variant", "russian", "--dir", ladders.to_str().unwrap()];
    let mut build = vec![
        "ladder",
        "build",
        "--rungs",
        "alphabeta:depth=1,alphabeta:depth=2,alphabeta:depth=3",
        "--games",
        "4",
        "--max-plies",
        "80",
        "--quiet",
    ];
    build.extend(place);
    let out = damas(&build, "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("russian ladder: 3 rungs"),
        "{}",
        stdout(&out)
    );
    assert!(ladders.join("russian.json").is_file());
    assert!(
        ladders
            .join("games/russian/alphabeta-depth-1_vs_alphabeta-depth-2/games.pdn")
            .is_file()
    );

    let mut show = vec!["ladder", "show"];
    show.extend(place);
    let out = damas(&show, "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("alphabeta:depth=3"),
        "{}",
        stdout(&out)
    );

    let rated = dir.join("rated");
    let mut rate = vec![
        "ladder",
        "rate",
        "random",
        "--rungs",
        "2",
        "--games",
        "2",
        "--max-plies",
        "80",
        "--quiet",
        "--out",
        rated.to_str().unwrap(),
    ];
    rate.extend(place);
    let out = damas(&rate, "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(
        text.matches("against alphabeta:depth=").count(),
        2,
        "{text}"
    );
    assert!(text.contains("random on the russian ladder:"), "{text}");

    // A ladder for another variant is not there: the error names the file.
    let out = damas(
        &[
            "ladder",
            "show",
            "--variant",
            "english",
            "--dir",
            ladders.to_str().unwrap(),
        ],
        "",
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("english.json"), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}
