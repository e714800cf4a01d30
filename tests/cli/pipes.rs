//! A closed pipe on standard output (`damas perft ... | head -2`) ends every command quietly:
//! each command below runs with a pipe whose reader is already gone, so its first write fails.

use crate::training::tiny_train_config;
use crate::{damas, fresh_dir, stderr};
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `damas args` with `stdin` and standard output a pipe nobody reads; returns the exit
/// code and standard error.
fn run_into_closed_pipe(args: &[&str], stdin: &str) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let mut child = Command::new(env!("CARGO_BIN_EXE_damas"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("damas starts");
    // The command may be done (and its stdin closed) before all of it is written.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn every_command_that_prints_ends_quietly_on_a_closed_pipe() {
    let dir = fresh_dir("pipes");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let model = path("model");
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
            &model,
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let config = tiny_train_config(&dir, "piped", 1);
    let config = config.to_str().unwrap();
    let ladders = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ladders");
    let (second, runs, onnx, selfplay, matches, tournament) = (
        path("m2"),
        path("runs"),
        path("m.onnx"),
        path("selfplay"),
        path("match"),
        path("tournament"),
    );
    let commands: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--help"], ""),
        (vec!["--version"], ""),
        (vec!["bench", "--help"], ""),
        (vec!["variants"], ""),
        (vec!["moves", "--variant", "russian"], ""),
        (
            vec![
                "perft",
                "--variant",
                "international",
                "--depth",
                "3",
                "--divide",
            ],
            "",
        ),
        (vec!["perft", "--variant", "russian", "--depth", "2"], ""),
        (vec!["play", "--variant", "russian"], "quit\n"),
        (vec!["hub"], "hub\ninit\nquit\n"),
        (
            vec!["model", "init", "--variant", "english", "--out", &second],
            "",
        ),
        (vec!["model", "eval", "--model", &model], ""),
        (
            vec!["ladder", "show", "--variant", "russian", "--dir", ladders],
            "",
        ),
        (vec!["export", "--model", &model, "--out", &onnx], ""),
        (
            vec![
                "selfplay",
                "--variant",
                "russian",
                "--model",
                "none",
                "--games",
                "1",
                "--quiet",
                "--out",
                &selfplay,
            ],
            "",
        ),
        (
            vec![
                "match",
                "--variant",
                "russian",
                "alphabeta:depth=1",
                "random",
                "--games",
                "2",
                "--out",
                &matches,
            ],
            "",
        ),
        (
            vec![
                "tournament",
                "--variant",
                "russian",
                "--players",
                "alphabeta:depth=1",
                "random",
                "--rounds",
                "1",
                "--out",
                &tournament,
            ],
            "",
        ),
        (
            vec!["train", "--config", config, "--runs", &runs, "--quiet"],
            "",
        ),
    ];
    for (args, stdin) in commands {
        let (code, stderr) = run_into_closed_pipe(&args, stdin);
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
            "damas {}: {stderr}",
            args.join(" ")
        );
        assert_eq!(code, Some(0), "damas {}: {stderr}", args.join(" "));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
