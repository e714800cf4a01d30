//! Networks made from the command line, and network players without a simulation budget.

use crate::{damas, fresh_dir, stderr, stdout};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

#[test]
fn model_init_names_a_size_out_of_range_instead_of_panicking() {
    let dir = fresh_dir("model-init-size");
    let out_dir = dir.join("m0");
    let out = damas(
        &[
            "model",
            "init",
            "--variant",
            "russian",
            "--blocks",
            "0",
            "--channels",
            "0",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        "",
    );
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("`channels` = 0: 1 to 1024"), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    assert!(!out_dir.exists(), "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tiny untrained Russian checkpoint in `dir`, which plays with Gumbel search.
fn gumbel_model(dir: &std::path::Path) -> String {
    let model = dir.join("model");
    let out = damas(
        &[
            "model",
            "init",
            "--variant",
            "russian",
            "--blocks",
            "1",
            "--channels",
            "8",
            "--out",
            model.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let meta_path = model.join("meta.json");
    let mut meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&meta_path).unwrap()).unwrap();
    meta["search"] = serde_json::json!({"gumbel": true, "simulations": 32});
    std::fs::write(&meta_path, meta.to_string()).unwrap();
    model.to_str().unwrap().to_string()
}

#[test]
fn gumbel_players_bounded_by_time_plan_without_a_simulation_count() {
    let dir = fresh_dir("gumbel-time");
    let model = gumbel_model(&dir);

    // A match player with a time limit (`time=`) searches with no simulation count.
    let player = format!("net:{model},time=0.05,gumbel");
    let results = dir.join("match");
    let out = damas(
        &[
            "match",
            "--variant",
            "russian",
            &player,
            "alphabeta:depth=1",
            "--games",
            "2",
            "--quiet",
            "--out",
            results.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("games 2:"), "{}", stdout(&out));
    assert!(!stdout(&out).contains("forfeit"), "{}", stdout(&out));

    // The Hub server with a Gumbel model, bounded by a move time, then stopped from outside.
    let mut child = Command::new(env!("CARGO_BIN_EXE_damas"))
        .args(["hub", "--model", &model])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("damas hub starts");
    let mut input = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |line: &str| writeln!(input, "{line}").unwrap();
    let mut answer = |prefix: &str| loop {
        let line = lines.next().expect("an answer").unwrap();
        assert!(!line.starts_with("error"), "{line}");
        if line.starts_with(prefix) {
            return line;
        }
    };
    send("hub");
    answer("wait");
    send("init");
    answer("ready");
    send("level move-time=0.05");
    send("go");
    assert!(answer("done").starts_with("done move="));
    send("level nodes=1000000000");
    send("go");
    answer("info");
    send("stop");
    assert!(answer("done").starts_with("done move="));
    send("quit");
    assert!(child.wait().unwrap().success());
    let _ = std::fs::remove_dir_all(&dir);
}
