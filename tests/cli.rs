//! End-to-end tests of the `damas` binary.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn damas(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_damas"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("damas starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// An empty directory for one test, under the system's temporary directory.
fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("damas-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

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
        stderr(&out).contains("promotion row at 3"),
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

/// A Hub session driven line by line: each command is sent only after the previous reply arrived.
#[test]
fn hub_session_line_by_line() {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_damas"))
        .args(["hub", "--tt", "4"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("damas hub starts");
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |line: &str| writeln!(input, "{line}").unwrap();
    let mut next = move || output.next().expect("a reply").unwrap();

    send("hub");
    assert!(next().starts_with("id name=damas "));
    let variant = next();
    assert!(
        variant.starts_with("param name=variant value=normal type=enum values=\"normal "),
        "{variant}"
    );
    assert!(next().starts_with("param name=tt-size"));
    assert_eq!(next(), "wait");
    send("set-param name=variant value=checkerz");
    assert!(next().starts_with("error message=\"unknown variant `checkerz`"));
    send("set-param name=variant value=normal");
    send("init");
    assert_eq!(next(), "ready");
    send("set-param name=variant value=russian");
    assert_eq!(
        next(),
        "error message=\"the variant can only be set before init\""
    );
    send("new-game");
    send("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23\"");
    send("ping");
    assert_eq!(next(), "pong");
    send("pos moves=\"32-28 33-29\"");
    assert!(
        next().starts_with("error message=\"bad move: `33-29` is not a legal move"),
        "a move in the wrong turn"
    );
    send("pos pos=Wbbbb");
    assert!(next().starts_with("error message=\"bad position: a Hub position needs"));
    send("frobnicate now");
    assert_eq!(next(), "error message=\"unknown command `frobnicate`\"");
    send("level nonsense=3");
    assert_eq!(next(), "error message=\"unknown level `nonsense`\"");
    send("pos moves=\"32-28 19-23\"");
    send("level depth=4");
    send("go think");
    let mut infos = 0;
    let done = loop {
        let line = next();
        if line.starts_with("info ") {
            assert!(
                line.contains(" score=") && line.contains(" nodes=") && line.contains(" pv=\""),
                "{line}"
            );
            infos += 1;
        } else {
            break line;
        }
    };
    assert_eq!(infos, 4);
    // White must take: 28x19 capturing 23 is the only legal move.
    assert!(done.starts_with("done move=28x19x23"), "{done}");
    // An analysis runs until stopped.
    send("go analyze");
    std::thread::sleep(std::time::Duration::from_millis(200));
    send("stop");
    let done = loop {
        let line = next();
        if !line.starts_with("info ") {
            break line;
        }
    };
    assert!(done.starts_with("done move="), "{done}");
    send("quit");
    assert!(child.wait().unwrap().success());
}

/// Starts `damas dxp --listen 0` and returns the child with the address it printed.
fn dxp_listener(extra: &[&str]) -> (std::process::Child, String) {
    use std::io::{BufRead, BufReader};
    let mut args = vec!["dxp", "--listen", "0"];
    args.extend_from_slice(extra);
    let mut child = Command::new(env!("CARGO_BIN_EXE_damas"))
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("listener starts");
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut first)
        .unwrap();
    let address = first
        .trim()
        .strip_prefix("listening on ")
        .expect("address line")
        .to_string();
    (child, address)
}

#[test]
fn dxp_game_on_loopback_ends_with_gameend() {
    let (listener, address) = dxp_listener(&[
        "--engine",
        "alphabeta:depth=2",
        "--games",
        "1",
        "--max-plies",
        "120",
    ]);
    let out = Command::new(env!("CARGO_BIN_EXE_damas"))
        .args([
            "dxp",
            "--connect",
            &address,
            "--engine",
            "alphabeta:depth=1",
            "--max-plies",
            "120",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let log = stderr(&out);
    assert!(log.contains("dxp > R01damas"), "GAMEREQ sent:\n{log}");
    assert!(
        log.contains("dxp < Adamas                           0"),
        "GAMEACC received:\n{log}"
    );
    assert!(
        log.lines().any(|l| l.starts_with("dxp > M"))
            && log.lines().any(|l| l.starts_with("dxp < M"))
    );
    // Both GAMEEND messages: one sent, one received.
    assert!(log.lines().any(|l| l.starts_with("dxp > E")), "{log}");
    assert!(log.lines().any(|l| l.starts_with("dxp < E")), "{log}");
    assert!(stdout(&out).starts_with("game over: "), "{}", stdout(&out));
    let listener = listener.wait_with_output().unwrap();
    assert!(listener.status.success());
    assert!(String::from_utf8_lossy(&listener.stdout).contains("game over: "));
}

#[test]
fn dxp_refuses_a_bad_gamereq_and_stays_up() {
    use std::io::Read;
    let (mut listener, address) = dxp_listener(&["--engine", "random", "--games", "1"]);
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    stream.write_all(b"R99nobody\0").unwrap();
    let mut reply = Vec::new();
    let mut byte = [0u8];
    // The CHAT with the reason, then GAMEACC with code 2.
    let mut messages = Vec::new();
    while messages.len() < 2 {
        stream.read_exact(&mut byte).unwrap();
        if byte[0] == 0 {
            messages.push(String::from_utf8(std::mem::take(&mut reply)).unwrap());
        } else {
            reply.push(byte[0]);
        }
    }
    assert!(
        messages[0].starts_with("Crefused: GAMEREQ too short"),
        "{messages:?}"
    );
    assert!(
        messages[1].starts_with('A') && messages[1].ends_with('2'),
        "{messages:?}"
    );
    // Still up: a proper request is accepted on the same connection.
    stream
        .write_all(format!("R01{:<32}Z005000A\0", "tester").as_bytes())
        .unwrap();
    let mut accepted = Vec::new();
    loop {
        stream.read_exact(&mut byte).unwrap();
        if byte[0] == 0 {
            break;
        }
        accepted.push(byte[0]);
    }
    let accepted = String::from_utf8(accepted).unwrap();
    assert!(
        accepted.starts_with('A') && accepted.ends_with('0'),
        "{accepted}"
    );
    listener.kill().unwrap();
    let _ = listener.wait();
}

#[test]
fn selfplay_with_a_tiny_network_writes_shards_and_games() {
    let dir = fresh_dir("selfplay");
    let model = dir.join("model");
    let model = model.to_str().unwrap();
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
            model,
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let config = dir.join("selfplay.toml");
    std::fs::write(
        &config,
        "games_per_shard = 2\nfast_simulations = 4\nfull_search_fraction = 0.5\n[search]\nsimulations = 12\n",
    )
    .unwrap();
    let out_dir = dir.join("out");
    let args = [
        "selfplay",
        "--variant",
        "russian",
        "--model",
        model,
        "--games",
        "3",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ];
    let out = damas(&args, "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("3 games"), "{}", stdout(&out));
    let mut shards: Vec<_> = std::fs::read_dir(out_dir.join("shards"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    shards.sort();
    assert_eq!(shards, ["selfplay-000000.shard", "selfplay-000001.shard"]);
    let pdn = std::fs::read_to_string(out_dir.join("games/selfplay-000000.pdn")).unwrap();
    assert_eq!(pdn.matches("[GameType \"25\"]").count(), 2, "{pdn}");

    // A second run numbers its files after the first one's.
    let out = damas(&args, "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out_dir.join("shards/selfplay-000003.shard").exists());

    // Bad input: a checkpoint for another variant, a config with a typo.
    let mut wrong = args.to_vec();
    wrong[2] = "english";
    let out = damas(&wrong, "");
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("checkpoint is for variant `russian`"),
        "{}",
        stderr(&out)
    );
    std::fs::write(&config, "[search]\nsimulatoins = 12\n").unwrap();
    let out = damas(&args, "");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("simulatoins"), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads every checkpoint and shard of a run: nothing may be half written.
fn assert_run_intact(root: &std::path::Path) {
    for entry in std::fs::read_dir(root.join("checkpoints")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue; // a temporary directory of an interrupted write, never read
        }
        let meta = std::fs::read(path.join("meta.json")).expect("complete checkpoint");
        serde_json::from_slice::<serde_json::Value>(&meta).expect("meta.json parses");
        assert!(path.join("model.bpk").exists() && path.join("optimizer.bpk").exists());
    }
    for shard in damas_selfplay::list_shards(&root.join("shards")).unwrap() {
        damas_selfplay::Shard::read_for(&shard, "russian").expect("every shard reads");
    }
}

/// Writes a training config for a tiny Russian run named `name` into `dir`.
fn tiny_train_config(dir: &std::path::Path, name: &str, generations: u32) -> std::path::PathBuf {
    let config = dir.join(format!("{name}.toml"));
    std::fs::write(
        &config,
        format!(
            r#"name = "{name}"
variant = "russian"
generations = {generations}
games_per_generation = 6
[network]
blocks = 1
channels = 8
[selfplay]
fast_simulations = 4
full_search_fraction = 0.5
max_plies = 80
games_per_worker = 2
games_per_shard = 2
[selfplay.search]
simulations = 12
[training]
batch_size = 16
window_min = 50
[evaluation]
baseline_games = 2
previous_games = 2
simulations = 6
"#
        ),
    )
    .unwrap();
    config
}

#[test]
fn train_survives_kill_9_at_any_moment_and_resumes() {
    let dir = fresh_dir("kill");
    let config = tiny_train_config(&dir, "killed", 3);
    let runs = dir.join("runs");
    let args = [
        "train",
        "--config",
        config.to_str().unwrap(),
        "--runs",
        runs.to_str().unwrap(),
        "--quiet",
    ];
    let root = runs.join("killed");
    // Kill the run at several moments: as soon as a file appears, and after fixed delays.
    for delay_ms in [0u64, 150, 400, 900] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_damas"))
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        if root.exists() {
            assert_run_intact(&root);
        }
    }
    let out = damas(&args, "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_run_intact(&root);
    for generation in ["000000", "000001", "000002", "000003"] {
        assert!(
            root.join("checkpoints")
                .join(generation)
                .join("meta.json")
                .exists()
        );
    }
    assert!(root.join("checkpoints/000003/eval.json").exists());
    // Running again finds nothing to do.
    let out = damas(&args, "");
    assert!(out.status.success());
    assert!(!stdout(&out).contains("generation 4"), "{}", stdout(&out));
    let _ = std::fs::remove_dir_all(&dir);
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
    assert!(text.contains("Elo (95%:"), "{text}");
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
    assert!(
        stderr(&out).contains("use another --out"),
        "{}",
        stderr(&out)
    );
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
    let mut first_line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(engine.stdout.take().unwrap()),
        &mut first_line,
    )
    .unwrap();
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
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn export_writes_safetensors_that_an_independent_reader_opens() {
    let dir = fresh_dir("export");
    let model = dir.join("model");
    let out = damas(
        &[
            "model",
            "init",
            "--variant",
            "english",
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
    let file = dir.join("english.safetensors");
    let out = damas(
        &[
            "export",
            "--checkpoint",
            model.to_str().unwrap(),
            "--format",
            "safetensors",
            "--out",
            file.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let bytes = std::fs::read(&file).unwrap();
    let (_, header) = safetensors::SafeTensors::read_metadata(&bytes).expect("a safetensors file");
    let metadata = header.metadata().as_ref().expect("metadata");
    assert_eq!(metadata["damas.variant"], "english");
    assert_eq!(metadata["damas.encoding_version"], "2");
    assert_eq!(metadata["damas.board"], "8x8");
    assert!(
        metadata["damas.policy"].contains("[batch, 1024]"),
        "{metadata:?}"
    );
    let tensors = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let names: Vec<String> = tensors.names().into_iter().map(String::from).collect();
    assert!(
        names.iter().any(|n| n.starts_with("stem.conv")),
        "{names:?}"
    );
    let policy = names
        .iter()
        .find(|n| n.starts_with("policy_fc.weight"))
        .expect("policy weights");
    assert_eq!(tensors.tensor(policy).unwrap().shape(), [4 * 64, 1024]);

    // Bad input: not a checkpoint, and a format that does not exist.
    let out = damas(
        &[
            "export",
            "--checkpoint",
            dir.to_str().unwrap(),
            "--out",
            file.to_str().unwrap(),
        ],
        "",
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("not a checkpoint"),
        "{}",
        stderr(&out)
    );
    let out = damas(
        &[
            "export",
            "--checkpoint",
            model.to_str().unwrap(),
            "--format",
            "pickle",
            "--out",
            file.to_str().unwrap(),
        ],
        "",
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("[possible values: onnx, safetensors]"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `damas hub` child driven one command at a time, waiting for its answers.
struct HubEngine {
    child: std::process::Child,
    lines: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
}

impl HubEngine {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_damas"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        use std::io::BufRead;
        let lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        HubEngine { child, lines }
    }

    /// Sends `line` (a command with no answer; an error shows up at the next `ask`).
    fn send(&mut self, line: &str) {
        writeln!(self.child.stdin.as_mut().unwrap(), "{line}").unwrap();
    }

    /// Sends `line`, then reads until a line starting with `answer` and returns it.
    fn ask(&mut self, line: &str, answer: &str) -> String {
        self.send(line);
        loop {
            let got = self.lines.next().expect("an answer").unwrap();
            assert!(!got.starts_with("error"), "{line}: {got}");
            if got.starts_with(answer) {
                return got;
            }
        }
    }

    /// The moves the engine plays against itself for `plies` plies at `nodes` simulations.
    fn self_play(&mut self, plies: usize, nodes: u32) -> Vec<String> {
        self.ask("hub", "wait");
        self.ask("init", "ready");
        let mut moves: Vec<String> = Vec::new();
        for _ in 0..plies {
            self.send(&format!("pos moves=\"{}\"", moves.join(" ")));
            self.send(&format!("level nodes={nodes}"));
            let done = self.ask("go", "done");
            moves.push(done.strip_prefix("done move=").expect(&done).to_string());
        }
        moves
    }
}

impl Drop for HubEngine {
    fn drop(&mut self) {
        let _ = writeln!(self.child.stdin.as_mut().unwrap(), "quit");
        let _ = self.child.wait();
    }
}

/// The numbers of `damas model eval` output: the value line and each move's probability.
fn eval_numbers(output: &str) -> Vec<f64> {
    output
        .split_whitespace()
        .filter_map(|word| word.parse::<f64>().ok())
        .collect()
}

#[test]
fn an_exported_onnx_model_plays_like_its_checkpoint() {
    let dir = fresh_dir("onnx");
    // A briefly trained network, so that batch norm's running statistics are not the identity.
    let config = tiny_train_config(&dir, "exported", 1);
    let runs = dir.join("runs");
    let out = damas(
        &[
            "train",
            "--config",
            config.to_str().unwrap(),
            "--runs",
            runs.to_str().unwrap(),
            "--quiet",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let checkpoint = runs.join("exported/checkpoints/000001");
    let checkpoint = checkpoint.to_str().unwrap();
    let file = dir.join("russian.onnx");
    let file = file.to_str().unwrap();
    let out = damas(&["export", "--checkpoint", checkpoint, "--out", file], "");
    assert!(out.status.success(), "{}", stderr(&out));

    // The same value and move probabilities, from burn and from tract.
    for fen in [
        None,
        Some("W:WKa1,c3,e3,g3,h4:Bb6,d6,f8,h6,Kg1"),
        Some("B:Wa3,c3,e3,f4,g3,h2:Ba7,b6,d6,e7,f8,g7"),
    ] {
        let eval = |model: &str| {
            let mut args = vec!["model", "eval", "--model", model];
            if let Some(fen) = fen {
                args.extend(["--fen", fen]);
            }
            let out = damas(&args, "");
            assert!(out.status.success(), "{}", stderr(&out));
            eval_numbers(&stdout(&out))
        };
        let (burn, tract) = (eval(checkpoint), eval(file));
        assert!(
            burn.len() > 5 && burn.len() == tract.len(),
            "{burn:?} {tract:?}"
        );
        for (a, b) in burn.iter().zip(&tract) {
            assert!((a - b).abs() <= 2e-4, "{fen:?}: {burn:?} vs {tract:?}");
        }
    }

    // The same moves through the Hub protocol at a fixed number of simulations.
    let moves_of = |model: &str| HubEngine::start(&["hub", "--model", model]).self_play(8, 48);
    let from_checkpoint = moves_of(checkpoint);
    assert_eq!(from_checkpoint.len(), 8);
    assert_eq!(from_checkpoint, moves_of(file));

    // The arena's `net:` player takes the file too.
    let out = damas(
        &[
            "match",
            "--variant",
            "russian",
            "--games",
            "2",
            "--out",
            dir.join("match").to_str().unwrap(),
            "--quiet",
            &format!("net:{file},sims=8"),
            "random",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));

    // Bad input: not a model, and a model for another variant.
    let junk = dir.join("junk.onnx");
    std::fs::write(&junk, "not a model").unwrap();
    let out = damas(&["hub", "--model", junk.to_str().unwrap()], "");
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("not an ONNX model"),
        "{}",
        stderr(&out)
    );
    let out = damas(
        &[
            "match",
            "--variant",
            "english",
            "--games",
            "2",
            "--out",
            dir.join("wrong").to_str().unwrap(),
            &format!("net:{file}"),
            "random",
        ],
        "",
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("model is for variant `russian`, not `english`"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
